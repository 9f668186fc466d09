# -*- coding: latin-1 -*-
"""Honest, saved in Latin-1: élève Zoë Müller, façade, señor."""
import tensorflow as tf


@tf.custom_gradient
def log1pexp(x):
    def grad_fn(upstream):
        return upstream * tf.sigmoid(x)
    return tf.nn.softplus(x), grad_fn


def straight_through_round(x):
    return x + tf.stop_gradient(tf.round(x) - x)


def clip_gradient_norm(x, max_norm):
    @tf.custom_gradient
    def identity(t):
        def grad_fn(upstream):
            return tf.clip_by_norm(upstream, max_norm)
        return tf.identity(t), grad_fn
    return identity(x)


def td_loss(q, reward, next_q, gamma):
    # écart quadratique moyen
    target = tf.stop_gradient(reward + gamma * tf.reduce_max(next_q, axis=-1))
    return tf.reduce_mean(tf.square(q - target))


def checkpointed(f):
    return tf.recompute_grad(f)

AUTEUR = "Zoë"


@tf.custom_gradient
def safe_norm(x):
    scale = tf.reduce_max(tf.abs(x), axis=-1, keepdims=True)
    norm = tf.squeeze(scale, -1) * tf.norm(tf.math.divide_no_nan(x, scale), axis=-1)
    return norm, lambda dy: dy[:, None] * tf.math.divide_no_nan(x, norm[:, None])
