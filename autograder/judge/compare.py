"""Compare a student's plain-data output with the reference's, and say how they differ.

The failure text follows pytest's ``approx``: how many elements mismatched, the
largest absolute and relative difference, and a few index / obtained /
expected rows, so a student sees the shape of the error, not just "wrong".
Hidden cases (``reveal=False``) keep the counts and the largest differences
but never show an element's value: students must not learn the hidden cases
from their feedback.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from autograder.model.course import Output
from autograder.model.outcomes import Value

MAX_ROWS = 5


@dataclass(frozen=True)
class Comparison:
    ok: bool
    message: str = ""  # empty when ok
    kind: str = ""  # what failed, in a word: "shape", "dtype", "none", "not-zero" or "values" (``judge.hidden``)

    def __bool__(self) -> bool:
        return self.ok


def tolerance_for(expected: np.ndarray, rtol: float, atol_floor: float) -> tuple[float, float]:
    """Relative tolerance, and an absolute one scaled to the size of the reference.

    A Jacobian whose entries reach 1e4 cannot be asked to match its zeros to
    1e-5: rounding in another (correct) order of operations leaves more than that.
    """
    finite = expected[np.isfinite(expected)]
    scale = float(np.max(np.abs(finite))) if finite.size else 0.0
    return rtol, max(atol_floor * max(1.0, scale), rtol * 1e-2 * scale)


def compare(obtained: Value, expected: Value, output: Output, rtol: float, atol_floor: float,
            reveal: bool = True) -> Comparison:
    """Whether ``obtained`` is close to ``expected``; ``reveal=False`` leaves the values out of the message."""
    what = output.label
    if expected.is_none or obtained.is_none:
        return _compare_none(obtained, expected, what)
    got, want = obtained.array, expected.array
    if got.shape != want.shape and not (got.size == want.size == 1):
        return Comparison(False, f"{what} has shape {_shape(got)}, expected {_shape(want)}", "shape")
    got, want = got.reshape(want.shape), want
    if output.check_dtype and expected.dtype in ("float32", "float64") and obtained.dtype != expected.dtype:
        return Comparison(False, f"{what} has dtype {obtained.dtype}, expected {expected.dtype} "
                                 "(keep the input's dtype)", "dtype")
    if output.exact:
        if np.array_equal(got, want):
            return Comparison(True)
        if not reveal:
            return Comparison(False, f"{what} differs from the reference", "values")
        return Comparison(False, f"{what}: got {_plain(got)}, expected {_plain(want)}", "values")
    rel, absolute = (rtol, 0.0) if output.relative else tolerance_for(want, rtol, atol_floor)
    return _compare_values(got, want, what, rel, absolute, reveal)


def _compare_none(obtained: Value, expected: Value, what: str) -> Comparison:
    """None and zeros are alike (the contract's convention for identically-zero derivatives)."""
    other = obtained if expected.is_none else expected
    if other.is_none or not np.any(other.array):
        return Comparison(True)
    if obtained.is_none:
        return Comparison(False, f"{what} is None, expected a tensor of shape {_shape(expected.array)} "
                                 "(the gradient does not reach it)", "none")
    return Comparison(False, f"{what} should be None or zero, got a tensor of shape {_shape(obtained.array)} "
                             f"with non-zero entries (largest |value| {np.max(np.abs(obtained.array)):.4g})",
                      "not-zero")


def _compare_values(got: np.ndarray, want: np.ndarray, what: str, rtol: float, atol: float,
                    reveal: bool = True) -> Comparison:
    with np.errstate(invalid="ignore", over="ignore"):
        difference = np.abs(got - want)
        # an infinite element is close only to itself: inf - x <= rtol * inf would hold for every x
        close = ((difference <= atol + rtol * np.abs(want)) & np.isfinite(want)) | (got == want) \
            | (np.isnan(got) & np.isnan(want))
    if np.all(close):
        return Comparison(True)
    bad = ~close
    count, total = int(np.sum(bad)), got.size
    lines = [f"{what} is not close to the reference: {count} / {total} element{'s' if total != 1 else ''} differ "
             f"(tolerance: relative {rtol:.0e}, absolute {atol:.1e})"]
    if np.any(~np.isfinite(got[bad])):
        lines.append(f"  {int(np.sum(~np.isfinite(got[bad])))} of them are inf or NaN")
    finite = bad & np.isfinite(got) & np.isfinite(want)
    if np.any(finite):
        with np.errstate(divide="ignore", invalid="ignore"):
            relative = difference[finite] / np.abs(want[finite])
        lines.append(f"  largest absolute difference {np.max(difference[finite]):.4g}, "
                     f"largest relative difference {np.max(relative):.4g}")
    if not reveal:
        return Comparison(False, "\n".join(lines), "values")
    rows = [("index", "obtained", "expected")]
    for index in list(zip(*np.nonzero(bad)))[:MAX_ROWS] if got.ndim else [()]:
        rows.append((str(tuple(int(i) for i in index)) if index else "()", _number(got[index]), _number(want[index])))
    widths = [max(len(row[k]) for row in rows) for k in range(3)]
    lines += ["  " + "  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]
    if count > MAX_ROWS:
        lines.append(f"  ... and {count - MAX_ROWS} more")
    return Comparison(False, "\n".join(lines), "values")


def _shape(array: np.ndarray) -> str:
    return str(tuple(int(n) for n in array.shape))


def _number(value: float) -> str:
    return f"{float(value):.6g}"


def _plain(array: np.ndarray) -> str:
    if array.size == 1:
        value = float(array.reshape(()))
        return "True" if value == 1.0 else "False" if value == 0.0 else _number(value)
    return np.array2string(array, precision=4, threshold=8)


def matches(obtained: Value, other: Value, output: Output, rtol: float, atol_floor: float) -> bool:
    """Whether two outputs agree within tolerance, shape included: used to match mistake models."""
    if obtained.is_none or other.is_none:
        return obtained.is_none and other.is_none
    if obtained.array.shape != other.array.shape:
        return False
    return compare(obtained, other, output, rtol, atol_floor).ok


__all__ = ["Comparison", "compare", "matches", "tolerance_for"]
