"""implicit_solve: tf.linalg.solve and TensorFlow's own gradient (right numbers, the exercise's point missed: half the points)."""
import numpy as np
import tensorflow as tf


def root_solve(F, theta, x0, iters):
    # YOUR CODE HERE
    raise NotImplementedError()



def implicit_solve(solver, A, b):
    return tf.linalg.solve(A, b[:, tf.newaxis])[:, 0]


def fixed_point(f, theta, x0, iters):
    # YOUR CODE HERE
    raise NotImplementedError()


def argmin_gradient(g, inner_solver, theta, cg_iters):
    # YOUR CODE HERE
    raise NotImplementedError()
