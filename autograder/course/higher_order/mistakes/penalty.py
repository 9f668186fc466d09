"""Mistake models of ``gradient_penalty`` and ``critic_gradients`` (WGAN-GP): TRUSTED, for reference children.

They share a correct gradient penalty (the interpolates' gradients, a norm with a safe gradient at 0) and a
correct critic loss, each model changing one part of them. A student's child must never import this module
(see the package's docstring).
"""
from __future__ import annotations


# --------------------------------------------------------------------------- gradient_penalty

def _interpolate_gradients(critic, real, fake, alpha):
    import tensorflow as tf

    interpolates = alpha * real + (1.0 - alpha) * fake
    with tf.GradientTape() as tape:
        tape.watch(interpolates)
        score = tf.reduce_sum(critic(interpolates))
    return tape.gradient(score, interpolates)


def _safe_norm(squared):
    import tensorflow as tf

    nonzero = squared > 0
    return tf.where(nonzero, tf.sqrt(tf.where(nonzero, squared, tf.ones_like(squared))), tf.zeros_like(squared))


def _penalty(critic, real, fake, alpha):
    """A correct penalty, for the mistake models of critic_gradients."""
    import tensorflow as tf

    g = _interpolate_gradients(critic, real, fake, alpha)
    norm = _safe_norm(tf.reduce_sum(tf.square(g), axis=tf.range(1, tf.rank(g))))
    return tf.reduce_mean(tf.square(norm - 1.0))


def gp_whole_batch(critic, real, fake, alpha):
    import tensorflow as tf

    g = _interpolate_gradients(critic, real, fake, alpha)
    return tf.reduce_mean(tf.square(tf.norm(g) - 1.0))


def gp_axis_one(critic, real, fake, alpha):
    import tensorflow as tf

    g = _interpolate_gradients(critic, real, fake, alpha)
    return tf.reduce_mean(tf.square(tf.norm(g, axis=1) - 1.0))


def _penalty_norm_over(critic, real, fake, alpha, axes):
    """The penalty with one norm taken over ``axes(rank)`` of the gradient: a wrong set of axes."""
    import tensorflow as tf

    g = _interpolate_gradients(critic, real, fake, alpha)
    norm = _safe_norm(tf.reduce_sum(tf.square(g), axis=axes(g.shape.rank)))
    return tf.reduce_mean(tf.square(norm - 1.0))


def gp_last_axis(critic, real, fake, alpha):
    """`tf.norm(g, axis=-1)`: right for (batch, d) vectors, a (batch, h, w) tensor of norms for images."""
    return _penalty_norm_over(critic, real, fake, alpha, lambda rank: [rank - 1])


def gp_spatial_axes(critic, real, fake, alpha):
    """The norm over the spatial axes of images, forgetting the channels: one norm per (example, channel)."""
    return _penalty_norm_over(critic, real, fake, alpha, lambda rank: [1] if rank == 2 else list(range(1, rank - 1)))


def gp_batch_axis(critic, real, fake, alpha):
    """`tf.norm(g, axis=0)`: one norm per feature across the batch, instead of one per example."""
    return _penalty_norm_over(critic, real, fake, alpha, lambda rank: [0])


def _interpolate_gradients_swapped(critic, real, fake, alpha):
    import tensorflow as tf

    interpolates = real + alpha * (fake - real)
    with tf.GradientTape() as tape:
        tape.watch(interpolates)
        score = tf.reduce_sum(critic(interpolates))
    return tape.gradient(score, interpolates)


def _penalty_swapped(critic, real, fake, alpha):
    import tensorflow as tf

    g = _interpolate_gradients_swapped(critic, real, fake, alpha)
    norm = _safe_norm(tf.reduce_sum(tf.square(g), axis=tf.range(1, tf.rank(g))))
    return tf.reduce_mean(tf.square(norm - 1.0))


def gp_swapped(critic, real, fake, alpha):
    return _penalty_swapped(critic, real, fake, alpha)


# --------------------------------------------------------------------------- critic_gradients

def _critic_loss_gradients(critic, real, fake, alpha, gp_weight, sign=1.0, penalty_inside=True, gp=_penalty):
    import tensorflow as tf

    penalty = None if penalty_inside else gp(critic, real, fake, alpha)
    with tf.GradientTape() as tape:
        wasserstein = sign * (tf.reduce_mean(critic(fake)) - tf.reduce_mean(critic(real)))
        if penalty_inside:
            penalty = gp(critic, real, fake, alpha)
        loss = wasserstein + gp_weight * penalty
    grads = tape.gradient(loss, critic.trainable_variables, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    return loss, grads


def cg_penalty_outside(critic, real, fake, alpha, gp_weight):
    return _critic_loss_gradients(critic, real, fake, alpha, gp_weight, penalty_inside=False)


def cg_sign_flipped(critic, real, fake, alpha, gp_weight):
    return _critic_loss_gradients(critic, real, fake, alpha, gp_weight, sign=-1.0)


def cg_whole_batch(critic, real, fake, alpha, gp_weight):
    return _critic_loss_gradients(critic, real, fake, alpha, gp_weight, gp=gp_whole_batch)


def cg_axis_one(critic, real, fake, alpha, gp_weight):
    return _critic_loss_gradients(critic, real, fake, alpha, gp_weight, gp=gp_axis_one)


def cg_swapped(critic, real, fake, alpha, gp_weight):
    return _critic_loss_gradients(critic, real, fake, alpha, gp_weight, gp=_penalty_swapped)
