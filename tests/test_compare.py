"""Comparing one output with the reference's (autograder.judge.compare), on plain values: no TensorFlow."""
from __future__ import annotations

import numpy as np

from autograder.judge.compare import compare, matches, tolerance_for
from autograder.model.course import Output
from autograder.model.outcomes import Value

GRADIENT = Output("gradient", "the gradient", gradient=True)
TYPED = Output("value", "the value", check_dtype=True)
FLAG = Output("recomputed", "whether f runs again", exact=True)


def v(values, dtype: str = "float32", type_name: str = "EagerTensor") -> Value:
    return Value(None if values is None else np.asarray(values, dtype=np.float64), type_name, dtype)


def test_close_values_pass_and_far_ones_say_how_far_with_a_table():
    assert compare(v([1.0, 2.0]), v([1.0, 2.0 + 1e-4]), GRADIENT, 2e-3, 1e-5)
    result = compare(v([1.0, 2.0, 3.0]), v([1.0, 2.5, 3.0]), GRADIENT, 2e-3, 1e-5)
    assert not result
    lines = result.message.splitlines()
    assert lines[0].startswith("the gradient is not close to the reference: 1 / 3 elements differ")
    assert "largest absolute difference 0.5" in lines[1]
    assert lines[2].split() == ["index", "obtained", "expected"] and lines[3].split() == ["(1,)", "2", "2.5"]


def test_a_hidden_case_keeps_counts_and_differences_but_shows_no_value():
    message = compare(v([1.0, 7.25]), v([1.0, 2.5]), GRADIENT, 2e-3, 1e-5, reveal=False).message
    assert "1 / 2 elements differ" in message and "largest absolute difference 4.75" in message
    assert "7.25" not in message and "2.5" not in message.replace("2e-03", "")
    assert "differs from the reference" in compare(v(1.0), v(0.0), FLAG, 0, 0, reveal=False).message


def test_shapes_dtypes_and_infinities():
    assert "has shape (2,), expected (3,)" in compare(v([1, 2]), v([1, 2, 3]), GRADIENT, 2e-3, 1e-5).message
    assert compare(v([[5.0]]), v(5.0), GRADIENT, 2e-3, 1e-5)  # one element is one element
    wrong_dtype = compare(v([1.0], "float32"), v([1.0], "float64"), TYPED, 1e-6, 1e-10)
    assert "has dtype float32, expected float64" in wrong_dtype.message
    nan = compare(v([np.nan, np.inf]), v([1.0, 2.0]), GRADIENT, 2e-3, 1e-5)
    assert "2 of them are inf or NaN" in nan.message
    assert compare(v([np.nan]), v([np.nan]), GRADIENT, 2e-3, 1e-5)  # NaN where the reference has NaN


def test_none_and_zeros_are_alike_where_the_reference_is_zero():
    assert compare(v(None), v([0.0, 0.0]), GRADIENT, 2e-3, 1e-5)
    assert compare(v([0.0]), v(None), GRADIENT, 2e-3, 1e-5)
    assert "is None, expected a tensor of shape (2,)" in compare(v(None), v([1.0, 0.0]), GRADIENT, 2e-3, 1e-5).message
    assert "should be None or zero" in compare(v([3.0]), v(None), GRADIENT, 2e-3, 1e-5).message


def test_the_absolute_tolerance_scales_with_the_reference():
    rtol, atol = tolerance_for(np.array([1e4, 0.0]), 2e-3, 1e-5)
    assert rtol == 2e-3 and atol == 2e-3 * 1e-2 * 1e4  # zeros next to 1e4 may differ by rounding
    assert tolerance_for(np.array([np.inf]), 2e-3, 1e-5) == (2e-3, 1e-5)


def test_matching_a_mistake_model_needs_the_same_shape_and_none_only_matches_none():
    assert matches(v([1.0, 2.0]), v([1.0, 2.0]), GRADIENT, 2e-3, 1e-5)
    assert not matches(v([[1.0, 2.0]]), v([1.0, 2.0]), GRADIENT, 2e-3, 1e-5)
    assert matches(v(None), v(None), GRADIENT, 2e-3, 1e-5) and not matches(v(None), v([0.0]), GRADIENT, 2e-3, 1e-5)


def test_an_infinite_element_is_close_only_to_the_same_infinity():
    """inf - x <= rtol * inf holds for every x: without its own rule a mistake model that overflows (safe_norm's
    upstream * x first) would match a student whose numbers are right where the model's are inf."""
    assert matches(v([np.inf, -np.inf, 1.0]), v([np.inf, -np.inf, 1.0]), GRADIENT, 2e-3, 1e-5)
    assert not matches(v([6e8, 0.0]), v([np.inf, 0.0]), GRADIENT, 2e-3, 1e-5)
    assert not matches(v([-np.inf]), v([np.inf]), GRADIENT, 2e-3, 1e-5)
    assert not compare(v([1e30]), v([np.inf]), GRADIENT, 2e-3, 1e-5)
