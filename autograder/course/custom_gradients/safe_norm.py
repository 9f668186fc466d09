"""``safe_norm(x)``: the L2 norm of each row with a hand-written vector-Jacobian product (``@tf.custom_gradient``).

The exercise is non-elementwise: upstream has shape (batch,) and grad_fn returns (batch, n). Its edge cases are
rows whose sum of squares overflows (entries near 1e30) or underflows (near 1e-30) float32, and all-zero rows,
where the automatic gradient of ``tf.norm`` is 0 / 0 = NaN and the contract asks for exactly zero. Each mistake
model runs only on the kind of case that shows its symptom (``Mistake.cases``), so that two mistakes in one
submission are both named: a model compared on every case would fail to match wherever the other mistake shows.
"""
from __future__ import annotations

import numpy as np

from autograder.course.building import advisory, array, case, uniform
from autograder.course.probing import weighted_gradient
from autograder.model.course import Case, Exercise, Look, Mistake, Output, Scope

NORM = Output("value", "the norm of each row", check_dtype=True, relative=True)
# Element by element relative, as the value: each entry is upstream_i * x_ij / norm_i, a product and a quotient with
# no cancellation, so every correct order of operations is accurate to rounding, at 1e-30 and 1e30 as at 1.
GRADIENT = Output("gradient", "the gradient with respect to x", gradient=True, relative=True)
VALUE_AND_GRADIENT = "safe_norm: the L2 norm of each row, shape (batch,); gradient upstream[:, None] * (x / norm)"
STABLE = ("safe_norm: value accurate row by row (relative 2e-3 in float32) for entries as large as 1e30 or as "
          "small as 1e-30, where the sum of squares overflows or underflows; gradient upstream[:, None] * (x / norm)")
EXTREME = ("safe_norm: gradient upstream[:, None] * (x / norm) accurate row by row where upstream * x alone would "
           "overflow or underflow float32 (rows of 1e30 with upstream 1e9, rows of 1e-30 with upstream 1e-9): "
           "x / norm is at most 1 in magnitude, so dividing first keeps every product the size of upstream")
ZERO_ROW = "safe_norm: the gradient of an all-zero row is exactly zero; " + VALUE_AND_GRADIENT
FLOAT64 = "safe_norm: float32 or float64 (relative 1e-5 in float64); " + VALUE_AND_GRADIENT


def signed(rng: np.random.Generator, shape: tuple[int, int], magnitude: float, dtype: str) -> np.ndarray:
    """Entries of magnitude between 0.1 and 1 times ``magnitude``, random signs: every row of one size."""
    values = rng.uniform(0.1, 1.0, size=shape) * rng.choice([-1.0, 1.0], size=shape) * magnitude
    return values.astype(np.float32 if dtype == "float32" else np.float64)


def make_cases(rng: np.random.Generator):
    batch, n = (int(v) for v in rng.integers(3, 7, size=2))
    square = int(rng.integers(3, 6))
    with_zeros = uniform(rng, (batch, n), -5, 5, "float32")
    with_zeros[rng.choice(batch, size=int(rng.integers(1, batch)), replace=False)] = 0.0
    mixed64 = np.concatenate([signed(rng, (2, n), 1e30, "float64"), signed(rng, (2, n), 1e-30, "float64"),
                              np.zeros((1, n)), uniform(rng, (batch, n), -5, 5, "float64")])
    mixed32 = np.concatenate([signed(rng, (2, n), 1e30, "float32"), signed(rng, (2, n), 1e-30, "float32"),
                              uniform(rng, (2, n), -5, 5, "float32")])

    def weights(rows: int, dtype: str = "float32") -> np.ndarray:
        return uniform(rng, (rows,), -2, 2, dtype)

    # rows of 1e30 weighted by about 1e9 and rows of 1e-30 by about 1e-9, random signs: the products
    # upstream * x reach 1e39 and 1e-39, beyond float32, the gradient itself about 1e9 and 1e-9
    extreme_rows = np.concatenate([signed(rng, (2, n), 1e30, "float32"), signed(rng, (2, n), 1e-30, "float32")])
    extreme_weights = (uniform(rng, (4,), 1.0, 3.0, "float32") * rng.choice([-1.0, 1.0], size=4)
                       * np.array([1e9, 1e9, 1e-9, 1e-9])).astype(np.float32)

    return [
        case("f32-rows", "float32 Tensor x = [[3, 4, 0, 0], [1, -2, 2, 0], [-2, -1, -2, -4]], loss = sum(y)",
             public=True, reason=VALUE_AND_GRADIENT,
             args=dict(x=array([[3, 4, 0, 0], [1, -2, 2, 0], [-2, -1, -2, -4]], "float32"), upstream=None)),
        case("f32-weighted", "float32 Tensor x = [[1, 2, 2], [-3, 0, 4], [2, -1, 0.5]], weighted loss sum(w * y) "
             "with w = [1, -2, 0.5]", tags=("upstream",), public=True, reason=VALUE_AND_GRADIENT,
             args=dict(x=array([[1, 2, 2], [-3, 0, 4], [2, -1, 0.5]], "float32"),
                       upstream=array([1.0, -2.0, 0.5], "float32"))),
        case("f32-large", "float32 Tensor x = [[3e30, -4e30, 0], [1e30, 2e30, -2e30]] (the sum of squares "
             "overflows), weighted loss with w = [1, -0.5]", tags=("large", "upstream"), public=True, reason=STABLE,
             args=dict(x=array([[3e30, -4e30, 0], [1e30, 2e30, -2e30]], "float32"),
                       upstream=array([1.0, -0.5], "float32"))),
        case("f32-tiny", "float32 Tensor x = [[3e-30, 4e-30, 0], [-1e-30, 2e-30, 2e-30]] (the sum of squares "
             "underflows to 0), weighted loss with w = [0.5, 2]", tags=("large", "upstream"), public=True,
             reason=STABLE, args=dict(x=array([[3e-30, 4e-30, 0], [-1e-30, 2e-30, 2e-30]], "float32"),
                                      upstream=array([0.5, 2.0], "float32"))),
        case("f32-mixed", "float32 Tensor x = [[3e30, -4e30, 0], [3e-30, 4e-30, 0], [1, 2, 2]] (rows of very "
             "different sizes in one batch), weighted loss with w = [1, 2, -1]", tags=("large", "upstream"),
             public=True, reason=STABLE,
             args=dict(x=array([[3e30, -4e30, 0], [3e-30, 4e-30, 0], [1, 2, 2]], "float32"),
                       upstream=array([1.0, 2.0, -1.0], "float32"))),
        case("f32-zero-row", "float32 Tensor x = [[1, 2, -2, 4], [0, 0, 0, 0], [-3, 0, 4, 0]] (an all-zero row), "
             "weighted loss with w = [1.5, 2, -1]", tags=("zero", "upstream"), public=True, reason=ZERO_ROW,
             args=dict(x=array([[1, 2, -2, 4], [0, 0, 0, 0], [-3, 0, 4, 0]], "float32"),
                       upstream=array([1.5, 2.0, -1.0], "float32"))),
        case("f32-extreme-upstream", "float32 Tensor x = [[3e-30, 4e-30, 0], [3e30, -4e30, 0], [1, 2, 2]], "
             "weighted loss with w = [1e-9, 1e9, 1] (upstream * x alone underflows to 0 on the first row and "
             "overflows to inf on the second)", tags=("large", "upstream", "extreme-upstream"), public=True,
             reason=EXTREME, args=dict(x=array([[3e-30, 4e-30, 0], [3e30, -4e30, 0], [1, 2, 2]], "float32"),
                                       upstream=array([1e-9, 1e9, 1.0], "float32"))),
        case("f64-mixed", "float64 Tensor x = [[1, -2, 2], [0, 0, 0], [3e30, 4e30, 0], [3e-30, 0, -4e-30]], "
             "weighted loss with w = [1, -1, 2, 0.5]", "float64", tags=("zero", "upstream"), public=True,
             reason=FLOAT64,
             args=dict(x=array([[1, -2, 2], [0, 0, 0], [3e30, 4e30, 0], [3e-30, 0, -4e-30]], "float64"),
                       upstream=array([1.0, -1.0, 2.0, 0.5], "float64"))),
        case("f32-random", f"float32 Tensor x of shape {(batch, n)}, weighted loss sum(w * y)", tags=("upstream",),
             reason=VALUE_AND_GRADIENT, args=dict(x=uniform(rng, (batch, n), -5, 5, "float32"), upstream=weights(batch))),
        case("f32-square", f"float32 Tensor x of shape {(square, square)}, weighted loss sum(w * y)",
             tags=("upstream",), reason=VALUE_AND_GRADIENT,
             args=dict(x=uniform(rng, (square, square), -3, 3, "float32"), upstream=weights(square))),
        case("f32-large-random", f"float32 Tensor x of shape {(batch, n)} with entries of magnitude up to 1e30, "
             "weighted loss sum(w * y)", tags=("large", "upstream"), reason=STABLE,
             args=dict(x=signed(rng, (batch, n), 1e30, "float32"), upstream=weights(batch))),
        case("f32-tiny-random", f"float32 Tensor x of shape {(batch, n)} with entries of magnitude down to 1e-30, "
             "weighted loss sum(w * y)", tags=("large", "upstream"), reason=STABLE,
             args=dict(x=signed(rng, (batch, n), 1e-30, "float32"), upstream=weights(batch))),
        case("f32-mixed-random", f"float32 Tensor x of shape {mixed32.shape}: rows of magnitude 1e30, 1e-30 and 1 in "
             "one batch, weighted loss sum(w * y)", tags=("large", "upstream"), reason=STABLE,
             args=dict(x=mixed32, upstream=weights(len(mixed32)))),
        case("f32-extreme-upstream-random", f"float32 Tensor x of shape {extreme_rows.shape}: rows of magnitude 1e30 "
             "weighted by about 1e9 and rows of magnitude 1e-30 weighted by about 1e-9, weighted loss sum(w * y)",
             tags=("large", "upstream", "extreme-upstream"), reason=EXTREME,
             args=dict(x=extreme_rows, upstream=extreme_weights)),
        case("f32-zero-rows", f"float32 Tensor x of shape {(batch, n)} with all-zero rows, weighted loss sum(w * y)",
             tags=("zero", "upstream"), reason=ZERO_ROW, args=dict(x=with_zeros, upstream=weights(batch))),
        case("f64-mixed-random", f"float64 Tensor x of shape {mixed64.shape}: rows of magnitude 1e30, 1e-30 and 1 "
             "and an all-zero row, weighted loss sum(w * y)", "float64", tags=("zero", "upstream"), reason=FLOAT64,
             args=dict(x=mixed64, upstream=weights(len(mixed64), "float64"))),
        advisory("f32-variable", f"a float32 tf.Variable x of shape {(batch, n)} (the contract promises a Tensor)",
                 tags=("variable", "upstream"),
                 advice="your safe_norm does not work on a tf.Variable input; `x = tf.convert_to_tensor(x)` first "
                        "makes it work on both",
                 args=dict(x=uniform(rng, (batch, n), -5, 5, "float32"), variable=True, upstream=weights(batch))),
        advisory("f64-huge", "float64 Tensor x with rows of magnitude 1e200 and 1e-200 (beyond the contract's "
                 "1e30 and 1e-30)", "float64", tags=("upstream",),
                 advice="your safe_norm overflows or underflows for float64 rows of magnitude 1e200 or 1e-200, "
                        "beyond what the contract grades: the sum of squares leaves float64's range there too; "
                        "scaling each row by its largest magnitude works for every finite input",
                 args=dict(x=np.concatenate([signed(rng, (2, n), 1e200, "float64"),
                                             signed(rng, (2, n), 1e-200, "float64")]),
                           upstream=weights(4, "float64"))),
    ]


def probe(function, args):
    value, gradient = weighted_gradient(function, args, lambda fn, x: fn(x), args.get("upstream"))
    return {"value": value, "gradient": gradient}


def plain(case: Case) -> bool:
    """A case of moderate rows with no zero row: where the VJP's shape and upstream mistakes show alone."""
    return not (case.has("large") or case.has("zero"))


def edge(case: Case) -> bool:
    return case.has("large")


def zero_row(case: Case) -> bool:
    return case.has("zero")


def extreme_upstream(case: Case) -> bool:
    return case.has("extreme-upstream")


GUARD = ("in grad_fn divide by a norm that cannot be 0: `safe = tf.where(norm > 0, norm, tf.ones_like(norm))`, "
         "then `upstream[:, None] * (x / safe[:, None])` is exactly 0 on a zero row (or `tf.math.divide_no_nan`)")
SCALE = ("scale each row by its largest magnitude: `m = tf.reduce_max(tf.abs(x), axis=1)`, "
         "`m = tf.where(m > 0, m, tf.ones_like(m))`, `norm = m * tf.sqrt(tf.reduce_sum(tf.square(x / m[:, None]), "
         "axis=1))`")

EXERCISE = Exercise(
    id="safe_norm",
    params=("x",),
    points=2.0,
    make_cases=make_cases,
    probe=probe,
    outputs=(NORM, GRADIENT),
    requires_custom_gradient=True,
    gradient_uses_value=True,
    scope=Scope(dtypes=("float32", "float64")),
    tolerances={"float32": (2e-3, 1e-5), "float64": (1e-5, 1e-10)},  # the contract's line
    mistakes=(
        Mistake("nan-at-zero", "norm_unguarded_gradient",
                "the gradient of an all-zero row is NaN: x / norm is 0 / 0 there (the automatic gradient of "
                "`tf.norm`, or of `tf.sqrt` of a sum of squares, divides the same way)", GUARD, cases=zero_row,
                look=Look(("@grad_fn",), "this divides by the norm, which is 0 for an all-zero row")),
        Mistake("nan-at-zero", "norm_unguarded_scale",
                "the value of an all-zero row is NaN: dividing the row by its largest magnitude is 0 / 0 there",
                "guard the scale before dividing: `m = tf.where(m > 0, m, tf.ones_like(m))`; a zero row then "
                "gives a norm of exactly 0", cases=zero_row, outputs=("value",),
                look=Look((r"reduce_max\(",), "this scale is 0 for an all-zero row, and the row is divided by it")),
        Mistake("unstable-value", "norm_sum_of_squares",
                "the value squares the entries unscaled: the sum of squares overflows to inf for entries near "
                "1e30 and underflows to 0 for entries near 1e-30 (float32 holds 3.4e38 down to 1.2e-38)", SCALE,
                cases=edge, outputs=("value",),
                look=Look((r"square\(|\*\*\s*2", "@value"), "the entries are squared here without being scaled first")),
        Mistake("unstable-value", "norm_batch_scale",
                "the rows are scaled by the largest magnitude of the whole batch, not each by its own: a row much "
                "smaller than the batch's largest still underflows to a norm of 0", SCALE, cases=edge,
                outputs=("value",),
                look=Look((r"reduce_max\((?!.*axis)",),
                          "this scale is one number for the whole batch, not one per row")),
        Mistake("unstable-gradient", "norm_gradient_unscaled",
                "the value is right, but grad_fn recomputes the norm from an unscaled sum of squares: x / inf = 0 "
                "for entries near 1e30 and x / 0 = inf for entries near 1e-30",
                "compute the gradient from the stable norm of the forward pass: `upstream[:, None] * (x / "
                "norm[:, None])` (guarded for zero rows)", cases=edge,
                look=Look(("@grad_fn",), "this gradient uses a norm recomputed from an unscaled sum of squares")),
        Mistake("unstable-gradient", "norm_gradient_l2_normalize",
                "the value is right, but the gradient's direction comes from an unscaled sum of squares (as "
                "`tf.math.l2_normalize` computes it): 0 for entries near 1e30 and about 0 for entries near 1e-30",
                "compute the gradient from the stable norm of the forward pass: `upstream[:, None] * (x / "
                "norm[:, None])` (guarded for zero rows)", cases=edge,
                look=Look((r"l2_normalize\(", "@grad_fn"), "`tf.math.l2_normalize` squares the entries unscaled")),
        Mistake("unstable-gradient", "norm_gradient_multiply_first",
                "grad_fn multiplies upstream by x before dividing by the norm (`upstream[:, None] * x / "
                "norm[:, None]`): right in exact arithmetic, but upstream * x overflows to inf (1e9 * 3e30) or "
                "underflows to 0 (1e-9 * 3e-30) in float32, although the gradient itself is of ordinary size there",
                "divide first: `upstream[:, None] * (x / norm[:, None])`; x / norm is at most 1 in magnitude, so "
                "the product is never larger than upstream", cases=extreme_upstream,
                look=Look((r"upstream\w*(\[[^\]]*\])?\s*\*\s*x\s*/", "@grad_fn"),
                          "upstream times x is formed before the division by the norm")),
        Mistake("ignores-upstream", "norm_ignores_upstream",
                "your grad_fn returns x / norm without the upstream gradient",
                "return `upstream[:, None] * (x / norm[:, None])`: each row's gradient is scaled by that row's "
                "upstream value (upstream has shape (batch,), the result (batch, n))", cases=plain),
        Mistake("wrong-norm-axis", "norm_over_axis0",
                "the norm is taken over axis 0 (down each column), not over each row",
                "reduce over the last axis: `tf.reduce_max(tf.abs(x), axis=1)` and `tf.reduce_sum(..., axis=1)`, "
                "one norm per row, shape (batch,)", cases=plain,
                look=Look((r"axis\s*=\s*0\b",), "this reduces over axis 0, down the columns")),
        Mistake("wrong-norm-axis", "norm_whole_tensor",
                "the norm is taken over the whole tensor (one number), not over each row",
                "reduce over axis 1 only: one norm per row, shape (batch,)", cases=plain,
                look=Look((r"reduce_(?:sum|max)\((?!.*axis)|\bnorm\((?!.*axis)",),
                          "this reduces the whole tensor to one number")),
        Mistake("wrong-value", "norm_upstream_wrong_axis",
                "upstream (shape (batch,)) is multiplied along the wrong axis: `upstream * x` lines it up with the "
                "columns of x, not its rows",
                "give upstream a column axis first: `upstream[:, None] * (x / norm[:, None])`", cases=plain,
                look=Look((r"upstream\w*\s*\*(?!\s*\w+\s*\[)|\*\s*upstream\w*(?!\s*\[)", "@grad_fn"),
                          "`upstream` (shape (batch,)) multiplies x (batch, n) along its last axis here")),
        Mistake("wrong-value", "norm_squared",
                "the function returns the squared norm (no square root)",
                "take the square root of the (scaled) sum of squares; the gradient of the norm is x / norm, not 2 x",
                cases=plain,
                look=Look(("@value",), "this is the squared norm: no square root")),
        Mistake("wrong-value", "norm_max_without_abs",
                "each row is scaled by its largest entry, not its largest magnitude (`tf.reduce_max(x)` without "
                "`tf.abs`): a row of negative numbers gets a negative scale, so a negative norm",
                "scale by `tf.reduce_max(tf.abs(x), axis=1)`", cases=plain, outputs=("value",),
                look=Look((r"reduce_max\((?!\s*(?:tf\.)?(?:math\.)?abs)",),
                          "this scales by the largest entry, not the largest magnitude")),
        Mistake("wrong-value", "norm_epsilon",
                "a small epsilon (1e-12) is added inside the square root, as WGAN-GP code often does: the norm of an "
                "all-zero row is sqrt(1e-12) = 1e-6, not 0",
                "keep the norm exact and guard only the division in grad_fn: "
                "`upstream[:, None] * (x / tf.where(norm > 0, norm, tf.ones_like(norm))[:, None])`",
                cases=zero_row, outputs=("value",),
                look=Look((r"sqrt\(.*\+\s*[\d.]+e-?\d+|\+\s*[\d.]+e-\d+|\beps(?:ilon)?\b",),
                          "an epsilon is added here: the norm of a zero row is no longer 0")),
        Mistake("wrong-value", "norm_threshold_guard",
                "grad_fn treats a row whose norm is below a small threshold (such as 1e-12) as a zero row: rows of "
                "magnitude 1e-30 get a zero gradient",
                "guard only the exact zero: `tf.where(norm > 0, norm, tf.ones_like(norm))`", cases=edge,
                look=Look((r"[<>]=?\s*\(?\s*[\d.]+e-?\d+|thresh|\btol\b",), "this treats tiny rows as zero rows")),
    ),
    hints={
        "unstable-value": "the sum of squares of entries near 1e30 overflows float32 (inf) and near 1e-30 underflows "
                          "it (0); " + SCALE,
        "unstable-gradient": "compute the gradient from the stable norm of the forward pass, dividing before "
                             "multiplying: `upstream[:, None] * (x / norm[:, None])`, guarded for zero rows",
        "nan-at-zero": GUARD,
        "no-custom-gradient": "decorate safe_norm with `@tf.custom_gradient` and return `(norm, grad_fn)`, where "
                              "`grad_fn(upstream)` returns `upstream[:, None] * (x / norm[:, None])` with a zero row "
                              "guarded: the exercise is about writing this vector-Jacobian product yourself",
    },
)
