"""The notebook's style for all four."""
import numpy as np
import tensorflow as tf



def root_solve(F, theta, x0, iters):
    @tf.custom_gradient
    def solve(theta):
        x = x0
        for _ in range(iters):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = F(x, theta)
            x = x - y / tape.gradient(y, x)

        def grad_fn(upstream):
            with tf.GradientTape(persistent=True) as tape:
                tape.watch([x, theta])
                y = F(x, theta)
            return -upstream * tape.gradient(y, theta) / tape.gradient(y, x)
        return x, grad_fn
    return solve(theta)



def implicit_solve(solver, A, b):
    @tf.custom_gradient
    def solve(A, b):
        x = solver(A, b)

        def grad_fn(upstream):
            grad_b = solver(tf.transpose(A), upstream)
            return -tf.tensordot(grad_b, x, axes=0), grad_b
        return x, grad_fn
    return solve(A, b)



def fixed_point(f, theta, x0, iters):
    @tf.custom_gradient
    def solve(theta):
        x = x0
        for _ in range(iters):
            x = f(x, theta)

        def grad_fn(g):
            with tf.GradientTape(persistent=True) as tape:
                tape.watch([x, theta])
                fx = f(x, theta)
            u = g
            for _ in range(1000):
                u_next = g + tape.gradient(fx, x, output_gradients=u)
                done = tf.norm(u_next - u) <= 1e-6 * tf.norm(u_next)
                u = u_next
                if done:
                    break
            return tape.gradient(fx, theta, output_gradients=u)
        return x, grad_fn
    return solve(theta)



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
            v, r = tf.zeros_like(w_bar), w_bar
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
