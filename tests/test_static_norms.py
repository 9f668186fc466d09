"""Static reading of a row norm (judge/static/norms.py): where a sum of squares is unscaled, where a division by
a norm or a scale is unguarded, where tf.norm's own gradient runs; guarded and scaled code in other styles stays
silent. No TensorFlow: the module only parses source."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from autograder.judge.static import analyze
from autograder.load.cells import Cell, SubmissionSource, read_submission

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "submissions" / "custom_gradients"
NORM_PITFALLS = ("nan-at-zero", "unstable-value", "unstable-gradient")


def findings(text: str, function: str = "safe_norm") -> list[tuple[str, int]]:
    body = textwrap.dedent(text).lstrip("\n")
    source = SubmissionSource(Path("submission.py"), "python", cells=[Cell(index=1, source=body, code=body)])
    return [(f.pitfall, f.line) for f in analyze(source, function, strict=True).findings if f.pitfall in NORM_PITFALLS]


def test_an_unguarded_division_in_grad_fn_is_located():
    assert findings("""
        import tensorflow as tf

        @tf.custom_gradient
        def safe_norm(x):
            m = tf.reduce_max(tf.abs(x), axis=1)
            m = tf.where(m > 0, m, tf.ones_like(m))
            norm = m * tf.sqrt(tf.reduce_sum(tf.square(x / m[:, None]), axis=1))
            return norm, lambda up: up[:, None] * x / norm[:, None]
        """) == [("nan-at-zero", 8)]


def test_an_unscaled_sum_of_squares_is_a_value_outside_grad_fn_and_a_gradient_inside():
    assert findings("""
        import tensorflow as tf

        @tf.custom_gradient
        def safe_norm(x):
            norm = tf.sqrt(tf.reduce_sum(x ** 2, axis=1))

            def grad_fn(up):
                return up[:, None] * tf.math.divide_no_nan(x, tf.norm(x, axis=1, keepdims=True))
            return norm, grad_fn
        """) == [("unstable-value", 5), ("unstable-gradient", 8)]


def test_without_a_custom_gradient_the_norm_itself_is_where_the_nan_comes_from():
    assert findings("""
        import tensorflow as tf

        def safe_norm(x):
            return tf.norm(x, axis=1)
        """) == [("unstable-value", 4), ("nan-at-zero", 4)]


def test_a_scale_divided_unguarded_is_located_and_a_guarded_one_is_not():
    assert findings("""
        import tensorflow as tf

        def _nonzero(t):
            return tf.where(t == 0, tf.ones_like(t), t)

        @tf.custom_gradient
        def safe_norm(x):
            m = tf.reduce_max(tf.abs(x), axis=1, keepdims=True)
            bad = tf.norm(x / m, axis=1)
            good = tf.norm(x / _nonzero(m), axis=1) + tf.norm(x / (m + 1e-30), axis=1)
            return good, lambda up: tf.where(good[:, None] > 0, up[:, None] * x / good[:, None], 0.0)
        """) == [("nan-at-zero", 9)]


@pytest.mark.parametrize("path", sorted(CORPUS.glob("ok_safe_norm_*.py")), ids=lambda p: p.name)
def test_correct_styles_have_no_division_or_gradient_finding(path):
    found = [(f.pitfall, f.line) for f in analyze(read_submission(path), "safe_norm", strict=True).findings
             if f.pitfall in ("nan-at-zero", "unstable-gradient")]
    assert found == [], found


@pytest.mark.parametrize("name,pitfall", [
    ("bad_safe_norm_nan-at-zero.py", "nan-at-zero"), ("bad_safe_norm_nan-at-zero_scale.py", "nan-at-zero"),
    ("bad_safe_norm_unstable-value.py", "unstable-value"), ("bad_safe_norm_unstable-gradient.py", "unstable-gradient"),
    ("bad_safe_norm_unstable-gradient_l2_normalize.py", "unstable-gradient"),
    ("bad_safe_norm_no-custom-gradient_tf_norm.py", "nan-at-zero")])
def test_each_mistake_of_the_corpus_is_located(name, pitfall):
    report = analyze(read_submission(CORPUS / name), "safe_norm", strict=True)
    assert pitfall in [f.pitfall for f in report.findings]
