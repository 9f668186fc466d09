"""The cases themselves (../shared/CURRICULUM.md, "What earns points"), read without running anything.

Every graded case stays inside its exercise's contract line (dtype, Tensor or Variable, an f that depends on
x unless the line names a degenerate one) and names the clause it rests on; diagnostic and advisory cases
say what they tell or advise; public cases are fixed (what students see is what is graded); hidden cases
show no values in their descriptions.
"""
from __future__ import annotations

import numpy as np
import pytest

from autograder.course import all_assignments
from autograder.model.course import ADVISORY, DIAGNOSTIC, GRADED

EXERCISES = [exercise for assignment in all_assignments() for exercise in assignment.exercises]
SEEDS = (0, 1, 2026, 123456)


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.id)
@pytest.mark.parametrize("seed", SEEDS)
def test_every_graded_case_is_inside_its_contract_line(exercise, seed):
    scope = exercise.scope
    for case in exercise.cases(seed):
        if case.kind != GRADED:
            continue
        where = f"{exercise.id}/{case.id}"
        assert case.reason.startswith(f"{exercise.id}:"), f"{where}: a graded case names its contract clause"
        assert case.dtype in scope.dtypes, f"{where}: {case.dtype} is not in the contract's {scope.dtypes}"
        assert scope.variables or not (case.has("variable") or case.args.get("variable")), \
            f"{where}: a Variable where the contract promises a Tensor"
        assert scope.degenerate or not case.has("degenerate"), f"{where}: a degenerate f the contract does not name"
        for name, value in case.args.items():  # inputs in the case's dtype (the probe keeps them as they are)
            if isinstance(value, np.ndarray) and value.dtype.kind == "f":
                assert value.dtype.name in scope.dtypes, f"{where}: argument {name} is {value.dtype}"


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.id)
def test_cases_beyond_the_line_say_what_they_are_for_and_cost_nothing(exercise):
    cases = exercise.cases(1)
    for case in cases:
        if case.kind == DIAGNOSTIC:
            assert case.reason and not case.public, case.id
        if case.kind == ADVISORY:
            assert case.advice.startswith(f"your {exercise.id}") and not case.public, case.id
    assert any(case.kind == GRADED and case.public for case in cases), "public checks have something to check"


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.id)
def test_public_cases_are_fixed_whatever_the_seed(exercise):
    def public(seed):
        return {c.id: c for c in exercise.cases(seed) if c.public}
    first = public(SEEDS[0])
    for seed in SEEDS[1:]:
        other = public(seed)
        assert other.keys() == first.keys()
        for case_id, case in first.items():
            assert case.description == other[case_id].description
            assert same(case.args, other[case_id].args), case_id


def same(a, b) -> bool:
    """Equal plain data: numbers, strings, arrays, and tuples, lists and dicts of them."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)):
        return isinstance(b, (tuple, list)) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a), np.asarray(b))
    return a == b


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.id)
def test_hidden_cases_show_no_values(exercise):
    for case in exercise.cases(7):
        if case.public:
            continue
        for name, value in case.args.items():
            scalars = [value] if isinstance(value, (float, np.floating)) or (
                isinstance(value, np.ndarray) and value.ndim == 0) else []
            for scalar in scalars:
                shown = {f"{float(scalar):.4g}", f"{float(scalar):g}", f"{float(scalar):.3f}"}
                assert not any(f"= {text}" in case.description or f"x = {text}" in case.description
                               for text in shown), (case.id, name, case.description)


def newton_cg_hessian(args) -> np.ndarray:
    """The Hessian of a newton_cg_step case's f at its x, in NumPy (float64), for n up to a few hundred."""
    x = np.asarray(args["x"], np.float64)
    if args["f"] == "quadratic":
        return np.asarray(args["A"], np.float64)
    if args["f"] == "logistic":
        matrix, y = np.asarray(args["B"], np.float64), np.asarray(args["y"], np.float64)
        s = 1.0 / (1.0 + np.exp(y * (matrix @ x)))  # sigmoid(-y B x)
        return matrix.T @ ((s * (1.0 - s))[:, None] * matrix) + args["lam"] * np.eye(len(x))
    hessian = np.diag(np.asarray(args["a"], np.float64))
    if args["f"] == "chain":  # + c D^T diag(sigmoid'(D x)) D, D the first differences
        s = 1.0 / (1.0 + np.exp(-np.diff(x)))
        difference = np.diff(np.eye(len(x)), axis=0)
        hessian = hessian + args["c"] * difference.T @ ((s * (1.0 - s))[:, None] * difference)
    return hessian


def newton_cg_diagonal(args) -> np.ndarray:
    """The diagonal of a chain case's Hessian (n = 100,000): its extremes bound the condition number from below."""
    x, a = np.asarray(args["x"], np.float64), np.asarray(args["a"], np.float64)
    s = 1.0 / (1.0 + np.exp(-np.diff(x)))
    curvature = args["c"] * s * (1.0 - s)
    return a + np.concatenate([[0.0], curvature]) + np.concatenate([curvature, [0.0]])


@pytest.mark.parametrize("seed", SEEDS)
def test_newton_cg_cases_have_the_curvature_and_iters_the_contract_promises(seed):
    """A positive-definite Hessian at x with condition number 100 or more, iters from 1 to 5 below n, n up to
    100,000; the early stops are exact in float32: the first step's r' is exactly zero."""
    exercise = next(e for e in EXERCISES if e.id == "newton_cg_step")
    graded = [case for case in exercise.cases(seed) if case.graded]
    assert {case.args["f"] for case in graded} == {"quadratic", "logistic", "chain", "diagonal"}
    for case in graded:
        args, n = case.args, len(case.args["x"])
        assert 1 <= args["iters"] <= 5 and args["iters"] < n <= 100_000, case.id
        if n > 1000:
            diagonal = newton_cg_diagonal(args)
            assert diagonal.min() > 0 and diagonal.max() / diagonal.min() >= 100, case.id  # Rayleigh quotients
            continue
        eigenvalues = np.linalg.eigvalsh(newton_cg_hessian(args))
        assert eigenvalues[0] > 0 and eigenvalues[-1] / eigenvalues[0] >= 100, (case.id, eigenvalues[[0, -1]])
        if args["f"] == "diagonal":
            a, x, b = (np.asarray(args[k], np.float32) for k in ("a", "x", "b"))
            r = b - a * x
            hd = a * r
            step = np.float32(np.dot(r, r)) / np.float32(np.dot(r, hd))
            assert np.any(r != 0) and np.all(r - step * hd == 0), case.id
