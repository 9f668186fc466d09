"""Text reports: the class table keeps one row per submission even when names collide."""
from __future__ import annotations

from autograder.report.text import class_table, submission_text
from autograder.model.results import ExerciseResult, SubmissionResult


def result(path: str, student: str, score: float, pitfalls=()) -> SubmissionResult:
    return SubmissionResult(path, student, "custom_gradients", [
        ExerciseResult("log1pexp", score, 2.0, "passed" if score == 2.0 else "failed", list(pitfalls),
                       "feedback line one\nline two")])


def test_class_table_has_a_row_per_student_and_counts_pitfalls():
    table = class_table([result("a/ada.py", "ada", 2.0), result("b/bo.py", "bo", 0.0, ["wrong-value"])], seed=4)
    assert "seed 4" in table and "ada" in table and "bo" in table
    assert "2 / 2" in table and "0 / 2" in table
    assert "wrong-value" in table.split("Pitfalls across the class")[1]


def test_two_submissions_with_one_name_get_two_rows():
    table = class_table([result("v1/x.ipynb", "x", 2.0), result("v2/x.ipynb", "x", 0.0)])
    assert "v1/x.ipynb" in table and "v2/x.ipynb" in table


def test_submission_text_indents_feedback_under_failed_exercises_only():
    text = submission_text(result("bo.py", "bo", 0.0, ["wrong-value"]))
    assert "✗ log1pexp" in text and "[wrong-value]" in text
    assert "      feedback line one\n      line two" in text
    assert "feedback" not in submission_text(result("ada.py", "ada", 2.0))
