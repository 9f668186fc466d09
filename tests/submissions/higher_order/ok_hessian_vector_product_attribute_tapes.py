"""The tapes are kept as attributes (self.outer, self.inner); the inner gradient is taken inside the outer block."""
import numpy as np
import tensorflow as tf


def derivatives(f, x):
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = f(x)
        # Compute the gradient inside the outer `t2` context manager
        # which means the gradient computation is differentiable as well.
        dy_dx = t1.gradient(y, x)
    d2y_dx2 = t2.gradient(dy_dx, x)
    return dy_dx, d2y_dx2


class _HessianVectorProduct:
    """Keeps its tapes as attributes, as a class-based optimiser does; the inner gradient inside the outer block."""

    def __init__(self, f):
        self.f = f

    def __call__(self, x, v):
        with tf.GradientTape() as self.outer:
            self.outer.watch(x)
            with tf.GradientTape() as self.inner:
                self.inner.watch(x)
                y = self.f(x)
            g = self.inner.gradient(y, x)
            g_dot_v = tf.reduce_sum(g * v)
        return self.outer.gradient(g_dot_v, x)


def hessian_vector_product(f, x, v):
    return _HessianVectorProduct(f)(x, v)


def gradient_penalty(critic, real, fake, alpha):
    interpolates = alpha * real + (1.0 - alpha) * fake
    with tf.GradientTape() as tape:
        tape.watch(interpolates)
        scores = tf.reduce_sum(critic(interpolates))
    g = tape.gradient(scores, interpolates, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    squared = tf.reduce_sum(tf.square(g), axis=tf.range(1, tf.rank(g)))
    nonzero = squared > 0
    norm = tf.where(nonzero, tf.sqrt(tf.where(nonzero, squared, tf.ones_like(squared))), tf.zeros_like(squared))
    return tf.reduce_mean(tf.square(norm - 1.0))


def critic_gradients(critic, real, fake, alpha, gp_weight):
    with tf.GradientTape() as tape:
        wasserstein = tf.reduce_mean(critic(fake)) - tf.reduce_mean(critic(real))
        loss = wasserstein + gp_weight * gradient_penalty(critic, real, fake, alpha)
    grads = tape.gradient(loss, critic.trainable_variables, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    return loss, grads


def newton_step(f, x):
    zero = tf.UnconnectedGradients.ZERO
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x, unconnected_gradients=zero)
    hessian = outer.jacobian(g, x, unconnected_gradients=zero)
    step = tf.linalg.solve(hessian, g[:, tf.newaxis])[:, 0]
    return x - step


def newton_cg_step(f, x, iters):
    def hvp(d):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = f(x)
            g = inner.gradient(y, x)
            g_dot_d = tf.reduce_sum(g * d)
        return outer.gradient(g_dot_d, x)

    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    r = -tape.gradient(y, x)
    p = tf.zeros_like(x)
    d = r
    rr = tf.reduce_sum(r * r)
    for _ in range(iters):
        if rr == 0:
            break
        hd = hvp(d)
        a = rr / tf.reduce_sum(d * hd)
        p = p + a * d
        r = r - a * hd
        rr_new = tf.reduce_sum(r * r)
        d = r + rr_new / rr * d
        rr = rr_new
    return x + p
