"""fixed_point: the iterations differentiated by TensorFlow."""
import numpy as np
import tensorflow as tf


def root_solve(F, theta, x0, iters):
    # YOUR CODE HERE
    raise NotImplementedError()


def implicit_solve(solver, A, b):
    # YOUR CODE HERE
    raise NotImplementedError()



def fixed_point(f, theta, x0, iters):
    x = x0
    for _ in range(iters):
        x = f(x, theta)
    return x


def argmin_gradient(g, inner_solver, theta, cg_iters):
    # YOUR CODE HERE
    raise NotImplementedError()
