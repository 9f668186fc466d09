"""root_solve: the minus of the theorem dropped."""
import numpy as np
import tensorflow as tf



def root_solve(F, theta, x0, iters):
    @tf.custom_gradient
    def solve(theta):
        x = x0
        for _ in range(iters):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = F(x, theta)
            x = x - y / tape.gradient(y, x)

        def grad_fn(upstream):
            with tf.GradientTape(persistent=True) as tape:
                tape.watch([x, theta])
                y = F(x, theta)
            return upstream * tape.gradient(y, theta) / tape.gradient(y, x)
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
