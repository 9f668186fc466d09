"""Scores as people read them: at most two decimals on pages, in text, summaries and messages (as nbgrader shows
them); the contract's JSON and the gradebooks keep four. A capped exercise says why in the line that shows its
points, so that "0 of 6 cases passed" beside 1 / 2 points is no riddle. (Writers only, on hand-made results.)
"""
from __future__ import annotations

import csv
import io
import json

from autograder.model.results import CaseReport, ExerciseResult, Status, SubmissionResult
from autograder.report.class_report import write_class_report
from autograder.report.feedback_text import feedback_text
from autograder.report.feedback_pages import feedback_page, index_page, page_paths
from autograder.report.contract import to_json
from autograder.report.formats import render
from autograder.report.markdown import exercise_markdown
from autograder.report.text import class_table, exercise_text, submission_text

from helpers import Elements

CAPPED = ExerciseResult(
    "per_example_gradients", 1.0, 2.0, Status.PARTIAL, ["per-example-loop"], cap="capped at half: the model runs once "
    "per example", summary="0 of 6 cases passed; 6 more have the right numbers by another method than the one the "
    "exercise asks for: those keep their points, and the exercise is capped at half of its points (1 of 2).",
    cases_total=6)


def result() -> SubmissionResult:
    thirds = ExerciseResult("jacobian", 2 * 5 / 7, 2.0, Status.PARTIAL, ["wrong-value"], summary="5 of 7 cases passed.",
                            cases=[CaseReport("a", "case a", True, "wrong")], cases_passed=5, cases_total=7)
    others = [ExerciseResult(f"e{k}", 2.0 * (k + 1) / 9, 2.0, Status.PARTIAL, [], summary="x") for k in range(3)]
    return SubmissionResult("s/x.ipynb", "ana", "jacobians", [thirds, CAPPED, *others])


def test_people_read_two_decimals_everywhere_and_the_json_and_gradebooks_keep_four():
    submission = result()
    total = submission.score  # 1.4286 + 1 + 0.2222 + 0.4444 + 0.6667
    assert total == 3.7619
    text = submission_text(submission)
    assert "3.76 / 10" in text and "1.43 / 2" in text and "3.7619" not in text and "1.4286" not in text
    assert "3.76 / 10" in class_table([submission])
    page = Elements(feedback_page(submission)).text
    assert "jacobians: 3.76 / 10" in page and "1.43 / 2" in page and "1.4286" not in page
    assert "3.76 / 10" in Elements(index_page([submission], page_paths([submission]))).text
    assert "1.43 / 2" in exercise_markdown(submission.exercises[0])
    assert 'message="partial: 1.43 / 2 points' in render("junit", [submission])
    data = json.loads(to_json([submission]))[0]
    assert data["score"] == 3.7619 and data["exercises"][0]["score"] == 1.4286
    row = next(csv.DictReader(io.StringIO(render("csv", [submission]))))
    assert row["total"] == "3.7619" and row["jacobians:jacobian"] == "1.4286"


def test_a_capped_exercise_says_why_in_the_line_that_shows_its_points():
    line = exercise_text(CAPPED).splitlines()[0]
    assert line.startswith("~ per_example_gradients     1 / 2 (capped at half: the model runs once per example)  "
                           "partial"), line
    page = Elements(feedback_page(SubmissionResult("s/x.ipynb", "ana", "jacobians", [CAPPED]))).text
    assert "1 / 2 (capped at half: the model runs once per example)" in page
    assert "(capped at half: the model runs once per example)" in exercise_markdown(CAPPED).splitlines()[0]
    uncapped = ExerciseResult("jvp", 1.0, 2.0, Status.PARTIAL, [], summary="3 of 6 cases passed.")
    assert "capped" not in exercise_text(uncapped)


def test_the_class_report_shows_two_decimals(tmp_path):
    write_class_report([result()], tmp_path)
    page = Elements((tmp_path / "index.html").read_text(encoding="utf-8")).text
    assert "3.7619" not in page and "1.4286" not in page and "3.76 / 10" in page


LONG = "\n".join([f"the gradient {k} is not close to the reference" + "".join(f"\n  row {r}" for r in range(7))
                  for k in range(4)])


def test_a_long_case_table_folds_after_its_first_rows_in_text_and_on_pages():
    case = CaseReport("a", "case a", True, LONG)
    exercise = ExerciseResult("f", 0.0, 2.0, Status.FAILED, ["wrong-value"], summary="0 of 1 cases passed.",
                              cases=[case])
    text = feedback_text(exercise)
    assert "the gradient 0 is not close" in text and text.count("  row 6") == 1  # the first table, whole
    assert all(f"the gradient {k} is not close" in text for k in range(4))  # every output is named
    assert "(21 more lines of tables folded)" in text
    page = feedback_page(SubmissionResult("s/x.ipynb", "ana", "jacobians", [exercise]))
    details = Elements(page).tags("details")
    assert len(details) == 1 and "<summary>The other outputs (21 more lines of tables folded)</summary>" in page
    short = CaseReport("b", "case b", True, "the value differs\n  row 0")
    assert "<details>" not in feedback_page(SubmissionResult("s", "a", "jacobians", [ExerciseResult(
        "f", 0.0, 2.0, Status.FAILED, [], cases=[short])]))
