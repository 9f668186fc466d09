"""The kit as a real nbgrader course: nbgrader's own commands grade the example class through the kit.

A course is built in a temporary folder from the repository's solutions and
nbgrader_config.py; `nbgrader generate_assignment`, `nbgrader autograde` and
`nbgrader generate_feedback` run for real, with the example class placed under
submitted/. As an instructor would, the class is first graded with the CLI
(same seed), all but two students, and the graded cells reuse those grades;
the two others' graded cells grade their notebooks themselves. Every grade
nbgrader records must equal the CLI's for the same notebook and seed, and no
student-facing output may show a hidden case.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

from autograder.store.reference_cache import reference_key
from autograder.store.result_store import ResultStore
from autograder.course import assignment_by_id
from autograder.load.program import program_digest
from autograder.load.cells import read_submission
from autograder.config import Limits
from helpers import ASSIGNMENT_IDS, ROOT, grade_json, keyed_entry, quiet_env

pytestmark = pytest.mark.slow
SEED = 20261129
EXAMPLES = ROOT / "examples" / "submitted"
NOT_GRADED_BEFORE = ("ada", "bram")  # their graded cells grade the notebooks themselves
LONG_AGO = 1_000_000_000  # kept grades are dated back to 2001: a read brings the date to now
MARK = 4242.0  # and their "seconds" set to this: a graded cell's own run would write its own seconds


def cache_of(course: Path) -> Path:
    return course / "autograder-cache"


def nbgrader(course: Path, *args: str, timeout: float = 3600) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, capture_output=True, text=True,
                          env=quiet_env(AUTOGRADER_SEED=str(SEED), AUTOGRADER_CACHE=str(cache_of(course))),
                          timeout=timeout)
    assert done.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    course = tmp_path_factory.mktemp("course")
    shutil.copytree(ROOT / "solutions", course / "solutions")
    shutil.copy(ROOT / "nbgrader_config.py", course)
    shutil.copytree(EXAMPLES, course / "submitted")
    for assignment in ASSIGNMENT_IDS:
        nbgrader(course, "generate_assignment", assignment, "--force")
    pregraded = sorted(str(p) for p in (course / "submitted").iterdir() if p.name not in NOT_GRADED_BEFORE)
    done = subprocess.run([sys.executable, "-m", "autograder", "grade", *pregraded, "--seed", str(SEED),
                           "--solutions", str(course / "solutions"), "--format", "json",
                           "--output", str(course / "class.json")], cwd=course, capture_output=True, text=True,
                          env=quiet_env(AUTOGRADER_CACHE=str(cache_of(course))), timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    for entry in (cache_of(course) / "results").glob("result-*.json"):
        data = json.loads(entry.read_bytes().partition(b"\n")[2])
        text = json.dumps({**data, "seconds": MARK}).encode()
        entry.write_bytes(keyed_entry(cache_of(course), text))  # still a valid entry (signed with the cache's key)
        os.utime(entry, (LONG_AGO, LONG_AGO))
    for assignment in ASSIGNMENT_IDS:
        nbgrader(course, "autograde", assignment, "--force")
        nbgrader(course, "generate_feedback", assignment, "--force")
    return course


@pytest.fixture(scope="module")
def cli_results() -> dict[tuple[str, str], dict]:
    return {(r["student"], r["assignment"]): r for r in grade_json(str(EXAMPLES), "--seed", str(SEED))}


def submissions() -> list[tuple[str, str]]:
    return sorted((path.parent.parent.name, path.parent.name) for path in EXAMPLES.glob("*/*/*.ipynb"))


def test_nbgrader_records_the_clis_points_for_every_exercise_of_every_submission(course, cli_results):
    assert len(cli_results) == len(submissions()) == 29
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student, assignment in submissions():
            notebook = gradebook.find_submission_notebook(assignment, assignment, student)
            nbgrader_points = {grade.name: grade.score for grade in notebook.grades}
            cli = cli_results[(student, assignment)]
            for exercise in cli["exercises"]:
                got = nbgrader_points[f"test_{exercise['id']}"]
                assert got == pytest.approx(exercise["score"], abs=1e-4), (
                    f"{student}/{assignment}/{exercise['id']}: nbgrader {got}, CLI {exercise['score']}")
            assert notebook.score == pytest.approx(cli["score"], abs=1e-3), f"{student}/{assignment} total"
            assert notebook.max_score == cli["max_score"] == assignment_by_id(assignment).max_score


def kept_grade(course: Path, student: str, assignment: str) -> Path:
    """Where a run keeps the grade of this student's notebook (seed SEED, the course's solutions, default limits)."""
    notebook = course / "submitted" / student / assignment / f"{assignment}.ipynb"
    solution = (course / "solutions" / assignment / f"{assignment}.ipynb").read_bytes()
    store = ResultStore(cache_of(course) / "results")
    return store.path(store.key(program_digest(read_submission(notebook)), reference_key(solution, assignment, SEED),
                                Limits()))


def test_graded_cells_reuse_the_class_runs_grades_and_grade_the_others_themselves(course):
    reused, own = 0, 0
    for student, assignment in submissions():
        entry = kept_grade(course, student, assignment)
        if not entry.exists():  # a run with a timeout or out-of-memory outcome is never kept
            assert student == "kwame", f"{student}/{assignment}: its clean grade was not kept"
            continue
        # Read (by the graded cells' run with --reuse-results) or written (by their own run) during autograde.
        assert entry.stat().st_mtime > LONG_AGO + 86400, f"{student}/{assignment}: its kept grade was not used"
        seconds = json.loads(entry.read_bytes().partition(b"\n")[2])["seconds"]
        if student in NOT_GRADED_BEFORE:
            assert seconds != MARK
            own += 1
        else:
            assert seconds == MARK, f"{student}/{assignment}: graded again instead of reusing the class run's grade"
            reused += 1
    assert own == 2 * len(ASSIGNMENT_IDS) and reused >= 20


def test_the_class_has_partial_credit_and_zeros_so_the_equality_means_something(cli_results):
    scores = [e["score"] for r in cli_results.values() for e in r["exercises"]]
    assert any(0 < s < 2 for s in scores) and 0 in scores and 2 in scores


def graded_cells(notebook) -> list:
    return [cell for cell in notebook.cells
            if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("grade_id", "").startswith("test_")]


def test_graded_cells_show_the_clis_feedback_and_write_nothing_to_stderr(course, cli_results):
    for student, assignment in submissions():
        notebook = nbformat.read(course / "autograded" / student / assignment / f"{assignment}.ipynb", as_version=4)
        exercises = {e["id"]: e for e in cli_results[(student, assignment)]["exercises"]}
        for cell in graded_cells(notebook):
            exercise = exercises[cell.metadata["nbgrader"]["grade_id"][len("test_"):]]
            kinds = [(o.output_type, o.get("name")) for o in cell.outputs]
            assert ("stream", "stderr") not in kinds and ("error", None) not in kinds, (student, assignment, kinds)
            printed = "".join(o.text for o in cell.outputs if o.output_type == "stream")
            if exercise["status"] != "passed":
                assert exercise["feedback"].splitlines()[0] in printed
                for pitfall in exercise["pitfalls"]:
                    assert f"[{pitfall}]" in printed


def hidden_case_blocks(text: str) -> list[str]:
    """The lines reported under each 'Hidden case ...:' heading."""
    blocks, current = [], None
    for line in text.splitlines():
        if re.search(r"Hidden case .*:$", line.strip()):
            current = []
            blocks.append(current)
        elif re.match(r"\s*(Case |Hidden case |\[|\(\d+ more)", line) and current is not None:
            current = None
        elif current is not None:
            current.append(line)
    return ["\n".join(block) for block in blocks]


def test_feedback_pages_name_the_pitfall_and_never_show_a_hidden_case(course, cli_results):
    shown_hidden = 0
    for student, assignment in submissions():
        page = course / "feedback" / student / assignment / f"{assignment}.html"
        assert page.is_file(), f"nbgrader generate_feedback wrote no page for {student}/{assignment}"
        text = page.read_text(encoding="utf-8")
        for exercise in cli_results[(student, assignment)]["exercises"]:
            for pitfall in exercise["pitfalls"]:
                assert f"[{pitfall}]" in text, f"{student}/{assignment}: {pitfall} not in the feedback page"
            for block in hidden_case_blocks(exercise["feedback"]):
                shown_hidden += 1
                assert "obtained" not in block and "expected  " not in block, block
    assert shown_hidden > 0, "the class should have failures on hidden cases, or this test checks nothing"


def test_released_notebooks_hold_no_hidden_test_and_no_solution():
    for assignment in ASSIGNMENT_IDS:
        released = (ROOT / "assignments" / assignment / f"{assignment}.ipynb").read_text(encoding="utf-8")
        assert "HIDDEN TESTS" not in released and "BEGIN SOLUTION" not in released
        notebook = json.loads(released)
        for exercise in assignment_by_id(assignment).exercises:
            graded = [c for c in notebook["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") ==
                      f"test_{exercise.id}"]
            assert len(graded) == 1 and graded[0]["metadata"]["nbgrader"]["points"] == exercise.points
            assert f'grade_exercise("{assignment}", "{exercise.id}")' in "".join(graded[0]["source"])
