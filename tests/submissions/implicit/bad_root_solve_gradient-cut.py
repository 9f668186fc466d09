"""root_solve: the result returned through tf.stop_gradient, no custom gradient."""
import numpy as np
import tensorflow as tf



def root_solve(F, theta, x0, iters):
    x = x0
    for _ in range(iters):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = F(x, theta)
        x = x - y / tape.gradient(y, x)
    return tf.stop_gradient(x)


def implicit_solve(solver, A, b):
    # YOUR CODE HERE
    raise NotImplementedError()


def fixed_point(f, theta, x0, iters):
    # YOUR CODE HERE
    raise NotImplementedError()


def argmin_gradient(g, inner_solver, theta, cg_iters):
    # YOUR CODE HERE
    raise NotImplementedError()
