"""The grader's promises that do not depend on one exercise: references, releases, broken input, JSON, exit codes."""
from __future__ import annotations

import functools
import json
from pathlib import Path

import nbformat
import pytest

from autograder.course import assignment_by_id
from autograder.model.pitfalls import PITFALL_IDS as PITFALLS
from autograder.model.results import STATUSES
from helpers import ASSIGNMENT_IDS, ROOT, by_file, exercise, grade_json, run_autograder, under_load

pytestmark = pytest.mark.slow

GOOD_LOG1PEXP = '''
import tensorflow as tf

@tf.custom_gradient
def log1pexp(x):
    return tf.nn.softplus(x), lambda upstream: upstream * tf.sigmoid(x)
'''


def validate_contract_json(results: list, assignment_ids: dict[str, str] | None = None) -> None:
    """The structure CURRICULUM.md fixes, checked field by field."""
    assert isinstance(results, list)
    for result in results:
        assert set(result) == {"submission", "student", "assignment", "score", "max_score", "exercises"}
        assert isinstance(result["submission"], str) and isinstance(result["student"], str)
        assignment = assignment_by_id(result["assignment"])
        assert [e["id"] for e in result["exercises"]] == [e.id for e in assignment.exercises]
        assert result["max_score"] == assignment.max_score
        assert result["score"] == pytest.approx(sum(e["score"] for e in result["exercises"]))
        for item in result["exercises"]:
            assert set(item) == {"id", "score", "max_score", "status", "pitfalls", "feedback"}
            assert item["status"] in STATUSES
            assert set(item["pitfalls"]) <= set(PITFALLS)
            assert 0 <= item["score"] <= item["max_score"]
            assert (item["status"] == "passed") == (item["score"] == item["max_score"])
            assert isinstance(item["feedback"], str)


@pytest.fixture(scope="module")
def references_and_releases():
    """Seed 1, the example class's: the run computes its references once (conftest.py's grading_cache)."""
    paths = [f"{folder}/{a}/{a}.ipynb" for folder in ("solutions", "assignments") for a in ASSIGNMENT_IDS]
    return grade_json(*paths, "--seed", "1")


def test_reference_solutions_score_full_marks(references_and_releases):
    validate_contract_json(references_and_releases)
    for result in references_and_releases[:len(ASSIGNMENT_IDS)]:
        assert result["score"] == result["max_score"] == assignment_by_id(result["assignment"]).max_score, result
        assert all(e["status"] == "passed" and not e["pitfalls"] for e in result["exercises"])


def test_released_notebooks_score_zero_with_every_exercise_not_implemented(references_and_releases):
    for result in references_and_releases[len(ASSIGNMENT_IDS):]:
        assert result["score"] == 0.0
        for item in result["exercises"]:
            assert (item["status"], item["pitfalls"]) == ("not-implemented", ["not-implemented"]), item
            assert "NotImplementedError" in item["feedback"]


def test_assignment_comes_from_notebook_metadata_without_the_option(references_and_releases):
    assert [r["assignment"] for r in references_and_releases] == list(ASSIGNMENT_IDS) * 2


# --------------------------------------------------------------------------- broken input

def notebook(path: Path, *cells: str) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    nb.metadata["autograder"] = {"assignment": "custom_gradients"}
    nbformat.write(nb, path)


# Seconds: 8 on a quiet machine, scaled by the load; at most 20, every case's own limit (a cap above it is not used).
BROKEN_LIMIT = functools.cache(lambda: min(under_load(8), 20))


@pytest.fixture(scope="module")
def broken(tmp_path_factory):
    folder = tmp_path_factory.mktemp("broken")
    (folder / "invalid_json.ipynb").write_text('{"cells": [\n  {"cell_type": "code",\n  oops\n')
    (folder / "empty.ipynb").write_text("")
    (folder / "empty.py").write_text("")
    (folder / "binary.py").write_bytes(b"\x00\x01\x02garbage\xff\xfe")
    notebook(folder / "syntax_error.ipynb", "import tensorflow as tf", "def log1pexp(x)\n    return x",
             GOOD_LOG1PEXP.replace("def log1pexp", "def straight_through_round_unused"))
    notebook(folder / "raises_at_import.ipynb", "import tensorflow as tf\nraise ValueError('demo cell broke')",
             GOOD_LOG1PEXP, "%matplotlib inline\n!pip list\nprint('after magics')")
    notebook(folder / "hangs_at_import.ipynb", "while True:\n    pass", GOOD_LOG1PEXP)
    (folder / "hangs_in_exercise.py").write_text(GOOD_LOG1PEXP + "\n\ndef td_loss(q, reward, next_q, gamma):\n"
                                                 "    while True:\n        pass\n")
    (folder / "wrong_signature.py").write_text("import tensorflow as tf\n\ndef clip_gradient_norm(x):\n"
                                               "    return tf.identity(x)\n")
    (folder / "wrong_return.py").write_text(
        "import tensorflow as tf\n\ndef log1pexp(x):\n    return [1.0, 2.0]\n\n"
        "def td_loss(q, reward, next_q, gamma):\n    return tf.zeros([3], dtype=q.dtype)\n\n"
        "def straight_through_round(x):\n    return 'round'\n")
    (folder / "exits.py").write_text(GOOD_LOG1PEXP + "\nimport os\n\ndef td_loss(q, reward, next_q, gamma):\n"
                                     "    os._exit(0)\n")
    (folder / "sys_exit.ipynb").write_text(json.dumps(nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell(GOOD_LOG1PEXP), nbformat.v4.new_code_cell("import sys\nsys.exit(3)")])))
    (folder / "good.py").write_text(GOOD_LOG1PEXP)
    (folder / "autograph.py").write_text((ROOT / "tests" / "submissions" / "autograph_loop.py").read_text())
    limit = str(BROKEN_LIMIT())  # the honest cells must finish within it, the endless ones reach it
    results = grade_json(str(folder), "--assignment", "custom_gradients", "--seed", "3",
                         "--cell-time-limit", limit, "--case-time-limit", limit, exit_code=1)  # 1: four unreadable
    validate_contract_json(results)
    return by_file(results)


def test_every_broken_file_gets_a_result_in_contract_form(broken):
    assert len(broken) == 14


@pytest.mark.parametrize("name, words", [
    ("invalid_json.ipynb", "not valid JSON: line 3"),
    ("empty.ipynb", "empty"),
    ("empty.py", "empty"),
    ("binary.py", "not"),
])
def test_unreadable_file_gets_errors_that_say_why(broken, name, words):
    result = broken[name]
    assert result["score"] == 0
    for item in result["exercises"]:
        assert item["status"] == "error"
        assert words in item["feedback"]


def test_syntax_error_names_the_cell_and_line(broken):
    item = exercise(broken["syntax_error.ipynb"], "log1pexp")
    assert item["status"] == "missing"
    assert "cell [2]" in item["feedback"] and "SyntaxError" in item["feedback"] and "line 1" in item["feedback"]


def test_a_cell_that_raises_does_not_stop_the_next_cells(broken):
    result = broken["raises_at_import.ipynb"]
    assert exercise(result, "log1pexp")["status"] == "passed"
    assert exercise(result, "td_loss")["status"] == "missing"


def test_a_hanging_cell_is_skipped_and_the_others_graded(broken):
    assert exercise(broken["hangs_at_import.ipynb"], "log1pexp")["status"] == "passed"


def test_an_infinite_loop_in_an_exercise_times_out_alone(broken):
    result = broken["hangs_in_exercise.py"]
    item = exercise(result, "td_loss")
    assert item["status"] == "timeout" and f"timeout after {BROKEN_LIMIT()} s in td_loss" in item["feedback"]
    assert exercise(result, "log1pexp")["status"] == "passed"


def test_tf_function_with_a_python_loop_is_converted_by_autograph(broken):
    # AutoGraph reads the source through linecache, as in IPython: the loader must register each cell.
    assert exercise(broken["autograph.py"], "log1pexp")["status"] == "passed"


def test_missing_function_says_which_signature_to_define(broken):
    item = exercise(broken["good.py"], "td_loss")
    assert item["status"] == "missing"
    assert "def td_loss(q, reward, next_q, gamma):" in item["feedback"]


def test_wrong_signature_is_explained(broken):
    item = exercise(broken["wrong_signature.py"], "clip_gradient_norm")
    assert item["status"] == "error" and item["score"] == 0
    assert "takes (x) but the exercise asks for `clip_gradient_norm(x, max_norm)`" in item["feedback"]


def test_wrong_return_type_and_shape_are_explained(broken):
    result = broken["wrong_return.py"]
    assert "the loss must be a scalar, got shape (3,)" in exercise(result, "td_loss")["feedback"]
    assert exercise(result, "log1pexp")["score"] == 0
    assert "str" in exercise(result, "straight_through_round")["feedback"]


def test_a_process_exit_costs_only_that_exercise(broken):
    result = broken["exits.py"]
    item = exercise(result, "td_loss")
    assert item["status"] == "error" and "exited with code 0 before grading finished" in item["feedback"]
    assert exercise(result, "log1pexp")["status"] == "passed"


def test_sys_exit_in_a_cell_is_recorded_like_any_exception(broken):
    assert exercise(broken["sys_exit.ipynb"], "log1pexp")["status"] == "passed"


def test_student_names_come_from_the_nbgrader_layout(tmp_path):
    target = tmp_path / "submitted" / "ada" / "custom_gradients"
    target.mkdir(parents=True)
    (target / "custom_gradients.py").write_text(GOOD_LOG1PEXP)
    [result] = grade_json(str(tmp_path), "--seed", "1")
    assert (result["student"], result["assignment"]) == ("ada", "custom_gradients")
    assert result["submission"] == str(target / "custom_gradients.py")


# --------------------------------------------------------------------------- command line

def test_bad_arguments_exit_non_zero(tmp_path):
    assert run_autograder("grade", str(tmp_path / "nope.ipynb")).returncode == 2
    assert run_autograder("grade", "--assignment", "no_such_assignment", "x.py").returncode == 2
    assert run_autograder("grade", str(tmp_path)).returncode == 2  # no submissions in it


def test_text_format_shows_marks_scores_and_feedback(tmp_path):
    (tmp_path / "bob.py").write_text(GOOD_LOG1PEXP)
    done = run_autograder("grade", str(tmp_path / "bob.py"), "--assignment", "custom_gradients", "--seed", "2")
    assert done.returncode == 0, done.stderr
    assert "✓ log1pexp" in done.stdout and "2 / 2" in done.stdout
    assert "? td_loss" in done.stdout and "missing" in done.stdout
    assert done.stderr == ""  # no TensorFlow log noise


# --------------------------------------------------------------------------- interrupted runs

def test_a_killed_run_resumes_and_ends_with_the_results_of_an_uninterrupted_run(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    from helpers import quiet_env

    folder = ROOT / "examples" / "submitted"
    args = [sys.executable, "-m", "autograder", "grade", str(folder), "--assignment", "custom_gradients",
            "--format", "json", "--seed", "9", "--jobs", "1"]
    names = sorted(str(p) for p in folder.glob("*/custom_gradients/*.ipynb"))
    assert len(names) >= 6
    output = tmp_path / "out" / "results.json"
    journal = output.parent / ".results.json.partial"
    # Only the custom_gradients notebooks: a folder of copies keeps the test to one assignment.
    copies = tmp_path / "class" / "submitted"
    for name in names:
        target = copies / Path(name).parent.parent.name / "custom_gradients" / "custom_gradients.ipynb"
        target.parent.mkdir(parents=True)
        target.write_bytes(Path(name).read_bytes())
    args[4] = str(copies.parent)
    grader = subprocess.Popen(args + ["--output", str(output)], cwd=ROOT, env=quiet_env(),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and len(list(journal.glob("*.json"))) < 1 + 3:  # run.json + 3 results
        time.sleep(0.1)
    os.killpg(grader.pid, signal.SIGKILL)
    grader.wait()
    finished_before = len(list(journal.glob("*.json"))) - 1
    assert 3 <= finished_before < len(names), "the run must be killed halfway"
    assert not output.exists()

    resumed = subprocess.run(args + ["--output", str(output)], cwd=ROOT, env=quiet_env(), capture_output=True,
                             text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{finished_before} of {len(names)} submissions were already graded" in resumed.stderr
    assert not journal.exists(), "a complete run leaves no journal behind"
    uninterrupted = grade_json(str(copies.parent), "--assignment", "custom_gradients", "--seed", "9")
    assert json.loads(output.read_text()) == uninterrupted


def test_grading_works_when_tmpdir_points_below_tmp(tmp_path):
    # The child covers /tmp with a fresh tmpfs when the grader is root: a TMPDIR below it must not break it.
    import subprocess
    import sys
    import tempfile

    from helpers import quiet_env

    scratch = tempfile.mkdtemp(dir="/tmp", prefix="grader-tmpdir-")
    (tmp_path / "ada.py").write_text(GOOD_LOG1PEXP)
    done = subprocess.run([sys.executable, "-m", "autograder", "grade", str(tmp_path / "ada.py"), "--assignment",
                           "custom_gradients", "--format", "json", "--seed", "1"], cwd=ROOT,
                          env=quiet_env(TMPDIR=scratch), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert exercise(json.loads(done.stdout)[0], "log1pexp")["status"] == "passed"
    assert list(Path(scratch).iterdir()) == [], "the child's folders are removed when it ends"


def test_progress_shows_on_a_terminal_and_not_on_a_pipe(tmp_path):
    import os
    import pty
    import subprocess
    import sys

    from helpers import quiet_env

    (tmp_path / "ada.py").write_text(GOOD_LOG1PEXP)
    (tmp_path / "bo.py").write_text(GOOD_LOG1PEXP)
    args = [sys.executable, "-m", "autograder", "grade", str(tmp_path), "--assignment", "custom_gradients",
            "--seed", "1", "--output", str(tmp_path / "out" / "report.txt")]
    primary, secondary = pty.openpty()
    grader = subprocess.Popen(args, cwd=ROOT, env=quiet_env(TERM="xterm", COLUMNS="100"), stdin=secondary,
                              stdout=secondary, stderr=secondary, close_fds=True)
    os.close(secondary)
    seen = b""
    while True:
        try:
            chunk = os.read(primary, 4096)
        except OSError:  # the terminal closed: the grader exited
            break
        if not chunk:
            break
        seen += chunk
    assert grader.wait(timeout=600) == 0
    assert b"grading" in seen and b"2/2" in seen, seen[-2000:]
    piped = run_autograder(*args[3:])
    assert piped.returncode == 0 and piped.stderr == ""


def test_a_submission_directly_in_tmp_is_graded():
    # Its folder is /tmp, where the child works: the grader must hide the file, not the folder.
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".py", dir="/tmp", prefix="loose-", delete=False) as handle:
        handle.write(GOOD_LOG1PEXP)
    try:
        [result] = grade_json(handle.name, "--assignment", "custom_gradients", "--seed", "1")
        assert exercise(result, "log1pexp")["status"] == "passed", result
    finally:
        Path(handle.name).unlink()
