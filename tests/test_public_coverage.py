"""Public cases cover every kind of graded check (../shared/CURRICULUM.md, "What earns points").

For every exercise and every mistake model that some graded case tells from the reference (its numbers
differ there), at least one public case tells it too: a student who passes every public check cannot fail
a hidden case for a mistake no public case shows. Measured on the reference's and the mistake models'
real outcomes (one reference run per assignment and seed).
"""
from __future__ import annotations

import numpy as np
import pytest

from autograder.judge.compare import tolerance_for
from autograder.judge.signals import tells_apart
from autograder.pipeline.references import reference_outcomes
from helpers import ASSIGNMENT_IDS, ROOT

pytestmark = pytest.mark.slow

SEEDS = (1, 2026)


@pytest.fixture(scope="module", params=[(a, s) for a in ASSIGNMENT_IDS for s in SEEDS], ids=str)
def reference(request):
    assignment, seed = request.param
    return reference_outcomes(assignment, seed, ROOT / "solutions")


def test_every_mistake_a_hidden_graded_case_tells_a_public_case_tells_too(reference):
    uncovered = []
    for exercise in reference.assignment.exercises:
        cases = reference.cases[exercise.id]
        for k, mistake in enumerate(exercise.mistakes):
            def told(case_index):
                return tells_apart(exercise, cases[case_index], k,
                                   reference.outcome(exercise.id, case_index, f"mistake:{k}"),
                                   reference.outcome(exercise.id, case_index))
            graded = [i for i, case in enumerate(cases) if case.graded and told(i)]
            public = [i for i, case in enumerate(cases) if case.public and told(i)]
            if graded and not public:
                uncovered.append(f"{exercise.id}: {mistake.implementation} ({mistake.pitfall}) is told by "
                                 f"{[cases[i].id for i in graded]} and by no public case")
    assert not uncovered, "\n".join(uncovered)


def test_the_reference_passes_every_case_it_runs(reference):
    assert not reference.problems(), reference.problems()


@pytest.mark.parametrize("reference", [("higher_order", seed) for seed in SEEDS], indirect=True, ids=str)
def test_one_cg_step_more_or_fewer_gives_clearly_other_numbers_on_every_graded_case(reference):
    """newton_cg_step's contract line: the graded Hessians make one step more or fewer clearly different (ten
    times the tolerance at least), n = 100,000 included; only the early stops, where the other steps leave p
    as it is, give the same numbers."""
    exercise = reference.assignment.exercise("newton_cg_step")
    cases = reference.cases[exercise.id]
    for k, mistake in enumerate(exercise.mistakes):
        if mistake.implementation not in ("cg_one_step_more", "cg_one_step_fewer"):
            continue
        for i, case in enumerate(cases):
            if not case.graded:
                continue
            (name, expected), = reference.outcome(exercise.id, i).outputs.items()
            obtained = reference.outcome(exercise.id, i, f"mistake:{k}").outputs[name]
            rtol, atol = tolerance_for(expected.array, *exercise.tolerance(case))
            with np.errstate(invalid="ignore"):
                ratio = np.max(np.abs(obtained.array - expected.array) / (atol + rtol * np.abs(expected.array)))
            if case.args["f"] == "diagonal":
                assert ratio <= 1, (case.id, mistake.implementation, ratio)
            else:
                assert ratio >= 10, (case.id, mistake.implementation, ratio)


@pytest.mark.parametrize("reference", [("implicit", seed) for seed in SEEDS], indirect=True, ids=str)
def test_the_unrolled_fixed_point_gradient_differs_after_few_iterations_and_agrees_near_the_fixed_point(reference):
    """fixed_point's contract line: "Graded cases include few iterations, where the returned x is not yet the fixed
    point and the gradient through the iterations differs from the implicit one" (ten times the tolerance at
    least); with many iterations (50 or more) the two agree, so that the cases tell exactly that mistake."""
    exercise = reference.assignment.exercise("fixed_point")
    k = next(k for k, mistake in enumerate(exercise.mistakes) if mistake.pitfall == "unrolled-solver")
    cases = reference.cases[exercise.id]
    for i, case in enumerate(cases):
        if not case.graded or case.has("scale"):
            continue
        expected = reference.outcome(exercise.id, i).outputs["gradient"]
        obtained = reference.outcome(exercise.id, i, f"mistake:{k}").outputs["gradient"]
        rtol, atol = tolerance_for(expected.array, *exercise.tolerance(case))
        ratio = np.max(np.abs(obtained.array - expected.array) / (atol + rtol * np.abs(expected.array)))
        if case.args["iters"] <= 6:
            assert ratio >= 10, (case.id, ratio)
        else:
            assert case.args["iters"] >= 50 and ratio <= 1, (case.id, ratio)
