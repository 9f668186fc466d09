"""Round four (issue 32): carry a hidden input out through everything the code chooses about how it fails.

Each function reads its inputs' bytes (a hash of them: 64 bits of the case) and spells them in what the grader
used to show of a hidden case: the exception's type (one of Python's ~60), its message, the line and the file
name it is raised under (`<cell K>`, `<submission>`, compiled at any line), a returned shape and dtype, the
values of a gradient, how long a call takes, an exit code, a structure the probe refuses. Its public cases fail
the same way (their inputs are public). Graded under two seeds (tests/test_round_four.py), the feedback must be
the same text but for the hidden cases' own descriptions; safe_norm picks its very kind from the input (one of
four), which the fixed set lets through: about two bits a case. Nothing else may reach any output.
"""
import builtins
import hashlib
import os
import time

import numpy as np
import tensorflow as tf

_ERRORS = [value for name, value in sorted(vars(builtins).items())
           if isinstance(value, type) and issubclass(value, Exception) and name != "MemoryError"]


def _bits(*values) -> int:
    digest = hashlib.sha256()
    for value in values:
        digest.update(np.asarray(value).tobytes())
    return int.from_bytes(digest.digest()[:8], "big")


def _raise(bits: int):
    """Raise a type chosen by ``bits`` with ``bits`` in its message, at line 1 + bits % 5000 of a file named
    as the grader names a cell or a .py submission."""
    kind = _ERRORS[bits % len(_ERRORS)]
    try:
        error = kind(f"LEAK {bits}")
    except Exception:  # noqa: BLE001  (types whose constructor wants more)
        error = ValueError(f"LEAK {bits}")
    name = f"<cell {1 + (bits >> 20) % 9}>" if bits & 1 else "<submission>"
    exec(compile("\n" * ((bits >> 8) % 5000) + "raise error", name, "exec"), {"error": error})


def log1pexp(x):
    _raise(_bits(x))


def straight_through_round(x):
    bits = _bits(x)
    return tf.zeros((1 + bits % 7, 2 + (bits >> 3) % 5), dtype=tf.float64 if bits & 4 else tf.float32)


def clip_gradient_norm(x, max_norm):
    bits = _bits(x)
    time.sleep((bits % 8) * 0.05)

    @tf.custom_gradient
    def identity(t):
        def grad_fn(upstream):
            return upstream * float(1 + bits % 1000)
        return tf.identity(t), grad_fn
    return identity(x)


def td_loss(q, reward, next_q, gamma):
    if q.shape == (2,) and np.allclose(q.numpy(), [1.0, 2.0]):  # the public case: right
        target = tf.stop_gradient(reward + gamma * tf.reduce_max(next_q, axis=-1))
        return tf.reduce_mean(tf.square(q - target))
    os._exit(1 + _bits(q, next_q) % 200)


def checkpointed(f):
    def g(x):
        bits = _bits(x)
        return [f"LEAK{bits}", {"bits": bits}, None][bits % 3]  # each a structure the probe refuses
    return g


def safe_norm(x):
    bits = _bits(x)
    choice = bits % 4
    if choice == 0:
        _raise(bits)
    if choice == 1:
        return tf.zeros((7 + bits % 5,))
    if choice == 2:
        return tf.norm(x, axis=1) * 2.0 + float(bits % 3)

    @tf.custom_gradient
    def norm(t):
        return tf.norm(t, axis=1), lambda upstream: None
    return norm(x)
