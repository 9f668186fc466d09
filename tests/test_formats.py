"""Writers for Gradescope, JUnit and CSV, read back with real parsers (the platforms' own: test_platforms).

One real grading run (three custom_gradients notebooks, seed 1) feeds the writers; the CLI
is exercised through `autograder merge RESULTS.json --format junit|csv` (no regrading) and
one `grade` run for --format gradescope and --fail-under.
"""
from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from junitparser import Error, Failure, JUnitXml, Skipped, SystemErr

from autograder.report import formats
from autograder.store.merge import merge_results
from autograder.model.results import ExerciseResult, SubmissionResult
from helpers import ROOT, check_gradescope, run_autograder

SEED = "1"
STUDENTS = ("ada", "bram", "greta")
NOTEBOOKS = {s: ROOT / "examples" / "submitted" / s / "custom_gradients" / "custom_gradients.ipynb" for s in STUDENTS}


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> Path:
    """`autograder grade ... --format json --seed 1`, run once for the whole module.

    With --fail-under 8: greta scores exactly 8, which is not below, so the run exits 0.
    """
    output = tmp_path_factory.mktemp("formats") / "results.json"
    done = run_autograder("grade", *map(str, NOTEBOOKS.values()), "--format", "json", "--seed", SEED,
                          "--output", str(output), "--fail-under", "8")
    assert done.returncode == 0, done.stderr[-3000:]
    return output


@pytest.fixture(scope="module")
def contract(graded) -> dict[str, dict]:
    return {item["student"]: item for item in json.loads(graded.read_text())}


@pytest.fixture(scope="module")
def results(graded) -> dict[str, SubmissionResult]:
    return {r.student: r for r in merge_results([graded])}


# --------------------------------------------------------------------------- Gradescope

@pytest.mark.slow  # starts a grader
def test_gradescope_results_follow_the_spec_and_the_contract(results, contract):
    for student in STUDENTS:
        data = formats.gradescope_results(results[student], seed=1)
        check_gradescope(data)
        assert data["score"] == contract[student]["score"]
        assert [t["name"] for t in data["tests"]] == [e["id"] for e in contract[student]["exercises"]]
        assert [t["score"] for t in data["tests"]] == [e["score"] for e in contract[student]["exercises"]]
        # Students read results.json: the seed of the hidden cases is never in it.
        assert "seed" not in data["extra_data"] and not re.search(r"seed\W*\d", json.dumps(data))
    bram = {t["name"]: t for t in formats.gradescope_results(results["bram"])["tests"]}
    assert bram["log1pexp"]["status"] == "failed" and 0 < bram["log1pexp"]["score"] < 2
    assert bram["log1pexp"]["tags"] == ["unstable-gradient", "unstable-value"]
    assert "partial" in bram["log1pexp"]["output"] and "overflows" in bram["log1pexp"]["output"]
    assert bram["td_loss"]["status"] == "passed"
    hidden = formats.gradescope_results(results["greta"], visibility="after_due_date")
    assert {t["visibility"] for t in hidden["tests"]} == {"after_due_date"} == {hidden["visibility"]}
    with pytest.raises(ValueError):
        formats.gradescope_results(results["greta"], visibility="sometimes")


@pytest.mark.slow  # starts a grader
def test_grade_format_gradescope_writes_one_results_json_and_fail_under_exits_1(contract, tmp_path):
    """Through the CLI: greta's 8 points are below --fail-under 9: exit status 1, and the report is written."""
    output = tmp_path / "results.json"
    done = run_autograder("grade", str(NOTEBOOKS["greta"]), "--format", "gradescope", "--seed", SEED,
                          "--output", str(output), "--fail-under", "9")
    assert done.returncode == 1, done.stderr[-3000:]
    assert f"1 submission scored below --fail-under 9: {NOTEBOOKS['greta']} (8)" in done.stderr
    data = json.loads(output.read_text())
    check_gradescope(data)
    assert data["score"] == contract["greta"]["score"] == 8
    assert "seed" not in data["extra_data"] and data["extra_data"]["student"] == "greta"


def test_grade_format_gradescope_refuses_several_submissions_before_grading():
    done = run_autograder("grade", str(NOTEBOOKS["ada"]), str(NOTEBOOKS["bram"]), "--format", "gradescope",
                          timeout=120)
    assert done.returncode == 2
    assert "one submission" in done.stderr and "2 submissions" in done.stderr and done.stdout == ""


# --------------------------------------------------------------------------- JUnit

@pytest.mark.slow  # starts a grader
def test_junit_reads_back_with_junitparser(graded, contract, tmp_path):
    output = tmp_path / "results.xml"
    done = run_autograder("merge", str(graded), "--format", "junit", "--output", str(output), timeout=120)
    assert done.returncode == 0, done.stderr
    xml = JUnitXml.fromfile(str(output))
    suites = {suite.name: suite for suite in xml}
    assert sorted(suites) == sorted(contract[s]["submission"] for s in STUDENTS)
    assert xml.tests == 18  # 3 students, 6 exercises
    for student in STUDENTS:
        suite = suites[contract[student]["submission"]]
        properties = {p.name: p.value for p in suite.properties()}
        assert properties["student"] == student and properties["assignment"] == "custom_gradients"
        assert float(properties["score"]) == contract[student]["score"]
        cases = {case.name: case for case in suite}
        assert list(cases) == [e["id"] for e in contract[student]["exercises"]]
        assert {case.classname for case in suite} == {f"{student}/custom_gradients"}
        failed = [e for e in contract[student]["exercises"] if e["status"] != "passed"]
        assert suite.tests == 6 and suite.failures == len(failed) and suite.errors == 0 and suite.skipped == 0
        for exercise in contract[student]["exercises"]:
            case = cases[exercise["id"]]
            assert case.is_passed == (exercise["status"] == "passed")
            if exercise["status"] != "passed":
                [failure] = case.result
                assert isinstance(failure, Failure) and failure.type == exercise["status"]
                assert f"{formats.number(exercise['score'])} / 2 points" in failure.message
                assert all(pitfall in failure.message for pitfall in exercise["pitfalls"])
                assert failure.text.strip() == exercise["feedback"].strip()
    assert suites[contract["greta"]["submission"]].failures == 2  # checkpointed and safe_norm: not-implemented


def test_junit_errors_timeouts_unknown_assignments_and_control_characters(tmp_path):
    feedback = "student printed \x1b[31mred\x1b[0m and a NUL \x00 <tag> & \"quotes\""
    results = [
        SubmissionResult("s/x.ipynb", "x", "higher_order", [
            ExerciseResult("derivatives", 0.0, 2.0, "error", ["non-persistent-tape"], feedback),
            ExerciseResult("newton_step", 0.0, 2.0, "timeout", [], "took longer than 20 s"),
            ExerciseResult("jvp", 0.0, 2.0, "missing", [], "`jvp` is not defined"),
            ExerciseResult("hessian", 2.0, 2.0, "passed")], seconds=1.5, notes=["cell 3 raised ValueError"]),
        SubmissionResult("s/odd.py", "odd", "unknown", [], notes=["cannot tell which assignment this is"]),
    ]
    path = tmp_path / "x.xml"
    path.write_text(formats.to_junit(results, seed=7), encoding="utf-8")
    xml = JUnitXml.fromfile(str(path))
    first, second = list(xml)
    assert (first.tests, first.failures, first.errors, first.skipped) == (4, 1, 2, 0)
    cases = {case.name: case for case in first}
    assert isinstance(cases["derivatives"].result[0], Error)
    text = cases["derivatives"].result[0].text
    assert "\\x1b[31mred" in text and "\\x00" in text and "<tag> & \"quotes\"" in text
    assert isinstance(cases["newton_step"].result[0], Error) and cases["newton_step"].result[0].type == "timeout"
    assert isinstance(cases["jvp"].result[0], Failure) and cases["jvp"].result[0].type == "missing"
    assert cases["hessian"].is_passed and "2 / 2" in cases["hessian"].system_out
    assert not any(isinstance(r, Skipped) for case in first for r in case.result)
    assert "cell 3 raised" in first.child(SystemErr).text
    assert {p.name: p.value for p in first.properties()}["seed"] == "7"
    [unknown] = list(second)
    assert second.errors == 1 and "cannot tell which assignment" in unknown.result[0].text


# --------------------------------------------------------------------------- CSV

@pytest.mark.slow  # starts a grader
def test_csv_gradebook_reads_back_with_dictreader(graded, contract, tmp_path):
    output = tmp_path / "gradebook.csv"
    done = run_autograder("merge", str(graded), "--format", "csv", "--output", str(output), timeout=120)
    assert done.returncode == 0, done.stderr
    with output.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        rows = {row["student"]: row for row in reader}
        columns = reader.fieldnames
    exercises = [e["id"] for e in contract["ada"]["exercises"]]
    assert columns == ["student", *(f"custom_gradients:{e}" for e in exercises), "custom_gradients", "total",
                       "max_score"]
    assert sorted(rows) == sorted(STUDENTS)
    for student in STUDENTS:
        row = rows[student]
        for exercise in contract[student]["exercises"]:
            assert float(row[f"custom_gradients:{exercise['id']}"]) == exercise["score"]
        assert float(row["custom_gradients"]) == float(row["total"]) == contract[student]["score"]
        assert float(row["max_score"]) == contract[student]["max_score"] == 12


def test_csv_is_wide_with_empty_cells_for_missing_assignments():
    def one(student, assignment, score, submission=None):
        return SubmissionResult(submission or f"{student}/{assignment}.ipynb", student, assignment,
                                [ExerciseResult("a" if assignment == "jacobians" else "b", score, 2.0, "partial")])
    text = formats.to_csv([one("zoe", "jacobians", 1.5), one("zoe", "custom_gradients", 2.0),
                           one("max", "custom_gradients", 0.25), one("=cmd", "jacobians", 2.0),
                           one("max", "jacobians", 1.0, "v1/max.ipynb"), one("max", "jacobians", 2.0, "v2/max.ipynb")])
    reader = csv.DictReader(io.StringIO(text))
    rows = {row["student"]: row for row in reader}
    assert reader.fieldnames == ["student", "custom_gradients:b", "custom_gradients", "jacobians:a", "jacobians",
                                 "total", "max_score"]  # the contract's order of assignments
    assert (rows["zoe"]["custom_gradients"], rows["zoe"]["jacobians"], rows["zoe"]["total"]) == ("2", "1.5", "3.5")
    assert rows["'=cmd"]["custom_gradients"] == "" and rows["'=cmd"]["total"] == "2"  # not submitted: empty, counts 0
    assert rows["max"]["custom_gradients"] == "0.25" and rows["max"]["jacobians"] == ""
    assert rows["v1/max.ipynb"]["jacobians"] == "1" and rows["v2/max.ipynb"]["jacobians"] == "2"  # two submissions
    assert {row["max_score"] for row in rows.values()} == {"4"}
