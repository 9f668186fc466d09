"""Each assignment's corpus of submissions, graded for real: correct code in other styles passes clean, every
mistake is named and costs points.

tests/submissions/<assignment>/ holds one file per style or mistake, and expected.yaml says what the grader
must answer for each (the exact status and pitfalls of the exercises it is about, and the status of the
others). One real `autograder grade` run per assignment (seed 11), then one test per file.
"""
from __future__ import annotations

import re

import pytest
import yaml

from autograder.course import assignment_by_id
from helpers import ASSIGNMENT_IDS, ROOT, by_file, exercise, grade_json

pytestmark = pytest.mark.slow

CORPUS = ROOT / "tests" / "submissions"
NAMED_IN_TEXT_ONLY = {"wrong-value", "not-implemented"}  # named in the list; the text says it its own way


def expectations(assignment: str) -> dict:
    return yaml.safe_load((CORPUS / assignment / "expected.yaml").read_text(encoding="utf-8"))


def expected_files() -> list[tuple[str, str]]:
    return [(a, name) for a in ASSIGNMENT_IDS for name in sorted(expectations(a)["files"])]


@pytest.fixture(scope="module")
def graded() -> dict[str, dict[str, dict]]:
    return {a: by_file(grade_json(f"tests/submissions/{a}", "--assignment", a, "--seed", "11", cwd=ROOT))
            for a in ASSIGNMENT_IDS}


def parse(expected: str) -> tuple[str, list[str]]:
    status, *pitfalls = expected.split()
    return status, pitfalls


@pytest.mark.parametrize("assignment", ASSIGNMENT_IDS)
def test_every_file_of_the_corpus_has_its_expectation(graded, assignment):
    on_disk = {p.name for p in (CORPUS / assignment).iterdir() if p.suffix in (".py", ".ipynb")}
    assert on_disk == set(expectations(assignment)["files"]) == set(graded[assignment])


@pytest.mark.parametrize("assignment,name", expected_files())
def test_the_grader_says_what_is_expected(graded, assignment, name):
    spec = expectations(assignment)
    listed = spec["files"][name]
    result = graded[assignment][name]
    for item in result["exercises"]:
        if item["id"] in listed:
            status, pitfalls = parse(listed[item["id"]])
            assert (item["status"], item["pitfalls"]) == (status, pitfalls), item["feedback"]
            if name.startswith("ok_"):
                assert item["score"] == item["max_score"], item["feedback"]
            else:
                assert item["score"] < item["max_score"], item["feedback"]
                for pitfall in set(pitfalls) - NAMED_IN_TEXT_ONLY:
                    assert f"[{pitfall}]" in item["feedback"], item["feedback"]
        else:
            assert item["status"] == spec["others"], (item["id"], item["feedback"])
            if spec["others"] == "passed":
                assert item["score"] == item["max_score"] and item["pitfalls"] == [], (item["id"], item["feedback"])


@pytest.mark.parametrize("assignment", ASSIGNMENT_IDS)
def test_every_exercise_has_two_correct_alternatives(assignment):
    files = expectations(assignment)["files"]
    for item in assignment_by_id(assignment).exercises:
        correct = [n for n, listed in files.items() if n.startswith("ok_") and listed.get(item.id) == "passed"]
        assert len(correct) >= 2, item.id


def test_every_pitfall_of_the_catalogue_is_proven_by_a_wrong_submission():
    from autograder.model.pitfalls import PITFALL_IDS

    proven = {pitfall for a in ASSIGNMENT_IDS for name, listed in expectations(a)["files"].items()
              if name.startswith("bad_") for expected in listed.values() for pitfall in parse(expected)[1]}
    assert set(PITFALL_IDS) - proven == set()


def test_a_materialised_hessian_is_caught_at_scale_only(graded):
    for name, exercise_id, scale_cases in (
            ("bad_hessian_vector_product_materialized-hessian.py", "hessian_vector_product", 1),
            ("bad_newton_cg_step_materialized-hessian.py", "newton_cg_step", 2)):  # the public one and a hidden one
        feedback = exercise(graded["higher_order"][name], exercise_id)["feedback"]
        passed, total = map(int, re.match(r"(\d+) of (\d+) cases passed", feedback).groups())
        assert "100000" in feedback and passed == total - scale_cases, feedback


def test_tape_outside_context_says_where(graded):
    for name, exercise_id, line in (
            ("bad_derivatives_tape-outside-context.py", "derivatives", "dy_dx = inner.gradient(y, x)"),
            ("bad_critic_gradients_tape-outside-context.py", "critic_gradients",
             "penalty = gradient_penalty(critic, real, fake, alpha)"),
            ("bad_newton_cg_step_tape-outside-context.py", "newton_cg_step", "g_dot_d = tf.reduce_sum(g * d)"),
            ("bad_newton_cg_step_tape-outside-context_zeros.py", "newton_cg_step",
             "g = inner.gradient(y, x, unconnected_gradients=zero)")):
        feedback = exercise(graded["higher_order"][name], exercise_id)["feedback"]
        assert "Where:" in feedback and line in feedback, feedback
