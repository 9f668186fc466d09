"""The pitfall catalogue: every id the grader may name (the contract's, ../shared/CURRICULUM.md), what each
means and how to fix it, in words for students.

This is the only list of pitfall ids: exercises, the judge, the writers and the tests read it from here.
Exercise descriptions may give a more specific fix (``Exercise.hints``, ``Mistake.fix``); these are the defaults.
"""
from __future__ import annotations

from dataclasses import dataclass

from autograder.model.course import Look


@dataclass(frozen=True)
class Pitfall:
    id: str
    what: str  # what the student did
    fix: str  # how to fix it
    look: Look = Look()  # where the mistake usually sits, and what to look for
    # TensorFlow raises on the very line of the mistake (a second `gradient` on a tape, `tape.watch` of a Keras
    # variable): a public case's traceback points at it
    raised_on_its_line: bool = False


CATALOGUE = {p.id: p for p in (
    Pitfall("tape-outside-context",
            "the inner gradient (or a loss term, or the model's forward pass) is computed outside the `with` block "
            "of the tape that must differentiate it (after the block ends, or before it begins), so that tape "
            "never records it",
            "move the inner `tape.gradient(...)` call (or the term) inside the outer `with tf.GradientTape() as "
            "outer:` block, then call `outer.gradient(...)`",
            look=Look((r"\.(gradient|jacobian|batch_jacobian)\(",),
                 look_for="the `tape.gradient(...)` (or the loss term) that runs after the `with` block of the tape "
                          "that must record it has ended: its indentation puts it outside the block")),
    Pitfall("unwatched-tensor",
            "the gradient is taken with respect to a tf.Tensor that no tape watched: it works for tf.Variable "
            "inputs and gives None for Tensors",
            "call `tape.watch(x)` right after opening each `with tf.GradientTape() as tape:` block",
            look=Look(("@unwatched_tape",), "this tape never calls `watch`: for a tf.Tensor input its "
                 "gradient is None", look_for="each `with tf.GradientTape() as tape:` block: the one whose gradient "
                 "is None has no `tape.watch(x)`")),
    Pitfall("gradient-cut",
            "`.numpy()`, `float()`, an integer cast or `tf.stop_gradient` sits on the path that must be "
            "differentiated, so the gradient stops there",
            "keep the computation in TensorFlow ops on tensors, with no conversion to NumPy or Python numbers "
            "between the input and the output",
            look=Look((r"\.numpy\(\)|\bfloat\(|stop_gradient|\.cast\(",),
                 look_for="a `.numpy()`, `float()`, `tf.cast` to an integer type or `tf.stop_gradient` between the "
                          "input and the value")),
    Pitfall("non-persistent-tape",
            "`gradient` (or `jacobian`) is called twice on a tape that is not persistent; TensorFlow frees a "
            "tape's records after its first use and raises `RuntimeError: A non-persistent GradientTape can only "
            "be used to compute one set of gradients`",
            "create the tape with `tf.GradientTape(persistent=True)`, or use a separate tape for each gradient",
            look=Look((r"\.(gradient|jacobian|batch_jacobian)\(",),
                 look_for="the second `gradient` or `jacobian` call on the same tape"),
            raised_on_its_line=True),
    Pitfall("unstable-gradient",
            "the automatic gradient runs into inf / inf (or 0 * inf) for large inputs: NaN, inf or a silent 0 "
            "where the true gradient is finite",
            "write the gradient in a form that never divides two overflowing numbers (e.g. `tf.sigmoid(x)` "
            "for e^x / (1 + e^x)) and return it from a `@tf.custom_gradient` grad_fn",
            look=Look(("@grad_fn", r"\bexp\(", "@value"), look_for="the gradient's formula: a quotient "
                 "of two numbers that both overflow for large inputs (`e / (1 + e)` with `e = tf.exp(x)`)")),
    Pitfall("unstable-value",
            "the value overflows (inf or NaN) for large inputs where the true value is finite",
            "rewrite the formula so that no intermediate overflows, e.g. log(1 + e^x) = max(x, 0) + "
            "log1p(e^-|x|)",
            look=Look(("@value",), look_for="the formula of the value: an intermediate (`tf.exp(x)`, a sum of "
                 "squares) that overflows or underflows for large or tiny inputs")),
    Pitfall("nan-at-zero",
            "the gradient of a norm (or of a square root) comes out NaN at zero: x / norm is 0 / 0 for an all-zero "
            "row, as in the automatic gradient of `tf.norm` or of `tf.sqrt` of a sum of squares",
            "divide by a norm that cannot be 0 (`safe = tf.where(norm > 0, norm, tf.ones_like(norm))`, or "
            "`tf.math.divide_no_nan`) in a `@tf.custom_gradient` grad_fn, so that a zero row gets a zero gradient",
            look=Look((r"/\s*\w*norm|\bnorm\(|sqrt\(",), look_for="the division by the norm (in grad_fn, "
                 "or the automatic gradient of `tf.norm` / `tf.sqrt`): it is 0 / 0 for an all-zero row")),
    Pitfall("ignores-upstream",
            "the custom `grad_fn` does not multiply by (or pass on) the upstream gradient; it is right only when "
            "the loss is a plain sum",
            "multiply what grad_fn returns by its `upstream` argument (chain rule)",
            look=Look(("@grad_fn",), "grad_fn returns this without multiplying it by the upstream gradient",
                 look_for="what your grad_fn returns: it must multiply by (or pass on) its `upstream` argument")),
    Pitfall("no-custom-gradient",
            "the exercise is solved without `@tf.custom_gradient`: even right numbers would miss the learning goal "
            "(writing the gradient yourself)",
            "decorate the function with `@tf.custom_gradient` and return `(value, grad_fn)`",
            look=Look(("@def",), "this function has no `@tf.custom_gradient` (and calls none)",
                 look_for="the `def` line of the function: `@tf.custom_gradient` goes right above it")),
    Pitfall("missing-stop-gradient",
            "the gradient flows into a target that must stay constant",
            "wrap the target in `tf.stop_gradient(...)`",
            look=Look((r"reduce_max\(|\btarget\w*\s*=",), "this target is not wrapped in `tf.stop_gradient`",
                 look_for="the line that computes the target from `next_q`")),
    Pitfall("clips-value",
            "the forward value is clipped or changed, where only the gradient should change",
            "return the input unchanged (`tf.identity(x)`) and clip inside grad_fn",
            look=Look(("@value",), "this changes the forward value", look_for="the value your function returns: "
                 "it must be `x` itself (`tf.identity(x)`)")),
    Pitfall("no-gradient",
            "an op with no gradient (plain `tf.round`) is used where a straight-through gradient is asked for, or a "
            "solver's result (a solver outside TensorFlow, such as `tf.numpy_function`) is returned with no custom "
            "gradient where an implicit one is asked for: the gradient is None",
            "give the result a gradient: for rounding, pass the upstream gradient through (`x + "
            "tf.stop_gradient(tf.round(x) - x)`); for a solver, return its result from a `@tf.custom_gradient` "
            "function whose grad_fn computes the implicit gradient",
            look=Look((r"round\(|\.cast\(",), look_for="the `tf.round` (or integer cast) on the path from `x`: "
                 "it has no gradient by itself")),
    Pitfall("not-recomputed",
            "f is returned without `tf.recompute_grad`, so it does not run again on the backward pass and its "
            "intermediates stay in memory",
            "return `tf.recompute_grad(f)`",
            look=Look(("@return",), "this returns f without `tf.recompute_grad`",
                 look_for="what your function returns: it must be `tf.recompute_grad(f)`")),
    Pitfall("swapped-interpolation",
            "the interpolates put alpha on the fake side (`real + alpha * (fake - real)`, as Keras's WGAN-GP "
            "example writes it), where the exercise puts it on real: the same for alpha = 0.5, other points "
            "for every other alpha",
            "interpolate as the exercise states: `interpolates = alpha * real + (1 - alpha) * fake`",
            look=Look((r"alpha\s*\*\s*\(?\s*\w+\s*-|\+\s*alpha\b",), "alpha multiplies the "
                 "difference here, so it weighs the fake side",
                 look_for="the line that computes the interpolates from `alpha`, `real` and `fake`")),
    Pitfall("wrong-norm-axis",
            "the gradient norm is taken over the wrong axes (e.g. the whole batch, only axis 1 or only the last "
            "axis of image inputs): it must be one norm per example over all its other axes",
            "take one norm per example over every axis but the first: "
            "`tf.sqrt(tf.reduce_sum(tf.square(g), axis=list(range(1, g.shape.rank))))`",
            look=Look((r"norm\(|reduce_(sum|max)\(",), look_for="the reductions of the norm: their "
                 "`axis` must cover every axis but the first")),
    Pitfall("full-jacobian",
            "`tape.jacobian` is used where per-example Jacobians are asked for: the result has shape "
            "(batch, m, batch, n), mostly zeros",
            "use `tape.batch_jacobian(y, x)`, which returns (batch, m, n)",
            look=Look((r"\.jacobian\(",), "`tape.jacobian` differentiates every output with respect to "
                 "every example", look_for="the `tape.jacobian(...)` call")),
    Pitfall("transposed",
            "the result is the transpose of the asked matrix",
            "J[i, j] is dy_i / dx_j: rows follow the outputs, columns the inputs; `tape.jacobian(y, x)` already "
            "has this orientation",
            look=Look((r"transpose\(|moveaxis\(|swapaxes\(|rollaxis\(|einsum\(|\.T\b|perm\s*=",
                       r"axis\s*=\s*(1|-1)\b"),
                 look_for="a `tf.transpose` or the `axis` of a `tf.stack` that puts inputs before outputs")),
    Pitfall("summed-gradient",
            "`tape.gradient` is used on a vector output, which returns the gradient of sum(y): the column sums "
            "of the Jacobian, not the Jacobian",
            "use `tape.jacobian(y, x)` for the full (m, n) matrix",
            look=Look((r"\.gradient\(",), "`gradient` of a vector differentiates its sum",
                 look_for="the `tape.gradient(...)` of a vector where `tape.jacobian(...)` is due")),
    Pitfall("pfor-unsupported",
            "the pfor vectorizer is relied on for an op it cannot convert",
            "call `tape.jacobian(y, x, experimental_use_pfor=False)` on a tape created with `persistent=True`",
            look=Look((r"\.jacobian\(",), "this `tape.jacobian` relies on the pfor vectorizer",
                 look_for="the `tape.jacobian(...)` call: its fallback must be `experimental_use_pfor=False`, for "
                          "any error the vectorizer raises"),
            raised_on_its_line=True),
    Pitfall("materialized-hessian",
            "the full Hessian is formed where only a Hessian-vector product is asked for: right for small n, out "
            "of time or memory at n = 100,000",
            "differentiate the scalar `tf.reduce_sum(g * v)` (double backprop) or use forward-over-backward with "
            "`tf.autodiff.ForwardAccumulator`; never build an (n, n) matrix",
            look=Look((r"\.jacobian\(|\bhessians?\(|\.hessian\(|tf\.eye\(",),
                 "this builds the full (n, n) Hessian", look_for="a `tape.jacobian`, `tf.hessians` or a loop over "
                 "unit vectors that builds the (n, n) matrix")),
    Pitfall("materialized-jacobian",
            "the full Jacobian is formed where only a Jacobian-vector product is asked for: right for small n, out "
            "of time or memory at n = 100,000",
            "use `tf.autodiff.ForwardAccumulator(primals=x, tangents=v)` and `acc.jvp(y)`; never build an "
            "(m, n) matrix",
            look=Look((r"\.jacobian\(|\.batch_jacobian\(", r"tf\.eye\("),
                 "this builds the full (m, n) Jacobian", look_for="a `tape.jacobian` or a loop over unit vectors "
                 "that builds the (m, n) matrix")),
    Pitfall("per-example-loop",
            "the per-example gradients are computed by calling the model once per example (a Python loop, a "
            "comprehension, `tf.map_fn`): right numbers, but batch-size times the model calls, where the exercise "
            "asks for one run on the whole batch and one Jacobian",
            "run the model once on the whole batch under one tape, `losses = loss_fn(y, model(x))`, then "
            "`tape.jacobian(losses, model.trainable_variables)`; or map a per-example gradient with "
            "`tf.vectorized_map`",
            look=Look((r"\bfor\b|map_fn\(",), "the model runs once per example here",
                 look_for="the loop (or `tf.map_fn`) that calls the model on one example at a time")),
    Pitfall("unrolled-solver",
            "the gradient is taken through the solver's iterations (the tape records the loop) where the implicit "
            "gradient is asked for: before the iterations converge that is the gradient of an unconverged iterate, "
            "not the implicit one, and the tape keeps every iteration in memory",
            "run the iterations inside a `@tf.custom_gradient` function (its forward pass is not recorded) and "
            "return the implicit function theorem's gradient at the returned solution from its grad_fn"),
    Pitfall("one-step-gradient",
            "the inverse is left out of the implicit function theorem: a fixed point's gradient through its last "
            "step only ((df/dθ)ᵀ g), or an argmin's with w̄ (or H w̄) where H⁻¹ w̄ is due; right only where df/dx is "
            "0 or H is the identity",
            "solve the adjoint system first (iterate u = g + (df/dx)ᵀ u; conjugate gradients on H v = w̄), then "
            "apply the vector-Jacobian product with respect to theta to its solution"),
    Pitfall("adjoint-not-transposed",
            "the backward (adjoint) system is solved with A or df/dx where its transpose is due: right for a "
            "symmetric A or df/dx, wrong otherwise",
            "transpose: solve with `tf.transpose(A)`; take (df/dx)ᵀ u as a vector-Jacobian product, "
            "`tape.gradient(fx, x, output_gradients=u)`, not as a Jacobian-vector product"),
    Pitfall("sign-error",
            "the minus sign of the implicit gradient is dropped: the numbers are exactly the negative of the "
            "gradient",
            "differentiate F(x(θ), θ) = 0 again: dx/dθ = -(∂F/∂x)⁻¹ ∂F/∂θ; for a root and an argmin the "
            "gradient has that minus, for a fixed point x = f(x, θ) it is inside (I - df/dx) and cancels"),
    Pitfall("watched-keras-variable",
            "`tape.watch` is given a Keras 3 model's variables: they are not tf.Variables, so `watch` raises "
            "ValueError (\"Passed in object ... not tf.Tensor or tf.Variable\"), and they need no watching: a tape "
            "records the trainable variables a model reads by itself",
            "delete the `tape.watch(...)` of the model's variables; watch only Tensors (such as `x`), and "
            "differentiate with respect to `model.trainable_variables` as they are",
            look=Look((r"\.watch\(",), "this watches the model's variables",
                      look_for="the `tape.watch(...)` that is given `model.trainable_variables` (or a layer's "
                               "variables)"),
            raised_on_its_line=True),
    Pitfall("not-implemented",
            "the function still raises NotImplementedError",
            "replace `raise NotImplementedError()` with your implementation",
            look=Look(("@def",), look_for="`raise NotImplementedError()` in the function")),
    Pitfall("wrong-value",
            "the numbers differ from the reference",
            "compare your function with the exercise statement on the failing case below; run the public checks "
            "in your notebook"),
)}


PITFALL_IDS = tuple(CATALOGUE)


def describe(pitfall_id: str) -> Pitfall:
    return CATALOGUE[pitfall_id]
