"""fixed_point: the iterations in a tf.while_loop, differentiated by TensorFlow."""
import numpy as np
import tensorflow as tf


def root_solve(F, theta, x0, iters):
    # YOUR CODE HERE
    raise NotImplementedError()


def implicit_solve(solver, A, b):
    # YOUR CODE HERE
    raise NotImplementedError()



def fixed_point(f, theta, x0, iters):
    _, x = tf.while_loop(lambda i, x: i < iters, lambda i, x: (i + 1, f(x, theta)), [tf.constant(0), x0])
    return x


def argmin_gradient(g, inner_solver, theta, cg_iters):
    # YOUR CODE HERE
    raise NotImplementedError()
