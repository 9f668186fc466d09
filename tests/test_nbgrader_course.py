"""The kit as a real nbgrader course: nbgrader's own commands grade the example class through the kit.

A course is built in a temporary folder from the repository's solutions and nbgrader_config.py;
`nbgrader generate_assignment`, `nbgrader autograde` and `nbgrader generate_feedback` run for real, with
the example class placed under submitted/, plus one student whose notebook shows outputs of every kind.
By default the course's autograde runs the kit's contained executor (no kernel): every grade nbgrader records
must equal the CLI's for the same notebook and seed, every cell that ran must show what it showed, and no
student-facing output may show a hidden case. A second, small course switches to the kernel path with its
one configuration line and must grade the same.

The course's seed is 1, the example class's: the CLI's grades of its notebooks are the run's one grading of
the class (conftest.py's ``example_class``, the same solutions byte for byte), and the CLI grades the showcase
student alone. The courses start with the references that grading computed (the run's cache: entries keyed by
the solution's bytes, the assignment and the seed, so a course that graded with other solutions or another seed
would compute its own and differ); nbgrader computing its own references is exercised by the other nbgrader
modules.
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

from autograder.config import Limits
from autograder.course import assignment_by_id
from autograder.load.cells import read_submission
from autograder.load.program import program_digest
from autograder.store.reference_cache import reference_key
from autograder.store.result_store import ResultStore
from helpers import (ASSIGNMENT_IDS, ROOT, grade_json, keyed_entry, nbgrader_course, open_gradebook, quiet_env,
                     run_nbgrader, with_cell, with_references)

pytestmark = pytest.mark.slow
SEED = 1  # the example class's seed: the run grades the class once (conftest.py's example_class)
EXAMPLES = ROOT / "examples" / "submitted"
SHOWCASE = "zoe"  # ada's custom_gradients with two cells of her own that show every kind of output
SHOWCASE_CELLS = ('print("my notes")\nimport sys\nprint("a warning", file=sys.stderr)\n'
                  'import matplotlib\nmatplotlib.use("agg")\nimport matplotlib.pyplot as plt\n'
                  'plt.plot([0.0, 1.0], [1.0, 0.0])\nround(float(log1pexp(tf.constant(0.0))), 4)\n',
                  'print("before the error")\nundefined_helper(3)\n')


@pytest.fixture(scope="module")
def course(tmp_path_factory, example_class, generated_course) -> Path:
    course = nbgrader_course(tmp_path_factory.mktemp("course"), generated_course)
    with_references(course / "autograder-cache")
    shutil.copytree(EXAMPLES, course / "submitted", dirs_exist_ok=True)
    ada = EXAMPLES / "ada" / "custom_gradients" / "custom_gradients.ipynb"
    showcase = course / "submitted" / SHOWCASE / "custom_gradients" / "custom_gradients.ipynb"
    with_cell(with_cell(ada, showcase, SHOWCASE_CELLS[1], after="log1pexp"), showcase, SHOWCASE_CELLS[0],
              after="log1pexp")
    for assignment in ASSIGNMENT_IDS:
        run_nbgrader(course, "autograde", assignment, "--force", seed=SEED)
        run_nbgrader(course, "generate_feedback", assignment, "--force", seed=SEED)
    return course


@pytest.fixture(scope="module")
def cli_results(course, example_class) -> dict[tuple[str, str], dict]:
    """The CLI on the same files, the same seed and the same solutions: the example class as the run graded it
    (`autograder grade examples --seed 1`), and the showcase student graded alone with the course's solutions."""
    for assignment in ASSIGNMENT_IDS:  # the course's solutions are the repository's, byte for byte
        notebook = Path("solutions") / assignment / f"{assignment}.ipynb"
        assert (course / notebook).read_bytes() == (ROOT / notebook).read_bytes(), notebook
    results, _ = example_class
    showcase = grade_json(str(course / "submitted" / SHOWCASE), "--seed", str(SEED), "--solutions",
                          str(course / "solutions"))
    return {(r["student"], r["assignment"]): r for r in [*results, *showcase]}


def submissions(course: Path) -> list[tuple[str, str]]:
    return sorted((p.parent.parent.name, p.parent.name) for p in (course / "submitted").glob("*/*/*.ipynb"))


def test_nbgrader_records_the_clis_points_for_every_exercise_of_every_submission(course, cli_results):
    assert len(cli_results) == len(submissions(course)) == 33  # the 32 of examples/submitted and zoe
    with open_gradebook(course) as gradebook:
        for student, assignment in submissions(course):
            notebook = gradebook.find_submission_notebook(assignment, assignment, student)
            nbgrader_points = {grade.name: grade.score for grade in notebook.grades}
            cli = cli_results[(student, assignment)]
            for exercise in cli["exercises"]:
                got = nbgrader_points[f"test_{exercise['id']}"]
                assert got == pytest.approx(exercise["score"], abs=1e-4), (
                    f"{student}/{assignment}/{exercise['id']}: nbgrader {got}, CLI {exercise['score']}")
            assert notebook.score == pytest.approx(cli["score"], abs=1e-3), f"{student}/{assignment} total"
            assert notebook.max_score == cli["max_score"] == assignment_by_id(assignment).max_score


def test_the_gradebook_is_complete_for_formgrader(course):
    with open_gradebook(course) as gradebook:
        for student, assignment in submissions(course):
            notebook = gradebook.find_submission_notebook(assignment, assignment, student)
            assert len(notebook.grades) == len(assignment_by_id(assignment).exercises)
            for grade in notebook.grades:
                assert grade.auto_score is not None and not grade.needs_manual_grade, (student, grade.name)
        assert sorted(s.id for s in gradebook.students) == sorted({s for s, _ in submissions(course)})


def test_the_class_has_partial_credit_and_zeros_so_the_equality_means_something(cli_results):
    scores = [e["score"] for r in cli_results.values() for e in r["exercises"]]
    assert any(0 < s < 2 for s in scores) and 0 in scores and 2 in scores


def autograded(course: Path, student: str, assignment: str):
    return nbformat.read(course / "autograded" / student / assignment / f"{assignment}.ipynb", as_version=4)


def graded_cells(notebook) -> list:
    return [cell for cell in notebook.cells
            if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("grade_id", "").startswith("test_")]


def test_graded_cells_show_the_clis_feedback_and_score_and_write_nothing_to_stderr(course, cli_results):
    for student, assignment in submissions(course):
        notebook = autograded(course, student, assignment)
        exercises = {e["id"]: e for e in cli_results[(student, assignment)]["exercises"]}
        for cell in graded_cells(notebook):
            exercise = exercises[cell.metadata["nbgrader"]["grade_id"][len("test_"):]]
            kinds = [(o.output_type, o.get("name")) for o in cell.outputs]
            assert kinds == [("display_data", None), ("execute_result", None)], (student, assignment, kinds)
            assert float(cell.outputs[1].data["text/plain"]) == pytest.approx(exercise["score"], abs=1e-4)
            printed = cell.outputs[0].data["text/plain"]
            assert "pre-wrap" in cell.outputs[0].data["text/html"]  # formgrader wraps its long lines
            assert printed.startswith(("✓", "~", "✗", "!", "⏱", "?", "·"))
            if exercise["status"] != "passed":
                assert exercise["feedback"].splitlines()[0] in printed
                for pitfall in exercise["pitfalls"]:
                    assert f"[{pitfall}]" in printed
        nbformat.validate(notebook)


def test_the_autograded_notebook_shows_every_kind_of_output_a_kernel_leaves(course):
    notebook = autograded(course, SHOWCASE, "custom_gradients")
    shows, fails = (next(c for c in notebook.cells if c.cell_type == "code" and c.source == code)
                    for code in SHOWCASE_CELLS)
    kinds = [(o.output_type, o.get("name")) for o in shows.outputs]
    # As IPython orders them: the streams, the last expression's value, then the figures (the inline backend
    # shows them after the cell).
    assert kinds == [("stream", "stdout"), ("stream", "stderr"), ("execute_result", None), ("display_data", None)]
    assert shows.outputs[0].text == "my notes\n" and shows.outputs[1].text == "a warning\n"
    assert shows.outputs[2].data["text/plain"] == "0.6931" and shows.outputs[2].execution_count == \
        shows.execution_count
    assert shows.outputs[3].data["image/png"] and "Figure" in shows.outputs[3].data["text/plain"]
    assert [(o.output_type, o.get("name")) for o in fails.outputs] == [("stream", "stdout"), ("error", None)]
    error = fails.outputs[1]
    assert error.ename == "NameError" and "undefined_helper" in error.evalue
    assert any("line 2" in line for line in error.traceback) and error.traceback[-1].startswith("NameError")
    setup = next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "setup")
    assert setup.outputs[0].text.startswith("TensorFlow ")  # the course's own cells show theirs too
    # Each filled cell's count is its number among the code cells, the one the feedback names it by ("cell [n]").
    code = [c for c in notebook.cells if c.cell_type == "code"]
    counts = [(number, c.execution_count) for number, c in enumerate(code, start=1) if c.execution_count is not None]
    assert counts and all(number == count for number, count in counts), counts
    log = "".join(o.get("text", "") for c in notebook.cells if c.cell_type == "code" for o in c.outputs)
    assert "oneDNN" not in log and "cuda" not in log.lower()  # TensorFlow's C++ logs stay out


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
    for student, assignment in submissions(course):
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


# --------------------------------------------------------------------------- the kernel path, one line away

KERNEL_STUDENTS = ("ada", "bram")  # ada's notebook is graded by the CLI first: her graded cells reuse its grade
LONG_AGO = 1_000_000_000  # the kept grade is dated back to 2001: a read brings the date to now
MARK = 4242.0  # and its "seconds" set to this: a graded cell's own run would write its own seconds


@pytest.fixture(scope="module")
def kernel_course(tmp_path_factory, example_class, generated_course) -> Path:
    course = nbgrader_course(tmp_path_factory.mktemp("kernel-course"), generated_course, executor="Execute")
    with_references(course / "autograder-cache")
    for student in KERNEL_STUDENTS:
        shutil.copytree(EXAMPLES / student / "custom_gradients", course / "submitted" / student / "custom_gradients")
    cache = course / "autograder-cache"
    done = subprocess.run([sys.executable, "-m", "autograder", "grade", str(course / "submitted" / "ada"), "--seed",
                           str(SEED), "--solutions", str(course / "solutions"), "--format", "json"], cwd=course,
                          capture_output=True, text=True, env=quiet_env(AUTOGRADER_CACHE=str(cache)), timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    for entry in (cache / "results").glob("result-*.json"):
        data = json.loads(entry.read_bytes().partition(b"\n")[2])
        entry.write_bytes(keyed_entry(cache, json.dumps({**data, "seconds": MARK}).encode()))
        os.utime(entry, (LONG_AGO, LONG_AGO))
    run_nbgrader(course, "autograde", "custom_gradients", "--force", seed=SEED)
    return course


def test_the_kernel_path_grades_as_the_cli_in_kernels_and_reuses_the_class_runs_grade(kernel_course):
    cli = {r["student"]: r for r in grade_json(str(kernel_course / "submitted"), "--seed", str(SEED),
                                                "--solutions", str(kernel_course / "solutions"))}
    with open_gradebook(kernel_course) as gradebook:
        for student in KERNEL_STUDENTS:
            notebook = gradebook.find_submission_notebook("custom_gradients", "custom_gradients", student)
            assert notebook.score == pytest.approx(cli[student]["score"], abs=1e-3), student
            points = {grade.name: grade.score for grade in notebook.grades}
            for exercise in cli[student]["exercises"]:
                assert points[f"test_{exercise['id']}"] == pytest.approx(exercise["score"], abs=1e-4)
    bram = autograded(kernel_course, "bram", "custom_gradients")
    # The demo cells ran in a kernel (the contained executor does not run them): that is the kernel path.
    demo = next(c for c in bram.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "demo_log1pexp_plot")
    assert any(o.output_type == "display_data" for o in demo.outputs)
    solution = (kernel_course / "solutions" / "custom_gradients" / "custom_gradients.ipynb").read_bytes()
    store = ResultStore(kernel_course / "autograder-cache" / "results")
    for student in KERNEL_STUDENTS:
        notebook = kernel_course / "submitted" / student / "custom_gradients" / "custom_gradients.ipynb"
        entry = store.path(store.key(program_digest(read_submission(notebook)),
                                     reference_key(solution, "custom_gradients", SEED), Limits()))
        assert entry.stat().st_mtime > LONG_AGO + 86400, f"{student}: the graded cells kept or read no grade"
        seconds = json.loads(entry.read_bytes().partition(b"\n")[2])["seconds"]
        assert (seconds == MARK) == (student == "ada"), f"{student}: reused {seconds == MARK}"
