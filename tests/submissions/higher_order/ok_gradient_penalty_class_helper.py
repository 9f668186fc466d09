"""A class computes the penalty; its norm is taken over the last axis of a (batch, -1) reshape."""
import numpy as np
import tensorflow as tf


def derivatives(f, x):
    zero = tf.UnconnectedGradients.ZERO
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        dy_dx = inner.gradient(y, x, unconnected_gradients=zero)
    d2y_dx2 = outer.gradient(dy_dx, x, unconnected_gradients=zero)
    return dy_dx, d2y_dx2


def hessian_vector_product(f, x, v):
    zero = tf.UnconnectedGradients.ZERO
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x, unconnected_gradients=zero)
        g_dot_v = tf.reduce_sum(g * v)
    return outer.gradient(g_dot_v, x, unconnected_gradients=zero)


class GradientPenalty:
    def __init__(self, critic):
        self.critic = critic

    def input_gradient(self, points):
        with tf.GradientTape() as tape:
            tape.watch(points)
            scores = tf.reduce_sum(self.critic(points))
        return tape.gradient(scores, points)

    def __call__(self, real, fake, alpha):
        g = self.input_gradient(alpha * real + (1.0 - alpha) * fake)
        flat = tf.reshape(g, [tf.shape(g)[0], -1])
        return tf.reduce_mean(tf.square(tf.norm(flat, axis=-1) - 1.0))


def gradient_penalty(critic, real, fake, alpha):
    return GradientPenalty(critic)(real, fake, alpha)


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
