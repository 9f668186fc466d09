# adapted from: vpratz/BayesFlow (a fork of bayesflow-org/bayesflow), bayesflow/utils/vjp.py (its "tensorflow"
# branch: a persistent tape watching the primals and `vjp_fn = partial(tape.gradient, fx, primals)`), used here
# where a Jacobian-vector product is asked for: vjp_fn(v) is J^T v, not J v.
from functools import partial

import numpy as np
import tensorflow as tf


def jacobian(f, x):
    raise NotImplementedError()


def batch_jacobian(f, x):
    raise NotImplementedError()


def robust_jacobian(f, x):
    raise NotImplementedError()


def hessian(f, x):
    raise NotImplementedError()


def _vjp(fn, *primals):
    with tf.GradientTape(persistent=True) as tape:
        for p in primals:
            tape.watch(p)
        fx = fn(*primals)
        vjp_fn = partial(tape.gradient, fx, primals)
    return fx, vjp_fn


def jvp(f, x, v):
    _, vjp_fn = _vjp(f, x)
    return vjp_fn(v)[0]


def per_example_gradients(model, loss_fn, x, y):
    raise NotImplementedError()
