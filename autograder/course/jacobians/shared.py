"""What the jacobians exercises share: the Tensor / Variable case pairs, the result check, the Jacobian's mistakes.

Inputs come in pairs, the same data as a tf.Tensor (tag "tensor") and as a tf.Variable (tag "variable"), so
that a missing ``tape.watch`` shows as "wrong for Tensors, right for Variables". Non-square Jacobians expose a
transpose by its shape, square non-symmetric ones by its values.
"""
from __future__ import annotations

import numpy as np

from autograder.course.building import advisory, case, diagnostic
from autograder.course.probing import require_tensor
from autograder.model.course import Look, Mistake, Output

JACOBIAN = Output("jacobian", "the Jacobian", none_means_zero=True, gradient=True)
SCALE_N = 100_000


def result(value, what: str, like):
    """None passes through (a gradient that does not reach x); anything else must be a tensor of x's dtype.

    Shapes are NOT checked here: a transposed or summed result is compared (and matched
    against the mistake models) by the parent, which names the pitfall.
    """
    return None if value is None else require_tensor(value, what, like=like)


def pair(id_: str, description: str, reason: str, tags: tuple[str, ...] = (), **args) -> list:
    """The same float32 data as a graded Tensor case and as a diagnostic Variable case: wrong for the Tensor
    and right for the Variable is a missing tape.watch (the contract grades Tensors only)."""
    return [
        case(f"{id_}-tensor", f"float32 Tensor {description}", tags=("tensor", *tags), reason=reason, args=dict(args)),
        diagnostic(f"{id_}-variable", f"float32 Variable {description}", tags=("variable", *tags),
                   tells="the Variable twin of a Tensor case: right here and wrong there is a missing tape.watch",
                   args=dict(args, variable=True)),
    ]


def tensor_case(id_: str, description: str, reason: str, tags: tuple[str, ...] = (), **args) -> list:
    """The graded Tensor case of a pair alone: where the exercise already has a pair that tells a missing
    tape.watch, a second pair only repeats it (and a pfor ``tape.jacobian`` costs 0.06 s a call)."""
    return pair(id_, description, reason, tags, **args)[:1]


def constant_case(id_: str, exercise: str, description: str, **args):
    """An f that does not depend on x: beyond the contract (it grades only f that depend on x), advice only."""
    return advisory(id_, description, tags=("tensor", "degenerate"), args=dict(args),
                    advice=f"your {exercise} does not give zeros (or None) for an f that does not depend on x: "
                           "`tape.gradient` and `tape.jacobian` return None there; pass "
                           "`unconnected_gradients=tf.UnconnectedGradients.ZERO` to get zeros")


def float64_case(id_: str, exercise: str, description: str, **args):
    """A float64 input: beyond the contract (float32), advice only."""
    return advisory(id_, f"float64 Tensor {description} (the contract's inputs are float32)", "float64",
                    tags=("tensor",), args=dict(args),
                    advice=f"your {exercise} does not keep float64 inputs in float64 (a hard-coded dtype, or "
                           "float32 one-hot tangents?)")


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
                "your result is J^T, shape (n, m): rows follow the inputs instead of the outputs", TRANSPOSED_FIX,
                look=Look((r"transpose\(|einsum\(|perm\s*=|\.T\b|stack\(",),
                          "this puts the inputs before the outputs")),
        Mistake("summed-gradient", "jacobian_summed", SUMMED_EXPLANATION, summed_fix),
        Mistake("unwatched-tensor", "jacobian_unwatched", UNWATCHED_EXPLANATION, UNWATCHED_FIX),
    )
