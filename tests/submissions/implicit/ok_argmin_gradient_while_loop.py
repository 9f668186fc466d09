"""argmin_gradient: CG in tf.while_loop, top-level helpers, a relative stopping test."""
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



def hessian_vector_product(g, w, theta, d):
    with tf.GradientTape() as outer:
        outer.watch(w)
        with tf.GradientTape() as inner:
            inner.watch(w)
            value = g(w, theta)
        grad = inner.gradient(value, w)
    return outer.gradient(grad, w, output_gradients=d)


def conjugate_gradients(apply, b, steps):
    def body(k, v, r, d, rr):
        hd = apply(d)
        a = rr / tf.reduce_sum(d * hd)
        v, r = v + a * d, r - a * hd
        rr_new = tf.reduce_sum(r * r)
        return k + 1, v, r, r + (rr_new / rr) * d, rr_new
    start = (tf.constant(0), tf.zeros_like(b), b, b, tf.reduce_sum(b * b))
    keep_going = lambda k, v, r, d, rr: tf.logical_and(k < steps, rr > 1e-30 * start[-1])
    return tf.while_loop(keep_going, body, start)[1]


def argmin_gradient(g, inner_solver, theta, cg_iters):
    @tf.custom_gradient
    def solve(theta):
        w = inner_solver(theta)

        def grad_fn(w_bar):
            v = conjugate_gradients(lambda d: hessian_vector_product(g, w, theta, d), w_bar, cg_iters)
            with tf.GradientTape(persistent=True) as tape:
                tape.watch([w, theta])
                with tf.GradientTape() as inner:
                    inner.watch(w)
                    value = g(w, theta)
                grad_w = inner.gradient(value, w)
            mixed = tape.gradient(grad_w, theta, output_gradients=v)
            return -mixed
        return w, grad_fn
    return solve(theta)
