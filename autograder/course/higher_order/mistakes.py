"""Mistake models of ``higher_order``: TRUSTED code, imported only by reference children.

Some mistakes are a correct computation with one part wrong, so this module holds correct parts (a correct
penalty, a correct Hessian and gradient): a student's child must never be able to import it
(``autograder.run.child_modules``), and the students' wheel ships the models' answers on the public cases,
not this code.
"""
from __future__ import annotations


# --------------------------------------------------------------------------- hessian_vector_product

def _double_backprop(f, x):
    import tensorflow as tf

    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x)
    return g, outer


def hvp_row_sums(f, x, v):
    import tensorflow as tf

    g, outer = _double_backprop(f, x)
    return outer.gradient(g, x, unconnected_gradients=tf.UnconnectedGradients.ZERO) * v


def hvp_gradient(f, x, v):
    import tensorflow as tf

    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x)


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


# --------------------------------------------------------------------------- newton_step

def _newton_parts(f, x):
    import tensorflow as tf

    with tf.GradientTape(persistent=True) as outer:  # row by row: no pfor function traced per case (0.06 s)
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x)
    return g, outer.jacobian(g, x, experimental_use_pfor=False)


def newton_multiplied(f, x):
    import tensorflow as tf

    g, hessian = _newton_parts(f, x)
    return x - tf.linalg.matvec(hessian, g)


def newton_sign(f, x):
    import tensorflow as tf

    g, hessian = _newton_parts(f, x)
    return x + tf.linalg.solve(hessian, g[:, tf.newaxis])[:, 0]


def newton_gradient_step(f, x):
    import tensorflow as tf

    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return x - tape.gradient(y, x)


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


def cg_swapped(critic, real, fake, alpha, gp_weight):
    return _critic_loss_gradients(critic, real, fake, alpha, gp_weight, gp=_penalty_swapped)


def newton_summed(f, x):
    import tensorflow as tf

    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x)
    return x - g / outer.gradient(g, x)


# --------------------------------------------------------------------------- newton_cg_step

def _gradient(f, x):
    import tensorflow as tf

    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x)


def _hvp(f, x, v):
    """H(x) v by double backprop: a correct part, as the models need it."""
    import tensorflow as tf

    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g_dot_v = tf.reduce_sum(inner.gradient(y, x) * v)
    return outer.gradient(g_dot_v, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)


def _zero_hvp(f, x, v):
    """What a product the outer tape never recorded gives with `unconnected_gradients=ZERO`."""
    import tensorflow as tf

    return tf.zeros_like(x)


def _cg(f, x, iters, steps=None, conjugate=True, early_stop=True, residual_from_gradient=False,
        at_moving_point=False, hvp=_hvp):
    """p after ``steps`` (default ``iters``) CG steps on H(x) p = -grad f(x), with one part changed."""
    import tensorflow as tf

    p = tf.zeros_like(x)
    r = -_gradient(f, x)
    d = r
    rr = tf.reduce_sum(r * r)
    for _ in range(iters if steps is None else steps):
        if early_stop and rr == 0:
            break
        hd = hvp(f, x + p if at_moving_point else x, d)
        a = rr / tf.reduce_sum(d * hd)
        p = p + a * d
        r = -_gradient(f, x + p) if residual_from_gradient else r - a * hd
        rr_new = tf.reduce_sum(r * r)
        d = r + (rr_new / rr) * d if conjugate else r
        rr = rr_new
    return p


def cg_one_step_more(f, x, iters):
    return x + _cg(f, x, iters, steps=iters + 1)


def cg_one_step_fewer(f, x, iters):
    return x + _cg(f, x, iters, steps=iters - 1)


def cg_steepest_descent(f, x, iters):
    return x + _cg(f, x, iters, conjugate=False)


def cg_returns_p(f, x, iters):
    return _cg(f, x, iters)


def cg_wrong_sign(f, x, iters):
    return x - _cg(f, x, iters)


def cg_no_early_stop(f, x, iters):
    return x + _cg(f, x, iters, early_stop=False)


def cg_gradient_residual(f, x, iters):
    return x + _cg(f, x, iters, residual_from_gradient=True)


def cg_hvp_moving_point(f, x, iters):
    return x + _cg(f, x, iters, at_moving_point=True)


def cg_row_sums(f, x, iters):
    return x + _cg(f, x, iters, hvp=hvp_row_sums)


def cg_zero_hvp(f, x, iters):
    return x + _cg(f, x, iters, hvp=_zero_hvp)
