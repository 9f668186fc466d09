"""root_solve: both partials by forward mode (elementwise: a JVP with ones is the diagonal), the steps in a tf.while_loop."""
import numpy as np
import tensorflow as tf



def root_solve(F, theta, x0, iters):
    ones = tf.ones_like(x0)

    def partial_x(x, theta):
        with tf.autodiff.ForwardAccumulator(x, ones) as acc:
            y = F(x, theta)
        return y, acc.jvp(y)

    @tf.custom_gradient
    def solve(theta):
        def body(k, x):
            y, dx = partial_x(x, theta)
            return k + 1, x - y / dx
        _, x = tf.while_loop(lambda k, x: k < iters, body, (tf.constant(0), x0))

        def grad_fn(u):
            _, dF_dx = partial_x(x, theta)
            with tf.autodiff.ForwardAccumulator(theta, ones) as acc:
                y = F(x, theta)
            return -u * acc.jvp(y) / dF_dx
        return x, grad_fn
    return solve(theta)


def implicit_solve(solver, A, b):
    # YOUR CODE HERE
    raise NotImplementedError()


def fixed_point(f, theta, x0, iters):
    # YOUR CODE HERE
    raise NotImplementedError()


def argmin_gradient(g, inner_solver, theta, cg_iters):
    # YOUR CODE HERE
    raise NotImplementedError()
