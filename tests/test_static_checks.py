"""Static checks: real wrong submissions are located, correct ones in many styles stay silent.

No TensorFlow here: the module only parses source, so these tests run in well under a second.
"""
from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

from autograder.load.cells import Cell, SubmissionSource, read_submission
from autograder.judge import static
from autograder.judge.static import Finding, FunctionReport, StaticCheckCrash, analyze
from autograder.judge.where import where_of

ROOT = Path(__file__).resolve().parents[1]


def code(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def py_source(text: str) -> SubmissionSource:
    """A .py submission built in memory (line numbers are those of `code(text)`)."""
    body = code(text)
    return SubmissionSource(Path("submission.py"), "python", cells=[Cell(index=1, source=body, code=body)])


def write_notebook(path: Path, cells: list[tuple[str, str]]) -> Path:
    """cells: (kind, text) with kind 'code' or 'markdown'; returns the path."""
    notebook = nbformat.v4.new_notebook()
    for kind, text in cells:
        maker = nbformat.v4.new_code_cell if kind == "code" else nbformat.v4.new_markdown_cell
        notebook.cells.append(maker(code(text)))
    nbformat.write(notebook, str(path))
    return path


def pitfalls(report: FunctionReport, pitfall: str) -> list[Finding]:
    return [f for f in report.findings if f.pitfall == pitfall]


def lines_of(report: FunctionReport, pitfall: str) -> list[int]:
    return [f.line for f in pitfalls(report, pitfall)]


TAPE_PITFALLS = ("tape-outside-context", "non-persistent-tape")
# What judge/static/norms.py reports about a tf.norm (tests/test_static_norms.py reads it); these tests are about
# the other checks, and a gradient penalty's tf.norm is such evidence too.
NORM_PITFALLS = ("nan-at-zero", "unstable-value", "unstable-gradient")


def without_norm_evidence(report: FunctionReport) -> list[Finding]:
    return [f for f in report.findings if f.pitfall not in NORM_PITFALLS]


def assert_no_tape_findings(report: FunctionReport) -> None:
    assert report.defined
    bad = [f for f in report.findings if f.pitfall in TAPE_PITFALLS]
    assert bad == [], bad


# ---------------------------------------------------------------------------
# tape-outside-context: flagged


OUTSIDE_FLAGGED = {
    "derivatives: inner gradient after the outer block": ("derivatives", """
        import tensorflow as tf

        def derivatives(f, x):
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
            dy_dx = inner.gradient(y, x)
            d2y_dx2 = outer.gradient(dy_dx, x)
            return dy_dx, d2y_dx2
        """, [9]),
    "hessian: inner gradient after the block, jacobian of it": ("hessian", """
        import tensorflow as tf

        def hessian(f, x):
            with tf.GradientTape() as t2:
                t2.watch(x)
                with tf.GradientTape() as t1:
                    t1.watch(x)
                    y = f(x)
            g = t1.gradient(y, x)
            return t2.jacobian(g, x)
        """, [9]),
    "hvp: g and the dot product after the outer block": ("hessian_vector_product", """
        import tensorflow as tf

        def hessian_vector_product(f, x, v):
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
            g = inner.gradient(y, x)
            gv = tf.reduce_sum(g * v)
            return outer.gradient(gv, x)
        """, [9]),
    "hessian: inner gradient inline in the outer call, after the block": ("hessian", """
        import tensorflow as tf

        def hessian(f, x):
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
            return outer.jacobian(inner.gradient(y, x), x)
        """, [9]),
    "newton: tapes not nested at all": ("newton_step", """
        import tensorflow as tf

        def newton_step(f, x):
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = f(x)
            g = inner.gradient(y, x)
            with tf.GradientTape() as outer:
                outer.watch(x)
                g2 = g * 1.0
            H = outer.jacobian(g2, x)
            return x - tf.linalg.solve(H, g[:, None])[:, 0]
        """, [7]),
    "critic_gradients: penalty computed before the loss tape": ("critic_gradients", """
        import tensorflow as tf

        def gradient_penalty(critic, real, fake, alpha):
            interpolates = alpha * real + (1 - alpha) * fake
            with tf.GradientTape() as tape:
                tape.watch(interpolates)
                out = critic(interpolates)
            g = tape.gradient(out, interpolates)
            norms = tf.norm(tf.reshape(g, (tf.shape(g)[0], -1)), axis=1)
            return tf.reduce_mean((norms - 1.0) ** 2)

        def critic_gradients(critic, real, fake, alpha, gp_weight):
            gp = gradient_penalty(critic, real, fake, alpha)
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(critic(fake)) - tf.reduce_mean(critic(real))
                loss = loss + gp_weight * gp
            grads = tape.gradient(loss, critic.trainable_variables)
            return loss, grads
        """, [13]),
    "critic_gradients: penalty added after the block": ("critic_gradients", """
        import tensorflow as tf
        from helpers import nothing

        def gradient_penalty(critic, real, fake, alpha):
            interpolates = alpha * real + (1 - alpha) * fake
            with tf.GradientTape() as tape:
                tape.watch(interpolates)
                out = critic(interpolates)
            g = tape.gradient(out, interpolates)
            return tf.reduce_mean((tf.norm(g, axis=1) - 1.0) ** 2)

        def critic_gradients(critic, real, fake, alpha, gp_weight):
            with tf.GradientTape() as tape:
                w_loss = tf.reduce_mean(critic(fake)) - tf.reduce_mean(critic(real))
            loss = w_loss + gp_weight * gradient_penalty(critic, real, fake, alpha)
            return loss, tape.gradient(loss, critic.trainable_variables)
        """, [15]),
    "critic_gradients: penalty after the block, augmented assignment": ("critic_gradients", """
        import tensorflow as tf

        def gradient_penalty(critic, real, fake, alpha):
            x = alpha * real + (1 - alpha) * fake
            with tf.GradientTape() as t:
                t.watch(x)
                out = critic(x)
            return tf.reduce_mean((tf.norm(t.gradient(out, x), axis=1) - 1.0) ** 2)

        def critic_gradients(critic, real, fake, alpha, gp_weight):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(critic(fake)) - tf.reduce_mean(critic(real))
            penalty = gradient_penalty(critic, real, fake, alpha)
            loss += gp_weight * penalty
            grads = tape.gradient(loss, critic.trainable_variables)
            return loss, grads
        """, [13]),
    "gradient_penalty: the sum is taken after the block": ("gradient_penalty", """
        import tensorflow as tf

        def gradient_penalty(critic, real, fake, alpha):
            interpolates = alpha * real + (1 - alpha) * fake
            with tf.GradientTape() as tape:
                tape.watch(interpolates)
                scores = critic(interpolates)
            g = tape.gradient(tf.reduce_sum(scores), interpolates)
            norms = tf.sqrt(tf.reduce_sum(tf.square(g), axis=[1]))
            return tf.reduce_mean((norms - 1.0) ** 2)
        """, [8]),
    "derivatives: the loss term computed after the block": ("derivatives", """
        import tensorflow as tf

        def derivatives(f, x):
            with tf.GradientTape() as t2:
                t2.watch(x)
                with tf.GradientTape() as t1:
                    t1.watch(x)
                    y = f(x)
                dy = t1.gradient(y, x)
            dy_scaled = dy * 1.0
            return dy, t2.gradient(dy_scaled, x)
        """, [10]),
    "bare GradientTape import, several items in one with": ("hessian", """
        from tensorflow import GradientTape

        def hessian(f, x):
            with GradientTape() as outer, GradientTape() as inner:
                outer.watch(x)
                inner.watch(x)
                y = f(x)
            grad = inner.gradient(y, x)
            return outer.jacobian(grad, x)
        """, [8]),
    "the tape name reused for a second tape": ("hessian_vector_product", """
        import tensorflow as tf

        def hessian_vector_product(f, x, v):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            g = tape.gradient(y, x)
            with tf.GradientTape() as tape:
                tape.watch(x)
                gv = tf.reduce_sum(g * v)
            return tape.gradient(gv, x)
        """, [7]),
    "nested helper computing the gradient called before the block": ("hessian", """
        import tensorflow as tf

        def hessian(f, x):
            def grad(z):
                with tf.GradientTape() as t:
                    t.watch(z)
                    y = f(z)
                return t.gradient(y, z)

            g = grad(x)
            with tf.GradientTape() as outer:
                outer.watch(x)
                h = g + 0.0
            return outer.jacobian(h, x)
        """, [10]),
}


@pytest.mark.parametrize("name", list(OUTSIDE_FLAGGED))
def test_tape_outside_context_is_flagged(name):
    function, text, lines = OUTSIDE_FLAGGED[name]
    report = analyze(py_source(text), function)
    assert report.defined
    assert lines_of(report, "tape-outside-context") == lines
    finding = pitfalls(report, "tape-outside-context")[0]
    assert finding.cell is None
    assert finding.code == code(text).splitlines()[finding.line - 1].strip()


def test_outside_context_message_names_the_call_and_the_block():
    function, text, _ = OUTSIDE_FLAGGED["derivatives: inner gradient after the outer block"]
    (finding,) = pitfalls(analyze(py_source(text), function), "tape-outside-context")
    assert finding.message.startswith("`inner.gradient(...)` is called after the "
                                      "`with tf.GradientTape() as outer:` block ends (lines 4-8)")
    assert "`outer.gradient(...)` on line 10" in finding.message
    assert finding.code == "dy_dx = inner.gradient(y, x)"


def test_message_tells_apart_two_tapes_with_one_name():
    function, text, _ = OUTSIDE_FLAGGED["the tape name reused for a second tape"]
    (finding,) = pitfalls(analyze(py_source(text), function), "tape-outside-context")
    assert finding.message.startswith("`tape.gradient(...)` on the other tape named `tape` (line 4) is called "
                                      "before the `with tf.GradientTape() as tape:` block begins (lines 8-10)")


def test_penalty_message_says_before_and_names_the_function():
    function, text, _ = OUTSIDE_FLAGGED["critic_gradients: penalty computed before the loss tape"]
    (finding,) = pitfalls(analyze(py_source(text), function), "tape-outside-context")
    assert "`gradient_penalty(...)` computes a gradient before the" in finding.message
    assert "(lines 14-16)" in finding.message
    assert "misses that term" in finding.message


# ---------------------------------------------------------------------------
# tape-outside-context and non-persistent-tape: correct code stays silent


CORRECT = {
    "derivatives: nested tapes, inner gradient inside the outer block": ("derivatives", """
        import tensorflow as tf

        def derivatives(f, x):
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                dy_dx = inner.gradient(y, x)
            d2y_dx2 = outer.gradient(dy_dx, x)
            return dy_dx, d2y_dx2
        """),
    "derivatives: inner gradient inside its own block": ("derivatives", """
        import tensorflow as tf

        def derivatives(f, x):
            with tf.GradientTape() as t2:
                t2.watch(x)
                with tf.GradientTape() as t1:
                    t1.watch(x)
                    y = f(x)
                    dy = t1.gradient(y, x)
            return dy, t2.gradient(dy, x)
        """),
    "derivatives: one persistent tape used twice": ("derivatives", """
        import tensorflow as tf

        def derivatives(f, x):
            x = tf.convert_to_tensor(x) if not isinstance(x, tf.Variable) else x
            with tf.GradientTape(persistent=True) as tape:
                tape.watch(x)
                y = f(x)
                dy_dx = tape.gradient(y, x)
            d2y_dx2 = tape.gradient(dy_dx, x)
            del tape
            return dy_dx, d2y_dx2
        """),
    "hessian: outer.jacobian after the block on a g computed inside": ("hessian", """
        import tensorflow as tf

        def hessian(f, x):
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                g = inner.gradient(y, x)
            return outer.jacobian(g, x)
        """),
    "newton: hessian after the block, solve with g afterwards": ("newton_step", """
        import tensorflow as tf

        def newton_step(f, x):
            with tf.GradientTape() as t2:
                t2.watch(x)
                with tf.GradientTape() as t1:
                    t1.watch(x)
                    y = f(x)
                g = t1.gradient(y, x)
            H = t2.jacobian(g, x)
            step = tf.linalg.solve(H, tf.reshape(g, (-1, 1)))
            return x - tf.reshape(step, (-1,))
        """),
    "hvp: ForwardAccumulator over a tape": ("hessian_vector_product", """
        import tensorflow as tf

        def hessian_vector_product(f, x, v):
            with tf.autodiff.ForwardAccumulator(primals=x, tangents=v) as acc:
                with tf.GradientTape() as tape:
                    tape.watch(x)
                    y = f(x)
                g = tape.gradient(y, x)
            return acc.jvp(g)
        """),
    "hvp: double backprop with reduce_sum inside the outer block": ("hessian_vector_product", """
        import tensorflow as tf

        def hessian_vector_product(f, x, v):
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                g = inner.gradient(y, x)
                gv = tf.reduce_sum(g * tf.stop_gradient(v))
            return outer.gradient(gv, x)
        """),
    "jvp: double-vjp with a persistent tape": ("jvp", """
        import tensorflow as tf

        def jvp(f, x, v):
            with tf.GradientTape(persistent=True) as tape:
                tape.watch(x)
                y = f(x)
                u = tf.zeros_like(y)
                tape.watch(u)
                g = tape.gradient(y, x, output_gradients=u)
            return tape.gradient(g, u, output_gradients=v)
        """),
    "jvp: double-vjp, dummy made between the tapes": ("jvp", """
        import tensorflow as tf

        def jvp(f, x, v):
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = f(x)
            u = tf.ones_like(y)
            with tf.GradientTape() as t2:
                t2.watch(u)
                g = t1.gradient(y, x, output_gradients=u)
            return t2.gradient(g, u, output_gradients=v)
        """),
    "jvp: ForwardAccumulator alone": ("jvp", """
        import tensorflow as tf

        def jvp(f, x, v):
            with tf.autodiff.ForwardAccumulator(x, v) as acc:
                y = f(x)
            return acc.jvp(y)
        """),
    "gradient_penalty: interpolates before the tape, then watched": ("gradient_penalty", """
        import tensorflow as tf

        def gradient_penalty(critic, real, fake, alpha):
            interpolates = alpha * real + (1.0 - alpha) * fake
            with tf.GradientTape() as tape:
                tape.watch(interpolates)
                out = critic(interpolates)
                total = tf.reduce_sum(out)
            g = tape.gradient(total, interpolates)
            axes = list(range(1, len(g.shape)))
            norms = tf.sqrt(tf.reduce_sum(tf.square(g), axis=axes))
            return tf.reduce_mean(tf.square(norms - 1.0))
        """),
    "critic_gradients: penalty computed inside the loss tape": ("critic_gradients", """
        import tensorflow as tf

        def gradient_penalty(critic, real, fake, alpha):
            interpolates = alpha * real + (1.0 - alpha) * fake
            with tf.GradientTape() as tape:
                tape.watch(interpolates)
                out = critic(interpolates)
            g = tape.gradient(out, interpolates)
            return tf.reduce_mean((tf.norm(tf.reshape(g, [tf.shape(g)[0], -1]), axis=1) - 1.0) ** 2)

        def critic_gradients(critic, real, fake, alpha, gp_weight):
            with tf.GradientTape() as tape:
                fake_score = tf.reduce_mean(critic(fake))
                real_score = tf.reduce_mean(critic(real))
                gp = gradient_penalty(critic, real, fake, alpha)
                loss = fake_score - real_score + gp_weight * gp
            grads = tape.gradient(loss, critic.trainable_variables)
            return loss, grads
        """),
    "critic_gradients: one expression inside the tape, list of losses": ("critic_gradients", """
        import tensorflow as tf

        def gradient_penalty(critic, real, fake, alpha):
            x = alpha * real + (1 - alpha) * fake
            with tf.GradientTape() as t:
                t.watch(x)
                out = critic(x)
            return tf.reduce_mean((tf.norm(t.gradient(out, x), axis=1) - 1.0) ** 2)

        def critic_gradients(critic, real, fake, alpha, gp_weight):
            with tf.GradientTape() as tape:
                loss = (tf.reduce_mean(critic(fake)) - tf.reduce_mean(critic(real))
                        + gp_weight * gradient_penalty(critic, real, fake, alpha))
            return loss, tape.gradient(loss, critic.trainable_variables)
        """),
    "gradient computed after the outer block but only returned": ("derivatives", """
        import tensorflow as tf

        def derivatives(f, x):
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape(persistent=True) as inner:
                    inner.watch(x)
                    y = f(x)
                dy_inside = inner.gradient(y, x)
            d2y = outer.gradient(dy_inside, x)
            dy = inner.gradient(y, x)
            return dy, d2y
        """),
    "jacobian rows from a persistent tape, unstacked inside the block": ("jacobian", """
        import tensorflow as tf

        def jacobian(f, x):
            with tf.GradientTape(persistent=True) as tape:
                tape.watch(x)
                y = f(x)
                ys = tf.unstack(y)
            rows = [tape.gradient(yi, x) for yi in ys]
            return tf.stack(rows)
        """),
    "a new tape in every loop iteration": ("jacobian", """
        import tensorflow as tf

        def jacobian(f, x):
            rows = []
            for i in range(int(f(x).shape[0])):
                with tf.GradientTape() as tape:
                    tape.watch(x)
                    yi = f(x)[i]
                rows.append(tape.gradient(yi, x))
            return tf.stack(rows)
        """),
    "robust_jacobian: persistent tape with the pfor fallback": ("robust_jacobian", """
        import tensorflow as tf

        def robust_jacobian(f, x):
            with tf.GradientTape(persistent=True) as tape:
                tape.watch(x)
                y = f(x)
            try:
                return tape.jacobian(y, x)
            except (ValueError, TypeError):
                return tape.jacobian(y, x, experimental_use_pfor=False)
        """),
    "batch_jacobian, tape assigned then entered": ("batch_jacobian", """
        import tensorflow as tf

        def batch_jacobian(f, x):
            tape = tf.GradientTape()
            with tape:
                tape.watch(x)
                y = f(x)
            return tape.batch_jacobian(y, x)
        """),
    "one call in each branch of an if": ("jacobian", """
        import tensorflow as tf

        def jacobian(f, x, vectorize=True):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            if vectorize:
                J = tape.jacobian(y, x)
            else:
                J = tape.jacobian(y, x, parallel_iterations=1)
            return J
        """),
    "early return, then another call": ("jacobian", """
        import tensorflow as tf

        def jacobian(f, x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            if len(y.shape) == 0:
                return tape.gradient(y, x)[None, :]
            return tape.jacobian(y, x)
        """),
    "loop that breaks after its only call": ("jacobian", """
        import tensorflow as tf

        def jacobian(f, x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            for attempt in range(3):
                J = tape.jacobian(y, x)
                break
            return J
        """),
    "persistent flag not a literal": ("jacobian", """
        import tensorflow as tf

        PERSIST = True

        def jacobian(f, x):
            with tf.GradientTape(persistent=PERSIST) as tape:
                tape.watch(x)
                y = f(x)
            return tape.jacobian(y, x), tape.jacobian(y, x)
        """),
    "hessian with a nested helper called inside the outer block": ("hessian", """
        import tensorflow as tf

        def hessian(f, x):
            def grad(z):
                with tf.GradientTape() as t:
                    t.watch(z)
                    y = f(z)
                return t.gradient(y, z)

            with tf.GradientTape() as outer:
                outer.watch(x)
                g = grad(x)
            return outer.jacobian(g, x)
        """),
    "gradients kept in a dict": ("derivatives", """
        import tensorflow as tf

        def derivatives(f, x):
            results = {}
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                results["first"] = inner.gradient(y, x)
            results["second"] = outer.gradient(results["first"], x)
            return results["first"], results["second"]
        """),
    "tape.watch on a tuple of sources, Python tuple indexing after the block": ("jacobian", """
        import tensorflow as tf

        def jacobian(f, x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                outputs = (f(x), None)
            y = outputs[0]
            return tape.jacobian(y, x)
        """),
    "several tapes in one with, inner gradient inside it": ("hessian", """
        import tensorflow as tf

        def hessian(f, x):
            with tf.GradientTape() as outer, tf.GradientTape() as inner:
                outer.watch(x)
                inner.watch(x)
                y = f(x)
                g = inner.gradient(y, x)
            return outer.jacobian(g, x)
        """),
    "hessian rows from a persistent outer tape": ("hessian", """
        import tensorflow as tf

        def hessian(f, x):
            n = x.shape[0]
            with tf.GradientTape(persistent=True) as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                g = inner.gradient(y, x)
                rows = [g[i] for i in range(n)]
            return tf.stack([outer.gradient(r, x) for r in rows])
        """),
    "critic_gradients: loss from a closure called inside the tape": ("critic_gradients", """
        import tensorflow as tf

        def gradient_penalty(critic, real, fake, alpha):
            x = alpha * real + (1 - alpha) * fake
            with tf.GradientTape() as t:
                t.watch(x)
                out = critic(x)
            return tf.reduce_mean((tf.norm(t.gradient(out, x), axis=1) - 1.0) ** 2)

        def critic_gradients(critic, real, fake, alpha, gp_weight):
            def compute_loss():
                wasserstein = tf.reduce_mean(critic(fake)) - tf.reduce_mean(critic(real))
                return wasserstein + gp_weight * gradient_penalty(critic, real, fake, alpha)

            with tf.GradientTape() as tape:
                loss = compute_loss()
            return loss, tape.gradient(loss, critic.trainable_variables)
        """),
    "jvp: double-vjp with a Variable as the dummy": ("jvp", """
        import tensorflow as tf

        def jvp(f, x, v):
            u = tf.Variable(tf.zeros(f(x).shape))
            with tf.GradientTape() as outer:
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                vjp = inner.gradient(y, x, output_gradients=u)
            return outer.gradient(vjp, u, output_gradients=v)
        """),
}


@pytest.mark.parametrize("name", list(CORRECT))
def test_correct_code_has_no_tape_findings(name):
    function, text = CORRECT[name]
    assert_no_tape_findings(analyze(py_source(text), function))


# ---------------------------------------------------------------------------
# non-persistent-tape


PERSISTENT_FLAGGED = {
    "derivatives: one plain tape asked twice": ("derivatives", """
        import tensorflow as tf

        def derivatives(f, x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
                dy = tape.gradient(y, x)
            d2y = tape.gradient(dy, x)
            return dy, d2y
        """, [8]),
    "jacobian rows in a for loop": ("jacobian", """
        import tensorflow as tf

        def jacobian(f, x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            rows = []
            for i in range(y.shape[0]):
                rows.append(tape.gradient(y[i], x))
            return tf.stack(rows)
        """, [9]),
    "jacobian rows in a comprehension": ("jacobian", """
        import tensorflow as tf

        def jacobian(f, x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                ys = tf.unstack(f(x))
            return tf.stack([tape.gradient(yi, x) for yi in ys])
        """, [7]),
    "two calls in one return": ("jacobian", """
        import tensorflow as tf

        def jacobian(f, x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            return tape.jacobian(y, x), tape.gradient(y, x)
        """, [7]),
    "jacobian without pfor on a plain tape": ("robust_jacobian", """
        import tensorflow as tf

        def robust_jacobian(f, x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            return tape.jacobian(y, x, experimental_use_pfor=False)
        """, [7]),
    "try/except fallback on a plain tape": ("robust_jacobian", """
        import tensorflow as tf

        def robust_jacobian(f, x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            try:
                J = tape.jacobian(y, x)
            except ValueError:
                J = tape.jacobian(y, x, experimental_use_pfor=False)
            return J
        """, [10]),
    "tape assigned, entered, asked twice after an if": ("batch_jacobian", """
        import tensorflow as tf

        def batch_jacobian(f, x):
            tape = tf.GradientTape(persistent=False)
            with tape:
                tape.watch(x)
                y = f(x)
            if y.shape.rank == 2:
                J = tape.batch_jacobian(y, x)
            check = tape.gradient(y, x)
            return J
        """, [10]),
    "while loop": ("jacobian", """
        import tensorflow as tf

        def jacobian(f, x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            rows, i = [], 0
            while i < y.shape[0]:
                rows.append(tape.gradient(y[i], x))
                i += 1
            return tf.stack(rows)
        """, [9]),
}


@pytest.mark.parametrize("name", list(PERSISTENT_FLAGGED))
def test_non_persistent_tape_is_flagged(name):
    function, text, lines = PERSISTENT_FLAGGED[name]
    report = analyze(py_source(text), function)
    assert lines_of(report, "non-persistent-tape") == lines


def test_non_persistent_messages():
    function, text, _ = PERSISTENT_FLAGGED["derivatives: one plain tape asked twice"]
    (finding,) = pitfalls(analyze(py_source(text), function), "non-persistent-tape")
    assert "`tape.gradient(...)` on line 8 is the second call on `tape` (the first is on line 7)" in finding.message
    assert "persistent=True" in finding.message
    assert finding.code == "d2y = tape.gradient(dy, x)"

    function, text, _ = PERSISTENT_FLAGGED["jacobian rows in a for loop"]
    (finding,) = pitfalls(analyze(py_source(text), function), "non-persistent-tape")
    assert "runs more than once (in a loop)" in finding.message

    function, text, _ = PERSISTENT_FLAGGED["jacobian without pfor on a plain tape"]
    (finding,) = pitfalls(analyze(py_source(text), function), "non-persistent-tape")
    assert "experimental_use_pfor=False" in finding.message and "RuntimeError" in finding.message


# ---------------------------------------------------------------------------
# gradient-cut evidence


def test_numpy_call_is_reported_with_its_line():
    report = analyze(py_source("""
        import tensorflow as tf

        def derivatives(f, x):
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x).numpy()
                dy = inner.gradient(y, x)
            return dy, outer.gradient(dy, x)
        """), "derivatives")
    (finding,) = pitfalls(report, "gradient-cut")
    assert finding.line == 8
    assert finding.message == ("`f(x).numpy()` on line 8 turns the tensor into a NumPy array: "
                               "the tape cannot see through it")
    assert finding.code == "y = f(x).numpy()"
    assert_no_tape_findings(report)


def test_python_numbers_and_integer_casts():
    report = analyze(py_source("""
        import tensorflow as tf

        def td_loss(q, reward, next_q, gamma):
            n = int(q.shape[0])
            scale = float(1.0)
            best = float(tf.reduce_max(next_q))
            idx = tf.cast(q, tf.int32)
            also = tf.cast(q, dtype="int64")
            fine = tf.cast(q, tf.float64)
            count = int(len(reward))
            return tf.reduce_mean((q - (reward + gamma * best)) ** 2) / n
        """), "td_loss")
    cuts = pitfalls(report, "gradient-cut")
    assert [f.line for f in cuts] == [6, 7, 8]
    assert "Python number" in cuts[0].message
    assert "integer type" in cuts[1].message


def test_numpy_functions_but_not_constructors():
    report = analyze(py_source("""
        import numpy as np
        import tensorflow as tf

        def log1pexp(x):
            @tf.custom_gradient
            def _f(x):
                y = np.log1p(np.exp(x))
                def grad(upstream):
                    return upstream * (1 / (1 + np.exp(-x)))
                return y, grad
            eps = np.float32(1e-7)
            z = np.zeros(3)
            half = np.sqrt(2.0)
            size = np.prod(x.shape)
            return _f(x)
        """), "log1pexp")
    assert report.uses_custom_gradient
    assert [f.line for f in pitfalls(report, "gradient-cut")] == [7, 7, 9]
    assert "NumPy" in pitfalls(report, "gradient-cut")[0].message


def test_tensorflow_numpy_alias_is_not_numpy():
    report = analyze(py_source("""
        import tensorflow as tf
        import tensorflow.experimental.numpy as np

        def log1pexp(x):
            return np.log1p(np.exp(x))
        """), "log1pexp")
    assert pitfalls(report, "gradient-cut") == []


def test_stop_gradient_is_reported_and_flagged():
    report = analyze(py_source("""
        import tensorflow as tf

        def td_loss(q, reward, next_q, gamma):
            target = tf.stop_gradient(reward + gamma * tf.reduce_max(next_q, axis=-1))
            return tf.reduce_mean(tf.square(q - target))
        """), "td_loss")
    assert report.uses_stop_gradient
    (finding,) = pitfalls(report, "gradient-cut")
    assert finding.line == 4 and finding.message.startswith("`tf.stop_gradient(")


def test_stop_gradient_imported_bare():
    report = analyze(py_source("""
        from tensorflow import stop_gradient, round

        def straight_through_round(x):
            return x + stop_gradient(round(x) - x)
        """), "straight_through_round")
    assert report.uses_stop_gradient
    assert lines_of(report, "gradient-cut") == [4]


def test_prints_and_asserts_are_not_evidence():
    report = analyze(py_source("""
        import numpy as np
        import tensorflow as tf

        def jvp(f, x, v):
            with tf.autodiff.ForwardAccumulator(x, v) as acc:
                y = f(x)
            print("y =", y.numpy(), float(tf.reduce_sum(y)))
            assert np.all(np.isfinite(y))
            tf.print(f"{y.numpy()}")
            return acc.jvp(y)
        """), "jvp")
    assert report.findings == ()


def test_cut_in_a_helper_is_located_in_the_helpers_cell(tmp_path):
    path = write_notebook(tmp_path / "nb.ipynb", [
        ("markdown", "# Penalty"),
        ("code", "import tensorflow as tf"),
        ("code", """
            def norms_of(g):
                flat = tf.reshape(g, (g.shape[0], -1))
                return tf.constant(tf.norm(flat, axis=1).numpy())
            """),
        ("code", """
            def gradient_penalty(critic, real, fake, alpha):
                x = alpha * real + (1 - alpha) * fake
                with tf.GradientTape() as tape:
                    tape.watch(x)
                    out = critic(x)
                g = tape.gradient(out, x)
                return tf.reduce_mean((norms_of(g) - 1.0) ** 2)
            """),
    ])
    report = analyze(read_submission(path), "gradient_penalty")
    assert (report.cell, report.line) == (3, 1)  # code cells are numbered as Run All numbers them
    (finding,) = without_norm_evidence(report)
    assert (finding.pitfall, finding.cell, finding.line) == ("gradient-cut", 2, 3)
    assert finding.code == "return tf.constant(tf.norm(flat, axis=1).numpy())"


# ---------------------------------------------------------------------------
# custom_gradient / recompute_grad / definitions


CUSTOM_GRADIENT_STYLES = {
    "decorator": """
        import tensorflow as tf

        @tf.custom_gradient
        def log1pexp(x):
            e = tf.exp(-tf.abs(x))
            def grad(upstream):
                return upstream * tf.sigmoid(x)
            return tf.maximum(x, 0.0) + tf.math.log1p(e), grad
        """,
    "decorator on a nested function": """
        import tensorflow as tf

        def log1pexp(x):
            @tf.custom_gradient
            def inner(x):
                def grad(dy):
                    return dy * tf.sigmoid(x)
                return tf.nn.softplus(x), grad
            return inner(x)
        """,
    "assignment of tf.custom_gradient(_impl)": """
        import tensorflow as tf

        def _impl(x):
            def grad(dy):
                return dy * tf.sigmoid(x)
            return tf.nn.softplus(x), grad

        log1pexp = tf.custom_gradient(_impl)
        """,
    "from tensorflow import custom_gradient": """
        from tensorflow import custom_gradient
        import tensorflow as tf

        @custom_gradient
        def log1pexp(x):
            return tf.nn.softplus(x), lambda dy: dy * tf.sigmoid(x)
        """,
    "imported under another name": """
        from tensorflow import custom_gradient as cg
        import tensorflow as tf

        @cg
        def log1pexp(x):
            return tf.nn.softplus(x), lambda dy: dy * tf.sigmoid(x)
        """,
    "a helper two calls away": """
        import tensorflow as tf

        @tf.custom_gradient
        def _core(x):
            return tf.nn.softplus(x), lambda dy: dy * tf.sigmoid(x)

        def _middle(x):
            return _core(x)

        def log1pexp(x):
            return _middle(tf.convert_to_tensor(x))
        """,
    "name = helper, helper decorated": """
        import tensorflow as tf

        @tf.custom_gradient
        def my_softplus(x):
            return tf.nn.softplus(x), lambda dy: dy * tf.sigmoid(x)

        log1pexp = my_softplus
        """,
    "re-wrapped after the def": """
        import tensorflow as tf

        def log1pexp(x):
            return tf.nn.softplus(x), lambda dy: dy * tf.sigmoid(x)

        log1pexp = tf.custom_gradient(log1pexp)
        """,
    "tensorflow imported as tensorflow": """
        import tensorflow

        @tensorflow.custom_gradient
        def log1pexp(x):
            return tensorflow.nn.softplus(x), lambda dy: dy * tensorflow.sigmoid(x)
        """,
    "a lambda wrapped at module level": """
        import tensorflow as tf

        log1pexp = tf.custom_gradient(lambda x: (tf.nn.softplus(x), lambda dy: dy * tf.sigmoid(x)))
        """,
}


@pytest.mark.parametrize("style", list(CUSTOM_GRADIENT_STYLES))
def test_custom_gradient_spellings(style):
    report = analyze(py_source(CUSTOM_GRADIENT_STYLES[style]), "log1pexp")
    assert report.defined
    assert report.uses_custom_gradient
    assert not report.uses_recompute_grad


def test_assignment_definition_is_located_at_the_assignment():
    report = analyze(py_source(CUSTOM_GRADIENT_STYLES["assignment of tf.custom_gradient(_impl)"]), "log1pexp")
    assert (report.cell, report.line) == (None, 8)


def test_no_custom_gradient_when_absent_or_shadowed():
    report = analyze(py_source("""
        import tensorflow as tf

        @tf.custom_gradient
        def f(x):
            return x, lambda dy: dy

        def log1pexp(x, f=None):
            return tf.nn.softplus(x)

        def straight_through_round(f):
            return f(1.0)
        """), "log1pexp")
    assert report.defined and not report.uses_custom_gradient
    assert not analyze(py_source("""
        import tensorflow as tf

        @tf.custom_gradient
        def f(x):
            return x, lambda dy: dy

        def straight_through_round(f):
            return f(1.0)
        """), "straight_through_round").uses_custom_gradient


def test_recompute_grad_directly_and_through_a_helper(tmp_path):
    assert analyze(py_source("""
        import tensorflow as tf

        def checkpointed(f):
            return tf.recompute_grad(f)
        """), "checkpointed").uses_recompute_grad
    path = write_notebook(tmp_path / "nb.ipynb", [
        ("code", "from tensorflow import recompute_grad"),
        ("code", "def _wrap(f):\n    return recompute_grad(lambda x: f(x))\n"),
        ("code", "def checkpointed(f):\n    g = _wrap(f)\n    return g\n"),
    ])
    report = analyze(read_submission(path), "checkpointed")
    assert report.uses_recompute_grad and not report.uses_custom_gradient
    assert not analyze(py_source("""
        def checkpointed(f):
            return f
        """), "checkpointed").uses_recompute_grad
    assert analyze(py_source("""
        import tensorflow as tf

        def checkpointed(f):
            @tf.recompute_grad
            def g(x):
                return f(x)
            return g
        """), "checkpointed").uses_recompute_grad


def test_last_definition_wins_across_cells(tmp_path):
    path = write_notebook(tmp_path / "nb.ipynb", [
        ("code", "import tensorflow as tf"),
        ("code", """
            @tf.custom_gradient
            def log1pexp(x):
                return tf.nn.softplus(x), lambda dy: dy * tf.sigmoid(x)
            """),
        ("markdown", "Try again without the decorator:"),
        ("code", """
            def log1pexp(x):
                return float(tf.math.log(1 + tf.exp(x)))
            """),
    ])
    report = analyze(read_submission(path), "log1pexp")
    assert (report.cell, report.line) == (3, 1)
    assert not report.uses_custom_gradient
    assert [(f.cell, f.line) for f in report.findings] == [(3, 2)]


def test_helper_in_another_cell_is_followed_for_findings(tmp_path):
    path = write_notebook(tmp_path / "nb.ipynb", [
        ("code", "%matplotlib inline\nimport tensorflow as tf"),
        ("code", """
            def gradient_penalty(critic, real, fake, alpha):
                x = alpha * real + (1 - alpha) * fake
                with tf.GradientTape() as tape:
                    tape.watch(x)
                    out = critic(x)
                g = tape.gradient(out, x)
                return tf.reduce_mean((tf.norm(g, axis=1) - 1.0) ** 2)
            """),
        ("code", "def broken(:\n    pass\n"),
        ("code", """
            def critic_gradients(critic, real, fake, alpha, gp_weight):
                gp = gradient_penalty(critic, real, fake, alpha)
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(critic(fake)) - tf.reduce_mean(critic(real)) + gp_weight * gp
                return loss, tape.gradient(loss, critic.trainable_variables)
            """),
    ])
    source = read_submission(path)
    report = analyze(source, "critic_gradients")
    (finding,) = [f for f in without_norm_evidence(report) if f.pitfall != "wrong-norm-axis"]  # its axis=1 is one, too
    assert (finding.pitfall, finding.cell, finding.line) == ("tape-outside-context", 4, 2)
    assert source.where(finding.cell, finding.line) == "cell [4], line 2"
    assert "(lines 3-4)" in finding.message


def test_helper_mistake_reported_where_the_helper_is(tmp_path):
    path = write_notebook(tmp_path / "nb.ipynb", [
        ("code", "import tensorflow as tf"),
        ("code", """
            def gradient_penalty(critic, real, fake, alpha):
                x = alpha * real + (1 - alpha) * fake
                with tf.GradientTape() as tape:
                    tape.watch(x)
                    out = critic(x)
                g = tape.gradient(tf.reduce_sum(out), x)
                return tf.reduce_mean((tf.norm(g, axis=1) - 1.0) ** 2)
            """),
        ("code", """
            def critic_gradients(critic, real, fake, alpha, gp_weight):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(critic(fake)) - tf.reduce_mean(critic(real))
                    loss += gp_weight * gradient_penalty(critic, real, fake, alpha)
                return loss, tape.gradient(loss, critic.trainable_variables)
            """),
    ])
    report = analyze(read_submission(path), "critic_gradients")
    assert [(f.pitfall, f.cell, f.line) for f in without_norm_evidence(report)] == [("tape-outside-context", 2, 6),
                                                                       ("wrong-norm-axis", 2, 7)]  # axis=1


def test_magics_syntax_errors_and_skipped_cells(tmp_path):
    path = tmp_path / "nb.ipynb"
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell("%matplotlib inline\nimport tensorflow as tf\n!pip list"),
        nbformat.v4.new_code_cell("def oops(:\n    return"),
        nbformat.v4.new_code_cell(code("""
            %%time
            def derivatives(f, x):
                with tf.GradientTape() as tape:
                    tape.watch(x)
                    y = f(x)
                dy = tape.gradient(y, x)
                return dy, tape.gradient(dy, x)
            """)),
        nbformat.v4.new_code_cell("def derivatives(f, x):\n    return 0, 0\n",
                                  metadata={"nbgrader": {"grade_id": "test_derivatives"}}),
    ]
    nbformat.write(notebook, str(path))
    report = analyze(read_submission(path), "derivatives")
    assert report.defined and (report.cell, report.line) == (3, 2)
    assert lines_of(report, "non-persistent-tape") == [7]
    finding = pitfalls(report, "non-persistent-tape")[0]
    assert finding.cell == 3 and finding.code == "return dy, tape.gradient(dy, x)"


def test_undefined_function_and_unreadable_submissions(tmp_path):
    report = analyze(py_source("import tensorflow as tf\n\ndef other(x):\n    return x\n"), "log1pexp")
    assert report == FunctionReport("log1pexp", False, None, None, False, False, False, ())
    broken = tmp_path / "broken.py"
    broken.write_text("def log1pexp(x:\n")
    assert analyze(read_submission(broken), "log1pexp").defined is False
    empty = SubmissionSource(Path("x.ipynb"), "notebook", problem="no cells")
    assert analyze(empty, "log1pexp").defined is False


def test_py_file_from_disk_has_no_cell(tmp_path):
    path = tmp_path / "s01.py"
    path.write_text(code(OUTSIDE_FLAGGED["hessian: inner gradient after the block, jacobian of it"][1]))
    report = analyze(read_submission(path), "hessian")
    assert report.cell is None and report.line == 3
    (finding,) = report.findings
    assert finding.cell is None and finding.line == 9


def test_recursion_is_guarded():
    report = analyze(py_source("""
        import tensorflow as tf

        def a(x):
            return b(x) if x > 0 else x

        def b(x):
            return a(x - 1)

        def hessian(f, x):
            g = a(x)
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x) + g
            return tape.gradient(y, x)
        """), "hessian")
    assert report.defined and report.findings == ()


def test_unusual_syntax_does_not_break_the_analysis():
    report = analyze(py_source("""
        import tensorflow as tf

        async def helper(x):
            async with x as y:
                return [z async for z in y]

        def f(x, *args, **kw):
            global COUNT
            match x:
                case [a, b]:
                    with tf.GradientTape() as t:
                        y = a * b
                    return t.gradient(y, a)
                case _:
                    pass
            if (n := len(args)) > 2:
                return n
            return helper, lambda: t.gradient(y, a)
        """), "f")
    assert report.defined and report.findings == ()


def test_module_does_not_import_tensorflow():
    done = subprocess.run(
        [sys.executable, "-c", "import sys, autograder.judge.static; "
                               "sys.exit('tensorflow' in sys.modules)"],
        cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


DEEP = code("""
    import tensorflow as tf

    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        z = """ + " + ".join(["y"] * 1500) + """
        return tape.gradient(z, x)
    """)


def test_a_crash_is_listed_in_normal_mode_and_raises_in_strict_mode(monkeypatch):
    # 1500 terms parse, but the recursive walks of the checks hit RecursionError.
    report = analyze(py_source(DEEP), "f", strict=False)
    assert report.defined and report.findings == ()
    assert report.crashes and all("RecursionError" in crash for crash in report.crashes)
    assert "tape checks in `f` (line 3): RecursionError: maximum recursion depth exceeded" in report.crashes
    with pytest.raises(StaticCheckCrash, match="RecursionError") as raised:
        analyze(py_source(DEEP), "f", strict=True)
    assert isinstance(raised.value.__cause__, RecursionError)
    with pytest.raises(StaticCheckCrash):
        analyze(py_source(DEEP), "f")  # the test session sets AUTOGRADER_STRICT_STATIC (conftest)
    monkeypatch.delenv("AUTOGRADER_STRICT_STATIC")
    assert analyze(py_source(DEEP), "f").crashes == report.crashes


def test_a_crashing_check_loses_only_its_own_evidence(monkeypatch):
    text = """
        import tensorflow as tf

        def f(x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = x * x
            z = y + 1.0
            return tape.gradient(z, x) + x.numpy()
        """

    def broken(submission, definition):
        raise ValueError("no cuts today")

    monkeypatch.setattr(static, "cut_findings", broken)
    report = analyze(py_source(text), "f", strict=False)
    assert report.crashes == ("gradient cuts in `f`: ValueError: no cuts today",)
    assert [f.pitfall for f in report.findings] == ["tape-outside-context"]
    with pytest.raises(StaticCheckCrash, match="gradient cuts in `f`: ValueError: no cuts today"):
        analyze(py_source(text), "f", strict=True)
    assert analyze(py_source(text), "log1pexp", strict=True).crashes == ()  # undefined: nothing ran


LINE_NUMBERS = re.compile(r"\blines? (\d+)(?:-(\d+))?")


def named_lines(message: str) -> tuple[int, ...]:
    return tuple(int(n) for pair in LINE_NUMBERS.findall(message) for n in pair if n)


@pytest.mark.parametrize("name", [*OUTSIDE_FLAGGED, *PERSISTENT_FLAGGED])
def test_related_lines_are_the_lines_the_message_names(name):
    function, text, _ = OUTSIDE_FLAGGED.get(name) or PERSISTENT_FLAGGED[name]
    report = analyze(py_source(text), function)
    assert report.findings and report.crashes == ()
    for finding in report.findings:
        assert finding.related_lines == named_lines(finding.message), finding.message


def test_the_excerpt_covers_the_related_lines_and_not_numbers_in_the_text():
    function, text, _ = OUTSIDE_FLAGGED["derivatives: inner gradient after the outer block"]
    source = py_source(text)
    (finding,) = pitfalls(analyze(source, function), "tape-outside-context")
    assert finding.related_lines == (4, 8, 10)
    where = where_of(source, finding.cell, finding.line, finding.code, finding.message, finding.related_lines)
    assert [n for n, _ in where.excerpt] == list(range(1, 12))  # lines 4-10, 3 around, 11 lines in all
    bare = where_of(source, finding.cell, finding.line, finding.code, "see line 1 and lines 2-3")
    assert [n for n, _ in bare.excerpt] == [6, 7, 8, 9, 10, 11]  # line 9 and 3 around: the text is not read


def test_float_of_a_tensor_computation_that_uses_a_shape_inside_is_a_cut(tmp_path):
    path = tmp_path / "penalty.py"
    path.write_text(
        "import tensorflow as tf\n\n"
        "def gradient_penalty(critic, real, fake, alpha):\n"
        "    x = alpha * real + (1 - alpha) * fake\n"
        "    with tf.GradientTape() as tape:\n"
        "        tape.watch(x)\n"
        "        out = critic(x)\n"
        "    g = tape.gradient(out, x)\n"
        "    n = int(g.shape[0])\n"
        "    return float(tf.reduce_mean(tf.reshape(g, [g.shape[0], -1]) ** 2))\n")
    report = analyze(read_submission(path), "gradient_penalty")
    cuts = [f for f in report.findings if f.pitfall == "gradient-cut"]
    assert [f.line for f in cuts] == [10]  # the float(...) of a tensor, not the int(...) of a shape
