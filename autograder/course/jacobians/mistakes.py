"""Mistake models of ``jacobians``: TRUSTED code, imported only by reference children.

Each function is a known-wrong implementation with the exercise's signature (``Mistake.implementation``
names it); several are a correct Jacobian or Hessian with one thing wrong, so a student's child must never
import this module (``autograder.run.child_modules``).
"""
from __future__ import annotations


def _tape_jacobian(f, x, watch=True, use_pfor=True, unconnected_zero=True):
    import tensorflow as tf

    with tf.GradientTape(persistent=not use_pfor) as tape:
        if watch:
            tape.watch(x)
        y = f(x)
    unconnected = tf.UnconnectedGradients.ZERO if unconnected_zero else tf.UnconnectedGradients.NONE
    return tape.jacobian(y, x, unconnected_gradients=unconnected, experimental_use_pfor=use_pfor)


def jacobian_transposed(f, x):
    import tensorflow as tf

    return tf.transpose(_tape_jacobian(f, x, use_pfor=False))


def jacobian_summed(f, x):
    import tensorflow as tf

    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x)


def jacobian_squeezed(f, x):
    import tensorflow as tf

    return tf.squeeze(_tape_jacobian(f, x, use_pfor=False))


def jacobian_unwatched(f, x):
    return _tape_jacobian(f, x, watch=False, use_pfor=False)


# The mistake models compute their matrices row by row (``experimental_use_pfor=False`` on a persistent tape):
# the same numbers as the vectorized call students make, without tracing a pfor function for every case
# (0.06 s each, in every run that computes the reference's outcomes).

def batch_full(f, x):
    import tensorflow as tf

    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = f(x)
    return tape.jacobian(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO, experimental_use_pfor=False)


def _batch_jacobian(f, x, watch=True):
    import tensorflow as tf

    with tf.GradientTape(persistent=True) as tape:
        if watch:
            tape.watch(x)
        y = f(x)
    return tape.batch_jacobian(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO,
                               experimental_use_pfor=False)


def batch_transposed(f, x):
    import tensorflow as tf

    return tf.transpose(_batch_jacobian(f, x), [0, 2, 1])


def batch_squeezed(f, x):
    import tensorflow as tf

    return tf.squeeze(_batch_jacobian(f, x))


def batch_unwatched(f, x):
    return _batch_jacobian(f, x, watch=False)


def _hessian(f, x, watch=True):
    import tensorflow as tf

    with tf.GradientTape(persistent=True) as outer:
        if watch:
            outer.watch(x)
        with tf.GradientTape() as inner:
            if watch:
                inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    return outer.jacobian(g, x, unconnected_gradients=tf.UnconnectedGradients.ZERO, experimental_use_pfor=False)


def hessian_summed(f, x):
    import tensorflow as tf

    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x)
    return outer.gradient(g, x)


def hessian_unwatched(f, x):
    return _hessian(f, x, watch=False)


def jvp_as_vjp(f, x, v):
    """J^T v: a reverse-mode product with v as the output gradient (defined only when n == m)."""
    import tensorflow as tf

    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x, output_gradients=v)


def jvp_gradient_times_v(f, x, v):
    import tensorflow as tf

    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO) * v


def batch_summed(f, x):
    import tensorflow as tf

    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x)


# per_example_gradients: the per-example gradients come from an eager loop over the examples (a few examples
# in every case the mistake models run on), which costs less than tracing a pfor Jacobian per case.

def _per_example(model, loss_fn, x, y):
    import tensorflow as tf

    rows = []
    for i in range(int(x.shape[0])):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(loss_fn(y[i:i + 1], model(x[i:i + 1])))
        rows.append(tape.gradient(loss, model.trainable_variables, unconnected_gradients=tf.UnconnectedGradients.ZERO))
    return [tf.stack(column) for column in zip(*rows)]


def pe_loop(model, loss_fn, x, y):
    """The right numbers, with the model called once per example."""
    return _per_example(model, loss_fn, x, y)


def _batch_gradient(model, loss_fn, x, y, mean: bool, broadcast: bool):
    import tensorflow as tf

    with tf.GradientTape() as tape:
        losses = loss_fn(y, model(x))
        total = tf.reduce_mean(losses) if mean else losses
    gradients = tape.gradient(total, model.trainable_variables)
    if not broadcast:
        return gradients
    return [tf.broadcast_to(g, [int(x.shape[0]), *g.shape]) for g in gradients]


def pe_summed(model, loss_fn, x, y):
    return _batch_gradient(model, loss_fn, x, y, mean=False, broadcast=False)


def pe_summed_broadcast(model, loss_fn, x, y):
    return _batch_gradient(model, loss_fn, x, y, mean=False, broadcast=True)


def pe_mean(model, loss_fn, x, y):
    return _batch_gradient(model, loss_fn, x, y, mean=True, broadcast=False)


def pe_mean_broadcast(model, loss_fn, x, y):
    return _batch_gradient(model, loss_fn, x, y, mean=True, broadcast=True)


def pe_batch_last(model, loss_fn, x, y):
    import tensorflow as tf

    return [tf.transpose(g, [*range(1, g.shape.rank), 0]) for g in _per_example(model, loss_fn, x, y)]


def pe_flattened(model, loss_fn, x, y):
    import tensorflow as tf

    return [tf.reshape(g, [int(x.shape[0]), -1]) for g in _per_example(model, loss_fn, x, y)]


def pe_squeezed(model, loss_fn, x, y):
    """`tf.squeeze` of each per-example tensor: a Dense(1) layer's (batch, h, 1) and (batch, 1) lose their last axis."""
    import tensorflow as tf

    return [tf.squeeze(g) for g in _per_example(model, loss_fn, x, y)]


def pe_reversed(model, loss_fn, x, y):
    return _per_example(model, loss_fn, x, y)[::-1]


def pe_axes_reversed(model, loss_fn, x, y):
    """`tf.transpose(g)` of each per-example tensor: every axis reversed, the batch last."""
    import tensorflow as tf

    return [tf.transpose(g) for g in _per_example(model, loss_fn, x, y)]


def pe_outputs_jacobian(model, loss_fn, x, y):
    """The Jacobian of the model's outputs, (batch, k, *variable.shape), instead of the per-example losses'."""
    import tensorflow as tf

    with tf.GradientTape(persistent=True) as tape:
        outputs = model(x)
    return tape.jacobian(outputs, model.trainable_variables, experimental_use_pfor=False)
