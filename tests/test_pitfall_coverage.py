"""The grader knows exactly the pitfalls the contract lists (each is proven by a wrong submission: test_submissions)."""
from __future__ import annotations

from autograder.model.pitfalls import PITFALL_IDS as PITFALLS


def test_the_grader_knows_exactly_the_contract_pitfalls():
    contract = {  # ../shared/CURRICULUM.md, "Pitfall ids"
        "tape-outside-context", "unwatched-tensor", "gradient-cut", "non-persistent-tape", "unstable-gradient",
        "unstable-value", "nan-at-zero", "ignores-upstream", "no-custom-gradient", "missing-stop-gradient", "clips-value",
        "no-gradient", "not-recomputed", "swapped-interpolation", "wrong-norm-axis", "full-jacobian", "transposed", "summed-gradient",
        "pfor-unsupported", "materialized-hessian", "materialized-jacobian", "per-example-loop",
        "unrolled-solver", "one-step-gradient", "adjoint-not-transposed", "sign-error", "watched-keras-variable",
        "not-implemented", "wrong-value",
    }
    assert set(PITFALLS) == contract
