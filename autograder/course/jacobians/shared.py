"""What the jacobians exercises share: the Tensor / Variable case pairs, the result check, the Jacobian's mistakes.

Inputs come in pairs, the same data as a tf.Tensor (tag "tensor") and as a tf.Variable (tag "variable"), so
that a missing ``tape.watch`` shows as "wrong for Tensors, right for Variables". Non-square Jacobians expose a
transpose by its shape, square non-symmetric ones by its values.
"""
from __future__ import annotations

import numpy as np

from autograder.course.building import case
from autograder.course.probing import require_tensor
from autograder.model.course import Mistake, Output

JACOBIAN = Output("jacobian", "the Jacobian", none_means_zero=True, gradient=True)
SCALE_N = 100_000


def result(value, what: str, like):
    """None passes through (a gradient that does not reach x); anything else must be a tensor of x's dtype.

    Shapes are NOT checked here: a transposed or summed result is compared (and matched
    against the mistake models) by the parent, which names the pitfall.
    """
    return None if value is None else require_tensor(value, what, like=like)


def pair(id_: str, description: str, dtype: str, tags: tuple[str, ...] = (), **args) -> list:
    """The same data as a Tensor case and as a Variable case."""
    return [
        case(f"{id_}-tensor", f"{dtype} Tensor {description}", dtype, tags=("tensor", *tags), args=dict(args)),
        case(f"{id_}-variable", f"{dtype} Variable {description}", dtype, tags=("variable", *tags),
             args=dict(args, variable=True)),
    ]


def tensor_case(id_: str, description: str, dtype: str, tags: tuple[str, ...] = (), **args) -> list:
    """The Tensor case of a pair alone: where the exercise already has a Tensor / Variable pair that tells a
    missing tape.watch, a second pair only repeats it (and a pfor ``tape.jacobian`` costs 0.06 s a call)."""
    return pair(id_, description, dtype, tags, **args)[:1]


def nonsymmetric(rng: np.random.Generator, n: int, dtype: str) -> np.ndarray:
    a = rng.normal(size=(n, n))
    return (a + 2.0 * np.triu(a, 1)).astype(dtype)  # far from symmetric, so J^T differs from J


TRANSPOSED_FIX = ("J[i, j] is dy_i / dx_j: one row per output, one column per input; `tape.jacobian(y, x)` "
                   "already has this orientation, so drop the `tf.transpose` (or stack per-output gradients "
                   "with `axis=0`, per-input columns with `axis=1`)")
SUMMED_EXPLANATION = ("your result is `tape.gradient(y, x)`: for a vector y it is the gradient of sum(y), the column "
                       "sums of J (shape (n,)), not the Jacobian")
UNWATCHED_EXPLANATION = ("your result is None or zero for tf.Tensor inputs and right for tf.Variable inputs: the "
                          "tape does not watch x (a tape only watches Variables by itself)")
UNWATCHED_FIX = "call `tape.watch(x)` as the first line inside `with tf.GradientTape() as tape:`"


def jacobian_mistakes(summed_fix: str) -> tuple[Mistake, ...]:
    """The mistakes of a full Jacobian, shared by `jacobian` and `robust_jacobian` (only the fix differs)."""
    return (
        Mistake("transposed", "jacobian_transposed",
                "your result is J^T, shape (n, m): rows follow the inputs instead of the outputs", TRANSPOSED_FIX),
        Mistake("summed-gradient", "jacobian_summed", SUMMED_EXPLANATION, summed_fix),
        Mistake("unwatched-tensor", "jacobian_unwatched", UNWATCHED_EXPLANATION, UNWATCHED_FIX),
    )
