"""argmin_gradient: forward-over-backward HVPs, the mixed derivative as the gradient of a dot product."""
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

        def grad_fn(w_bar):
            def hvp(d):
                with tf.autodiff.ForwardAccumulator(w, d) as acc:
                    with tf.GradientTape() as tape:
                        tape.watch(w)
                        y = g(w, theta)
                    grad = tape.gradient(y, w)
                return acc.jvp(grad)
            v = tf.zeros_like(w)
            r = tf.identity(w_bar)
            d = r
            rr = tf.tensordot(r, r, 1)
            for _ in range(cg_iters):
                if rr == 0:
                    break
                hd = hvp(d)
                alpha = rr / tf.tensordot(d, hd, 1)
                v += alpha * d
                r -= alpha * hd
                rr_new = tf.tensordot(r, r, 1)
                d = r + rr_new / rr * d
                rr = rr_new
            with tf.GradientTape() as t_theta:
                t_theta.watch(theta)
                with tf.GradientTape() as t_w:
                    t_w.watch(w)
                    y = g(w, theta)
                dot = tf.reduce_sum(t_w.gradient(y, w) * v)
            return -t_theta.gradient(dot, theta)
        return w, grad_fn
    return solve(theta)
