"""root_solve: a custom gradient of (theta, x0) that returns None for x0; a lambda grad_fn."""
import numpy as np
import tensorflow as tf



def newton(F, theta, x, iters):
    for _ in range(iters):
        with tf.GradientTape() as t:
            t.watch(x)
            residual = F(x, theta)
        x -= residual / t.gradient(residual, x)
    return x


def root_solve(F, theta, x0, iters):
    @tf.custom_gradient
    def root(theta, x0):
        x = newton(F, theta, x0, iters)
        with tf.GradientTape(persistent=True) as t:
            t.watch(x)
            t.watch(theta)
            residual = F(x, theta)
        ratio = t.gradient(residual, theta) / t.gradient(residual, x)
        return x, lambda dx: (-dx * ratio, None)
    return root(theta, x0)


def implicit_solve(solver, A, b):
    # YOUR CODE HERE
    raise NotImplementedError()


def fixed_point(f, theta, x0, iters):
    # YOUR CODE HERE
    raise NotImplementedError()


def argmin_gradient(g, inner_solver, theta, cg_iters):
    # YOUR CODE HERE
    raise NotImplementedError()
