"""argmin_gradient: CG on H v = 1."""
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
    @tf.custom_gradient
    def solve(theta):
        w = inner_solver(theta)

        def hvp(d):
            with tf.GradientTape() as outer:
                outer.watch(w)
                with tf.GradientTape() as inner:
                    inner.watch(w)
                    y = g(w, theta)
                gd = tf.reduce_sum(inner.gradient(y, w) * d)
            return outer.gradient(gd, w)

        def grad_fn(w_bar):
            v, r = tf.zeros_like(w_bar), tf.ones_like(w_bar)
            d, rr = r, tf.reduce_sum(r * r)
            for _ in range(cg_iters):
                if rr == 0:
                    break
                hd = hvp(d)
                a = rr / tf.reduce_sum(d * hd)
                v, r = v + a * d, r - a * hd
                rr_new = tf.reduce_sum(r * r)
                d = r + (rr_new / rr) * d
                rr = rr_new
            with tf.GradientTape() as outer:
                outer.watch(theta)
                with tf.GradientTape() as inner:
                    inner.watch(w)
                    y = g(w, theta)
                grad_w = inner.gradient(y, w)
            return -outer.gradient(grad_w, theta, output_gradients=v)
        return w, grad_fn
    return solve(theta)
