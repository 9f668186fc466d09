"""root_solve: converged Newton steps differentiated by TensorFlow (unrolled): the same numbers, no points lost."""
import numpy as np
import tensorflow as tf



def root_solve(F, theta, x0, iters):
    x = x0
    for _ in range(iters):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = F(x, theta)
        dF_dx = tape.gradient(y, x)
        x = x - y / dF_dx
    return x


def implicit_solve(solver, A, b):
    # YOUR CODE HERE
    raise NotImplementedError()


def fixed_point(f, theta, x0, iters):
    # YOUR CODE HERE
    raise NotImplementedError()


def argmin_gradient(g, inner_solver, theta, cg_iters):
    # YOUR CODE HERE
    raise NotImplementedError()
