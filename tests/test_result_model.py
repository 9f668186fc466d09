"""The result model and its renderings, without grading anything: structure in, the contract's text out.

The feedback string is the contract's (it is in the JSON); these tests pin its layout line by line, so a
writer that renders the same structure (HTML pages, Gradescope) never needs to parse it.
"""
from __future__ import annotations

import json

from autograder.model.results import (STATUSES, CaseReport, Explanation, ExerciseResult, Status, SubmissionResult,
                                      Where, from_contract, from_data, to_data)
from autograder.report.contract import submission_json, to_json
from autograder.report.feedback_text import feedback_text
from autograder.report.numbers import exact, number
from autograder.report.text import exercise_text

WHERE = Where("cell 7, line 4", cell=7, line=4, code="g = inner.gradient(y, x)",
              detail="the block ends on line 3, before this call", excerpt=((3, "    y = f(x)"), (4, "g = ...")))


def partial() -> ExerciseResult:
    return ExerciseResult(
        "derivatives", 1.3333, 2.0, Status.PARTIAL, ["tape-outside-context"],
        summary="4 of 6 cases passed.",
        notes=["`derivatives` takes (g, x) but the exercise asks for `derivatives(f, x)`."],
        explanations=[Explanation("tape-outside-context", "the inner gradient is computed outside", "move it inside",
                                  WHERE)],
        cases=[CaseReport("f32-cube", "float32 Tensor x = 3", True, "d2y/dx2 is None\n  expected 18"),
               CaseReport("f64-random", "float64 Tensor x", False, "d2y/dx2 is None")],
        more_failing=1, cases_passed=4, cases_total=6)


def test_the_feedback_text_is_laid_out_as_the_contract_shows_it():
    assert feedback_text(partial()).splitlines() == [
        "4 of 6 cases passed.",
        "`derivatives` takes (g, x) but the exercise asks for `derivatives(f, x)`.",
        "[tape-outside-context] The inner gradient is computed outside.",
        "  Where: cell 7, line 4: `g = inner.gradient(y, x)`",
        "    the block ends on line 3, before this call",
        "  Fix: move it inside.",
        "Case float32 Tensor x = 3:",
        "    d2y/dx2 is None",
        "      expected 18",
        "Hidden case float64 Tensor x (its values are not shown):",
        "    d2y/dx2 is None",
        "(1 more failing case not shown)",
    ]


def test_an_explanation_without_a_place_and_a_not_implemented_exercise():
    plain = ExerciseResult("jvp", 0.0, 2.0, Status.FAILED, ["summed-gradient"], summary="0 of 2 cases passed.",
                           explanations=[Explanation("summed-gradient", "you summed", "use the Jacobian")],
                           more_failing=2)
    assert feedback_text(plain) == ("0 of 2 cases passed.\n[summed-gradient] You summed.\n  Fix: use the Jacobian.\n"
                                    "(2 more failing cases not shown)")
    stub = ExerciseResult("jvp", 0.0, 2.0, Status.NOT_IMPLEMENTED, ["not-implemented"], summary="`jvp` still raises.",
                          notes=["never shown for a stub"])
    assert feedback_text(stub) == "`jvp` still raises."


def test_the_contract_json_has_exactly_its_keys_and_rounds_the_score():
    result = SubmissionResult("s/a.ipynb", "a", "higher_order", [partial(), ExerciseResult("x", 2.0, 2.0, "passed")])
    data = submission_json(result)
    assert list(data) == ["submission", "student", "assignment", "score", "max_score", "exercises"]
    assert list(data["exercises"][0]) == ["id", "score", "max_score", "status", "pitfalls", "feedback"]
    assert data["score"] == 3.3333 and data["max_score"] == 4.0 and data["exercises"][1]["status"] == "passed"
    assert json.loads(to_json([result]))[0] == data


def test_every_status_is_one_enum_with_the_contracts_names():
    assert STATUSES == ("passed", "partial", "failed", "error", "timeout", "missing", "not-implemented")
    assert ExerciseResult("x", 0, 2, "timeout").status is Status.TIMEOUT  # strings are taken as the enum
    assert json.dumps([Status.MISSING]) == '["missing"]' and f"{Status.ERROR}" == "error"


def test_the_stores_keep_the_whole_structure():
    result = SubmissionResult("s/a.ipynb", "a", "higher_order", [partial()], seconds=2.5, notes=["cell 3 raised"])
    again = from_data(json.loads(json.dumps(to_data(result))))
    assert again == result and again.exercises[0].explanations[0].where.excerpt == WHERE.excerpt
    assert from_data({"submission": "x"}) is None and from_data([1]) is None


def test_a_result_read_from_the_contract_json_keeps_its_text_as_given():
    original = SubmissionResult("s/a.ipynb", "a", "higher_order", [partial()])
    read = from_contract(json.loads(to_json([original]))[0])
    assert read.exercises[0].text == feedback_text(partial()) and read.exercises[0].explanations == []
    assert submission_json(read) == submission_json(original)  # merge writes what the shards wrote
    assert from_contract({"submission": "x", "student": "y"}) is None


def test_points_are_written_one_way_everywhere():
    assert [number(v) for v in (10.0, 9.33333, 0.5, -0.0, 1e-9, 2.00004)] == ["10", "9.33", "0.5", "0", "0", "2"]
    assert [exact(v) for v in (10.0, 9.33333, 0.5, -0.0, 1e-9, 2.00004)] == ["10", "9.3333", "0.5", "0", "0", "2"]
    assert exercise_text(partial()).splitlines()[0] == "~ derivatives  1.33 / 2  partial  [tape-outside-context]"
    assert exercise_text(ExerciseResult("x", 2, 2, "passed", summary="All 3 cases passed.")) == "✓ x     2 / 2  passed"
