"""The implicit assignment's cases keep the contract's promises (../shared/CURRICULUM.md, "Assignment `implicit`"),
checked in NumPy from the cases' own data, for several seeds, without running anything of TensorFlow.

- root_solve: every graded case converges to float32 precision within `iters` (there, differentiating through the
  Newton steps gives the implicit gradient's numbers), with dF/dx away from 0; the advisory case has not converged;
- implicit_solve: A invertible with condition number at most 100, not symmetric unless the case says so;
- fixed_point: a contraction (spectral norm of df/dx at most 0.9 everywhere), df/dx not symmetric, iters from 1 to
  500, and both kinds of case present: few iterations and near the fixed point;
- argmin_gradient: Hessians at w* of condition number at most 50, and CG, run in float32 as the contract writes it,
  reaches float32 precision within `cg_iters` while r.r stays far from float32's underflow (where d.Hd would be 0
  and the next step divide by it).
"""
from __future__ import annotations

import numpy as np
import pytest

from autograder.course import assignment_by_id
from autograder.course.implicit.callables import argmin_numpy, hessian_product

ASSIGNMENT = assignment_by_id("implicit")
SEEDS = (0, 1, 11, 2026)


def cases(exercise_id: str, seed: int, graded: bool = True):
    return [c for c in ASSIGNMENT.exercise(exercise_id).cases(seed) if c.graded == graded]


def newton_step(args, x, theta):
    """One Newton step of a root_solve case's F, in the dtype of x (the partials written out)."""
    name = args["F"]
    if name == "kepler":
        e = x.dtype.type(args["e"])
        value, slope = x - e * np.sin(x) - theta, 1 - e * np.cos(x)
    elif name == "cubic":
        value, slope = x ** 3 + np.exp(theta) * x - args["c"], 3 * x ** 2 + np.exp(theta)
    elif name == "sqrt":
        value, slope = x * x - theta, 2 * x
    else:
        value, slope = args["a"] * x - np.tanh(theta), args["a"]
    return x - value / slope, slope


@pytest.mark.parametrize("seed", SEEDS)
def test_root_solve_cases_converge_within_iters_with_a_slope_away_from_zero(seed):
    for case in cases("root_solve", seed) + cases("root_solve", seed, graded=False):
        args = case.args
        x, theta = np.array(args["x0"]), np.array(args["theta"])
        for _ in range(args["iters"]):
            x, _ = newton_step(args, x, theta)
        further = x
        for _ in range(5):
            further, slope = newton_step(args, further, theta)
        change = np.max(np.abs(further - x) / np.maximum(1.0, np.abs(x)))
        if case.graded or case.dtype == "float64":
            assert change <= 1e-5 and np.min(np.abs(slope)) >= 0.1, (case.id, change)
        else:  # the advisory case that shows what unrolling gives before convergence
            assert change >= 1e-2, (case.id, change)


def condition_bound(A: np.ndarray) -> float:
    """The condition number for small A; for large ones (a diagonal plus noise E: an SVD of 1,000 x 1,000 takes
    seconds on a loaded machine) the bound (max |d| + |E|) / (min |d| - |E|), |E| from 60 power iterations
    plus 10 %."""
    if len(A) <= 100:
        return float(np.linalg.cond(A))
    diagonal = np.diag(A)
    noise = A - np.diag(diagonal)
    v = np.random.default_rng(0).normal(size=len(A))
    for _ in range(60):
        v = noise.T @ (noise @ v)
        v /= np.linalg.norm(v)
    norm = 1.1 * np.linalg.norm(noise @ v)
    low = np.min(np.abs(diagonal)) - norm
    return float((np.max(np.abs(diagonal)) + norm) / low) if low > 0 else float("inf")


@pytest.mark.parametrize("seed", SEEDS)
def test_implicit_solve_cases_are_invertible_and_not_symmetric_unless_said(seed):
    for case in cases("implicit_solve", seed):
        A = np.asarray(case.args["A"], np.float64)
        n = len(A)
        assert n <= 1000 and condition_bound(A) <= 100, case.id
        symmetric = np.allclose(A, A.T, rtol=1e-6, atol=1e-6)
        assert symmetric == ("symmetric" in case.id and "not symmetric" not in case.description), case.id
        assert symmetric or np.linalg.norm(A - A.T) >= 0.5, case.id  # Frobenius: no SVD of 1,000 x 1,000


def fixed_point_bound(args) -> float:
    """An upper bound of the spectral norm of df/dx over every x (sech^2 <= 1)."""
    if args["f"] == "deq":
        return float(args["rho"]) * np.linalg.norm(np.asarray(args["W"], np.float64), 2)
    if args["f"] == "affine":
        return np.linalg.norm(np.asarray(args["M"], np.float64), 2)
    return float(np.max(args["a"]) + np.max(args["cc"]))


@pytest.mark.parametrize("seed", SEEDS)
def test_fixed_point_cases_are_contractions_with_few_and_many_iterations(seed):
    graded = cases("fixed_point", seed)
    for case in graded:
        args = case.args
        assert fixed_point_bound(args) <= 0.9 + 1e-6, case.id
        assert 1 <= args["iters"] <= 500 and len(args["x0"]) <= 100_000 and len(args["theta"]) <= 100, case.id
        if args["f"] != "chain":  # chain: the shift makes df/dx lower-triangular plus a corner, never symmetric
            matrix = np.asarray(args["W"] if args["f"] == "deq" else args["M"], np.float64)
            assert not np.allclose(matrix, matrix.T, atol=1e-3), case.id
    iterations = [case.args["iters"] for case in graded]
    assert min(iterations) <= 6 and max(iterations) >= 150, iterations


def float32_cg(product, b: np.ndarray, steps: int) -> tuple[float, float]:
    """The contract's CG in float32 (stopping once r.r is 0): (final relative residual |b - H v| / |b|, the
    smallest r.r it met)."""
    v, r = np.zeros_like(b), b.copy()
    d, rr = r.copy(), np.float32(np.sum(r * r))
    smallest = rr
    for _ in range(steps):
        if rr == 0:
            break
        hd = product(d).astype(np.float32)
        a = rr / np.float32(np.sum(d * hd))
        v, r = v + a * d, r - a * hd
        rr_new = np.float32(np.sum(r * r))
        d = r + (rr_new / rr) * d
        rr = rr_new
        smallest = min(smallest, rr)
    residual = b.astype(np.float64) - product(v.astype(np.float64))
    return float(np.linalg.norm(residual) / np.linalg.norm(b)), float(smallest)


@pytest.mark.parametrize("seed", SEEDS)
def test_argmin_cases_have_the_curvature_and_cg_steps_the_contract_promises(seed):
    for case in cases("argmin_gradient", seed):
        args = case.args
        theta = np.asarray(args["theta"], np.float64)
        n = len(args["a"]) if args["g"] == "chain" else np.asarray(args["X"]).shape[1]
        assert len(theta) <= 10 and n <= 100_000 and 10 <= args["cg_iters"] <= 100, case.id
        if args["g"] == "chain":  # Gershgorin: the Hessian's eigenvalues lie in [min diagonal, max diagonal + 4c]
            diagonal = np.asarray(args["a"], np.float64) + np.exp(theta)[np.arange(n) % len(theta)]
            assert (diagonal.max() + 4 * args["c"]) / diagonal.min() <= 50, case.id
        else:
            product = hessian_product(args, theta, argmin_numpy(args, theta))
            eigenvalues = np.linalg.eigvalsh(np.column_stack([product(e) for e in np.eye(n)]))
            assert eigenvalues[0] > 0 and eigenvalues[-1] / eigenvalues[0] <= 50, case.id
        product = hessian_product(args, theta)
        residual, smallest = float32_cg(product, np.asarray(args["upstream"], np.float32), args["cg_iters"])
        assert residual <= 1e-5 and smallest >= 1e-30, (case.id, residual, smallest)
