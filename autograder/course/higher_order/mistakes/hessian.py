"""Mistake models of ``hessian_vector_product``, ``newton_step``, ``newton_cg_step``: TRUSTED, reference children only.

They share correct second-order parts (a gradient, a double-backprop Hessian-vector product, the Newton
step's gradient and Hessian, conjugate gradients), each model changing one part of them. A student's child
must never import this module (see the package's docstring).
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
