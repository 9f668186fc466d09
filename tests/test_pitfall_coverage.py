"""Every pitfall the contract lists is proven by at least one realistic wrong submission in the tests."""
from __future__ import annotations

import importlib

from autograder.model.pitfalls import PITFALL_IDS as PITFALLS

MODULES = ("test_grading_custom_gradients", "test_grading_higher_order", "test_grading_jacobians")


def pitfalls_in(value) -> set[str]:
    if isinstance(value, str):
        return {value} & set(PITFALLS)
    if isinstance(value, (list, tuple, set, frozenset)):
        return set().union(*(pitfalls_in(item) for item in value)) if value else set()
    return set()


def test_every_contract_pitfall_has_a_wrong_submission_that_gets_it_named():
    proven: set[str] = set()
    for name in MODULES:
        table = importlib.import_module(name).WRONG
        for file, expectation in table.items():
            assert file.startswith("bad_")
            proven |= pitfalls_in(expectation)
    assert set(PITFALLS) - proven == set()


def test_the_grader_knows_exactly_the_contract_pitfalls():
    contract = {  # ../shared/CURRICULUM.md, "Pitfall ids"
        "tape-outside-context", "unwatched-tensor", "gradient-cut", "non-persistent-tape", "unstable-gradient",
        "unstable-value", "ignores-upstream", "no-custom-gradient", "missing-stop-gradient", "clips-value",
        "no-gradient", "not-recomputed", "wrong-norm-axis", "full-jacobian", "transposed", "summed-gradient",
        "pfor-unsupported", "materialized-hessian", "materialized-jacobian", "not-implemented", "wrong-value",
    }
    assert set(PITFALLS) == contract
