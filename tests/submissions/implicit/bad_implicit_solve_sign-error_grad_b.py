"""implicit_solve: the minus on grad_b instead of grad_A."""
import numpy as np
import tensorflow as tf


def root_solve(F, theta, x0, iters):
    # YOUR CODE HERE
    raise NotImplementedError()



def implicit_solve(solver, A, b):
    @tf.custom_gradient
    def solve(A, b):
        x = solver(A, b)

        def grad_fn(upstream):
            grad_b = -solver(tf.transpose(A), upstream)
            grad_A = tf.tensordot(grad_b, x, axes=0)
            return grad_A, grad_b
        return x, grad_fn
    return solve(A, b)


def fixed_point(f, theta, x0, iters):
    # YOUR CODE HERE
    raise NotImplementedError()


def argmin_gradient(g, inner_solver, theta, cg_iters):
    # YOUR CODE HERE
    raise NotImplementedError()
