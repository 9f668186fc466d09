"""argmin_gradient: the inner solver's result returned as it is."""
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
    return inner_solver(theta)
