"""Files that are not submissions get a clear error and a non-zero exit, and nothing else in the class changes.

The contract: a submission is a ``.ipynb`` notebook or a ``.py`` file, and one that cannot be read at all still
gets an object whose feedback says why. So: a text file named ``.ipynb``, a notebook cut short (graded without
``--assignment``), a browser's renamed download (``higher_order.ipynb.txt``: refused with the rename that fixes
it, see ``load.reading.not_a_submission`` for why it is not read by its content) and ``answers.txt`` each get
their object and a line on stderr naming the file and the fix; the grader exits 1 (the report is written); a
correct classmate graded in the same run gets exactly the grade the golden JSON holds.
"""
from __future__ import annotations

import json
import shutil

import pytest

from autograder.load.cells import read_submission
from autograder.load.discover import detect_assignment, find_submissions, student_name
from helpers import ROOT, assert_same_result, by_file, grade_json, run_autograder

BRAM = "examples/submitted/bram/custom_gradients/custom_gradients.ipynb"  # relative: as the golden JSON names it
DOWNLOAD = ROOT / "examples" / "submitted" / "bram" / "higher_order" / "higher_order.ipynb"


def make_bad_files(folder):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "notes.ipynb").write_text("my answers are below\n\ndef log1pexp(x): ...\n")
    (folder / "cut_short.ipynb").write_text('{"cells": [\n  {"cell_type": "code",\n')
    shutil.copy(DOWNLOAD, folder / "higher_order.ipynb.txt")
    (folder / "answers.txt").write_text("import tensorflow as tf\n\ndef log1pexp(x):\n    return tf.nn.softplus(x)\n")
    (folder / "README.md").write_text("not a submission, and not mistaken for one\n")
    return folder


def test_each_bad_file_is_refused_by_the_reader_with_its_name_and_the_fix(tmp_path):
    folder = make_bad_files(tmp_path / "bad")
    problems = {path.name: read_submission(path).problem for path in sorted(folder.iterdir())}
    assert problems["notes.ipynb"].startswith("notes.ipynb is not a notebook: a notebook is JSON text")
    assert "notebook is not valid JSON: line 3" in problems["cut_short.ipynb"]
    assert "open it in Jupyter, save it and submit it again" in problems["cut_short.ipynb"]
    assert "rename it to higher_order.ipynb" in problems["higher_order.ipynb.txt"]
    assert problems["answers.txt"].startswith("answers.txt is not a submission: the grader reads a .ipynb notebook "
                                              "or a .py file")
    assert problems["README.md"] is not None  # given by name it is refused too; below a folder it is not listed


def test_a_folder_lists_the_renamed_download_but_not_its_other_files(tmp_path):
    folder = make_bad_files(tmp_path / "bad")
    found, missing = find_submissions([str(folder)])
    assert not missing
    assert sorted(f.path.name for f in found) == ["cut_short.ipynb", "higher_order.ipynb.txt", "notes.ipynb"]
    download = folder / "higher_order.ipynb.txt"
    assert student_name(download) == "higher_order"
    assert detect_assignment(download, read_submission(download)) == "higher_order"


@pytest.mark.slow
def test_bad_files_in_a_class_get_their_objects_exit_1_and_leave_the_classmate_alone(tmp_path):
    folder = make_bad_files(tmp_path / "bad")
    bad = [str(folder / name) for name in ("notes.ipynb", "cut_short.ipynb", "higher_order.ipynb.txt",
                                           "answers.txt")]
    done = run_autograder("grade", BRAM, *bad, "--seed", "1", "--format", "json")
    assert done.returncode == 1, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    results = json.loads(done.stdout)
    assert [r["submission"] for r in results] == [BRAM, *bad]  # one object per file, in the order given
    golden = {r["submission"]: r for r in json.loads((ROOT / "tests/fixtures/example_class_seed1.json").read_text())}
    assert_same_result(results[0], golden[BRAM])  # nothing of the bad files reached bram's grade
    named = by_file(results)
    download = named["higher_order.ipynb.txt"]
    assert (download["assignment"], download["score"]) == ("higher_order", 0.0)
    assert {e["status"] for e in download["exercises"]} == {"error"} and len(download["exercises"]) == 6
    assert all("rename it to higher_order.ipynb" in e["feedback"] for e in download["exercises"])
    for name in ("notes.ipynb", "cut_short.ipynb", "answers.txt"):  # no assignment to list exercises of
        assert (named[name]["assignment"], named[name]["exercises"]) == ("unknown", []), named[name]
    errors = [line for line in done.stderr.splitlines() if line.startswith("autograder: error: ")]
    assert len(errors) == 4, done.stderr
    for path, fix in zip(bad, ("a notebook is JSON text", "open it in Jupyter, save it and submit it again",
                               "rename it to higher_order.ipynb", "a .ipynb notebook or a .py file")):
        [said] = [line for line in errors if line.startswith(f"autograder: error: {path} could not be graded: ")]
        assert fix in said, said
    assert "cannot tell which assignment this is: pass --assignment ID" in errors[1]


@pytest.mark.slow
def test_with_the_assignment_given_every_exercise_of_a_bad_file_says_why(tmp_path):
    folder = make_bad_files(tmp_path / "bad")
    results = grade_json(str(folder / "cut_short.ipynb"), str(folder / "answers.txt"), "--assignment",
                         "custom_gradients", "--seed", "1", exit_code=1)
    for result, words in zip(results, ("notebook is not valid JSON: line 3", "answers.txt is not a submission")):
        assert result["assignment"] == "custom_gradients" and result["score"] == 0
        assert [e["status"] for e in result["exercises"]] == ["error"] * len(result["exercises"])
        assert all(words in e["feedback"] for e in result["exercises"]), result
