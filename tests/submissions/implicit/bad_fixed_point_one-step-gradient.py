"""fixed_point: (df/dtheta)^T g, the adjoint never iterated."""
import numpy as np
import tensorflow as tf


def root_solve(F, theta, x0, iters):
    # YOUR CODE HERE
    raise NotImplementedError()


def implicit_solve(solver, A, b):
    # YOUR CODE HERE
    raise NotImplementedError()



def fixed_point(f, theta, x0, iters):
    @tf.custom_gradient
    def solve(theta):
        x = x0
        for _ in range(iters):
            x = f(x, theta)

        def grad_fn(g):
            with tf.GradientTape() as tape:
                tape.watch(theta)
                fx = f(x, theta)
            return tape.gradient(fx, theta, output_gradients=g)
        return x, grad_fn
    return solve(theta)


def argmin_gradient(g, inner_solver, theta, cg_iters):
    # YOUR CODE HERE
    raise NotImplementedError()
