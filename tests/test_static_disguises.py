"""The static reading sees through disguises: helpers given a tape, lambdas, closures, `functools.partial`, list
unpacking and calls made after a block; the value's paths (an op without gradient, a cut on every path, a forward
that is not the identity); and the other functions an exercise calls. Correct code in the same disguises stays
silent, and so does every correct file of the corpus.

No TensorFlow here: the module only parses source.
"""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import yaml

from autograder.judge.static import analyze
from autograder.load.cells import Cell, SubmissionSource, read_submission

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "submissions"
ASSIGNMENTS = ("custom_gradients", "higher_order", "jacobians")


def source(text: str) -> SubmissionSource:
    body = textwrap.dedent(text).lstrip("\n")
    return SubmissionSource(Path("submission.py"), "python", cells=[Cell(index=1, source=body, code=body)])


def found(text: str, function: str, pitfall: str):
    return [f for f in analyze(source(text), function, strict=True).findings if f.pitfall == pitfall]


DERIVATIVES_AFTER = {
    "a helper given the tape": """
        import tensorflow as tf

        def _grad(tape, target, source):
            return tape.gradient(target, source)

        def derivatives(f, x):
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
            first = _grad(inner, y, x)
            return first, _grad(outer, first, x)
        """,
    "a lambda given the tape": """
        import tensorflow as tf

        def derivatives(f, x):
            grad_of = lambda tape, y: tape.gradient(y, x)
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
            first = grad_of(inner, y)
            return first, grad_of(outer, first)
        """,
    "a closure over the inner tape": """
        import tensorflow as tf

        def derivatives(f, x):
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)

            def first_derivative():
                return inner.gradient(y, x)

            first = first_derivative()
            return first, outer.gradient(first, x)
        """,
    "a functools.partial of a helper": """
        import functools
        import tensorflow as tf

        def _grad(tape, target, source):
            return tape.gradient(target, source)

        def derivatives(f, x):
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
            first = functools.partial(_grad, inner)(y, x)
            return first, functools.partial(_grad, outer)(first, x)
        """,
    "unpacked from a list": """
        import tensorflow as tf

        def derivatives(f, x):
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
            [first] = [inner.gradient(y, x)]
            return first, outer.gradient(first, x)
        """,
}


@pytest.mark.parametrize("style", list(DERIVATIVES_AFTER))
def test_an_inner_gradient_taken_after_the_outer_block_is_seen_in_any_disguise(style):
    text = DERIVATIVES_AFTER[style]
    (finding,) = found(text, "derivatives", "tape-outside-context")
    assert finding.code.startswith(("first =", "[first] =")), finding
    # Headline, place and fix talk about the same line, and all say "after".
    assert f"`{finding.code}` is computed after" in finding.headline
    assert finding.fix.startswith(f"move `{finding.code}` (line {finding.line}) into the "
                                  "`with tf.GradientTape() as outer:` block"), finding.fix
    assert "after the `with tf.GradientTape() as outer:` block ends" in finding.message
    # Indented into the outer block, the same code is correct: nothing is found.
    lines = textwrap.dedent(text).lstrip("\n").splitlines()
    number = finding.line - 1
    fixed = "\n".join(lines[:number] + ["        " + lines[number].strip()] + lines[number + 1:])
    assert found(fixed, "derivatives", "tape-outside-context") == [], fixed


def test_a_target_computed_by_a_lambda_that_runs_after_the_block_is_seen():
    text = """
        import tensorflow as tf

        def jacobian(f, x):
            with tf.GradientTape() as tape:
                tape.watch(x)
            jac = lambda: tape.jacobian(f(x), x)
            return jac()
        """
    (finding,) = found(text, "jacobian", "tape-outside-context")
    assert finding.line == 7 and "`f(x)` is computed after" in finding.headline
    assert "compute `f(x)` inside the `with tf.GradientTape() as tape:` block" in finding.fix


def test_a_gradient_taken_in_a_while_loop_body_is_read_where_the_loop_runs():
    wrong = """
        import tensorflow as tf

        def jacobian(f, x):
            with tf.GradientTape(persistent=True) as tape:
                tape.watch(x)
                y = f(x)
            m = tf.size(y)

            def body(i, rows):
                return i + 1, rows.write(i, tape.gradient(y[i], x))

            _, rows = tf.while_loop(lambda i, rows: i < m, body, (0, tf.TensorArray(x.dtype, size=m)))
            return rows.stack()
        """
    (finding,) = found(wrong, "jacobian", "tape-outside-context")
    assert finding.line == 10 and "`y[i]` is computed after" in finding.headline
    assert "`tape.gradient(...)` in `body` (run by `while_loop`)" in finding.message
    recorded = wrong.replace("return i + 1, rows.write(i, tape.gradient(y[i], x))",
                             "with tape:\n                    row = y[i]\n"
                             "                return i + 1, rows.write(i, tape.gradient(row, x))")
    assert "with tape:" in recorded and found(recorded, "jacobian", "tape-outside-context") == []


def test_before_the_block_is_said_before_in_headline_message_and_fix():
    text = """
        import tensorflow as tf

        def gradient_penalty(critic, real, fake, alpha):
            interpolates = alpha * real + (1.0 - alpha) * fake
            scores = tf.reduce_sum(critic(interpolates))
            with tf.GradientTape() as tape:
                tape.watch(interpolates)
            g = tape.gradient(scores, interpolates)
            return tf.reduce_mean((tf.norm(g, axis=1) - 1.0) ** 2)
        """
    (finding,) = found(text, "gradient_penalty", "tape-outside-context")
    assert finding.line == 5
    for said in (finding.headline, finding.message):
        assert "before" in said and "after the" not in said, said
    assert finding.fix == ("move `scores = tf.reduce_sum(critic(interpolates))` (line 5) into the "
                           "`with tf.GradientTape() as tape:` block (indented under it, after "
                           "`tape.watch(interpolates)`); keep `tape.gradient(...)` after the block")


def test_a_loss_summed_after_the_block_is_the_line_named_not_the_penalty_call():
    text = """
        import tensorflow as tf

        def gradient_penalty(critic, real, fake, alpha):
            return tf.constant(0.0)

        def critic_gradients(critic, real, fake, alpha, gp_weight):
            total = lambda w, p: w + gp_weight * p
            with tf.GradientTape() as tape:
                wasserstein = tf.reduce_mean(critic(fake)) - tf.reduce_mean(critic(real))
                penalty = gradient_penalty(critic, real, fake, alpha)
            loss = total(wasserstein, penalty)
            return loss, tape.gradient(loss, critic.trainable_variables)
        """
    (finding,) = found(text, "critic_gradients", "tape-outside-context")
    assert finding.code == "loss = total(wasserstein, penalty)"
    assert "gradient_penalty" not in finding.fix and "`loss = total(wasserstein, penalty)` (line 11)" in finding.fix


CORRECT_DISGUISES = {
    "derivatives": """
        import functools
        import tensorflow as tf

        def _grad(tape, target, source):
            return tape.gradient(target, source)

        def derivatives(f, x):
            grad_of = lambda tape, y: tape.gradient(y, x)
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                first = functools.partial(_grad, inner)(y, x)
                (same,) = (grad_of(inner, y),)
            return first, _grad(outer, first, x)
        """,
    "critic_gradients": """
        import functools
        import tensorflow as tf

        def gradient_penalty(critic, real, fake, alpha):
            return tf.constant(0.0)

        def critic_gradients(critic, real, fake, alpha, gp_weight):
            penalty_of = functools.partial(gradient_penalty, critic, real, fake)
            total = lambda w, p: w + gp_weight * p
            with tf.GradientTape() as tape:
                fake_score, real_score = [tf.reduce_mean(critic(b)) for b in (fake, real)]
                loss = total(fake_score - real_score, penalty_of(alpha))
            return loss, tape.gradient(loss, critic.trainable_variables)
        """,
}


@pytest.mark.parametrize("function", list(CORRECT_DISGUISES))
def test_correct_code_in_the_same_disguises_is_silent(function):
    report = analyze(source(CORRECT_DISGUISES[function]), function, strict=True)
    assert [f for f in report.findings if f.pitfall != "gradient-cut"] == [], report.findings


def test_the_value_paths_name_the_cause_the_code_shows():
    whole = found("""
        import tensorflow as tf

        def straight_through_round(x):
            return tf.stop_gradient(x + (tf.round(x) - x))
        """, "straight_through_round", "gradient-cut")
    (on_the_path,) = [f for f in whole if f.whole_path]
    assert on_the_path.fix.endswith("`x + tf.stop_gradient((tf.round(x) - x))`") or \
        on_the_path.fix.endswith("`x + tf.stop_gradient(tf.round(x) - x)`"), on_the_path.fix
    assert "tf.round" not in on_the_path.headline.split("wraps")[1]
    straight_through = """
        import tensorflow as tf

        def _residual(t):
            return tf.round(t) - t

        def straight_through_round(x):
            return x + tf.stop_gradient(_residual(x))
        """
    assert [f for f in found(straight_through, "straight_through_round", "gradient-cut") if f.whole_path] == []
    assert found(straight_through, "straight_through_round", "no-gradient") == []
    (plain,) = found("""
        import tensorflow as tf

        _round = lambda t: tf.round(t)

        def straight_through_round(x):
            return _round(x)
        """, "straight_through_round", "no-gradient")
    assert plain.line == 3 and plain.fix.startswith("pass the upstream gradient through it: "
                                                    "`t + tf.stop_gradient(tf.round(t) - t)`")


def test_a_forward_that_is_not_the_identity_is_located_where_it_is_computed():
    (clipped,) = found("""
        import tensorflow as tf

        def clip_gradient_norm(x, max_norm):
            @tf.custom_gradient
            def inner(t):
                clipped = tf.clip_by_value(t, -max_norm, max_norm)
                return clipped, lambda dy: tf.clip_by_norm(dy, max_norm)
            return inner(x)
        """, "clip_gradient_norm", "clips-value")
    assert clipped.line == 6 and "`tf.clip_by_value(t, -max_norm, max_norm)`" in clipped.headline
    assert found("""
        import tensorflow as tf

        def clip_gradient_norm(x, max_norm):
            @tf.custom_gradient
            def inner(t):
                return tf.identity(t), lambda dy: tf.clip_by_norm(dy, max_norm)
            return inner(x)
        """, "clip_gradient_norm", "clips-value") == []


NORMS = {
    "tf.norm(g, axis=-1)": "axis -1 only",
    "tf.sqrt(tf.reduce_sum(tf.square(g), axis=[1, 2, 3]))": "the fixed axes [1, 2, 3]",
    "tf.norm(g)": "the whole tensor, batch included",
    "tf.sqrt(tf.reduce_sum(g ** 2, axis=(1, 2)))": "the fixed axes (1, 2)",
    "tf.norm(tf.reshape(g, [tf.shape(g)[0], -1]), axis=1)": None,
    "tf.sqrt(tf.reduce_sum(tf.square(g), axis=tf.range(1, tf.rank(g))))": None,
    "tf.norm(flat, axis=1)": None,
}


@pytest.mark.parametrize("norm", list(NORMS))
def test_a_gradient_norm_over_fixed_axes_is_seen_and_one_over_every_axis_but_the_first_is_not(norm):
    found_ = found(f"""
        import tensorflow as tf

        def gradient_penalty(critic, real, fake, alpha):
            interpolates = alpha * real + (1.0 - alpha) * fake
            with tf.GradientTape() as tape:
                tape.watch(interpolates)
                scores = tf.reduce_sum(critic(interpolates))
            g = tape.gradient(scores, interpolates)
            flat = tf.reshape(g, [tf.shape(g)[0], -1])
            return tf.reduce_mean(tf.square({norm} - 1.0))
        """, "gradient_penalty", "wrong-norm-axis")
    if NORMS[norm] is None:
        assert found_ == []
    else:
        (finding,) = found_
        assert finding.line == 10 and f"over {NORMS[norm]}" in finding.headline
        assert finding.fix.startswith("on line 10, take one norm per example over every axis but the first")


def test_the_other_functions_an_exercise_calls_are_listed_with_their_lines():
    report = analyze(read_submission(CORPUS / "higher_order" / "bad_critic_gradients_tape-outside-context_unpack.py"),
                     "critic_gradients", strict=True)
    reached = {r.name: r for r in report.reaches}
    assert set(reached) == {"_terms", "gradient_penalty"}
    penalty = reached["gradient_penalty"]
    assert (penalty.line, penalty.defined_line) == (43, 30) and penalty.holds(None, 35) and not penalty.holds(None, 42)


def correct_files() -> list[tuple[str, str, str]]:
    found_ = []
    for assignment in ASSIGNMENTS:
        files = yaml.safe_load((CORPUS / assignment / "expected.yaml").read_text(encoding="utf-8"))["files"]
        for name, listed in sorted(files.items()):
            if name.startswith("ok_"):
                found_ += [(assignment, name, exercise) for exercise, spec in listed.items() if spec == "passed"]
    return found_


@pytest.mark.slow  # reads ~150 files: seconds, more than the fast suite's budget allows
def test_no_correct_file_of_the_corpus_gets_a_cause_from_the_new_readings():
    """Every correct file, every exercise it passes: no tape finding, no op without gradient, no cut on the whole
    path, and no forward that is not the identity where the exercise wants one (clip_gradient_norm)."""
    accused = []
    for assignment, name, exercise in correct_files():
        report = analyze(read_submission(CORPUS / assignment / name), exercise, strict=True)
        for finding in report.findings:
            if finding.pitfall in ("tape-outside-context", "no-gradient") or finding.whole_path or (
                    finding.pitfall == "clips-value" and exercise == "clip_gradient_norm"):
                accused.append((name, exercise, finding.pitfall, finding.line, finding.message))
    assert len(correct_files()) >= 140 and accused == []
