"""Grades kept by one run and taken by a later one with --reuse-results (what nbgrader's graded cells pass).

Each run is the real CLI in a subprocess, with its own cache folder; the children it starts are counted
through the API (``run.scheduler.run_all``, which the local runner calls), so "reused" means: nothing ran, not merely: the same numbers.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.store.result_store import ResultStore
from helpers import ROOT, quiet_env, under_load

SOURCE = ROOT / "examples" / "submitted"
COUNTED_CLI = """
import json, sys
from autograder import cli
from autograder.run import scheduler
started = []
def counted(runs, jobs=1):
    runs = list(runs)
    started.extend(kind for kind, _ in (run.key for run in runs))
    return run_all(runs, jobs)
run_all, scheduler.run_all = scheduler.run_all, counted  # what LocalRunner.run_all calls
status = cli.main(sys.argv[2:])
with open(sys.argv[1], "w") as handle:
    json.dump({"status": status, "started": started}, handle)
"""


def grade(tmp_path: Path, cache: Path, *args: str) -> tuple[list[dict], list[str]]:
    """Results of `autograder grade ARGS --format json` and the kinds of the runs it started."""
    output, counts = tmp_path / "results.json", tmp_path / "counts.json"
    done = subprocess.run([sys.executable, "-c", COUNTED_CLI, str(counts), "grade", *args, "--format", "json",
                           "--jobs", "2", "--output", str(output)], cwd=ROOT, capture_output=True, text=True,
                          env=quiet_env(AUTOGRADER_CACHE=str(cache)), timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    counted = json.loads(counts.read_text())
    assert counted["status"] == 0, done.stderr[-3000:]
    return json.loads(output.read_text()), counted["started"]


def place(folder: Path, student: str, notebook: nbformat.NotebookNode) -> Path:
    target = folder / student / "custom_gradients" / "custom_gradients.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, target)
    return target


def example(student: str) -> nbformat.NotebookNode:
    return nbformat.read(SOURCE / student / "custom_gradients" / "custom_gradients.ipynb", as_version=4)


def resaved(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """As JupyterLab saves a notebook after running it: other outputs, execution counts and metadata."""
    for number, cell in enumerate(notebook.cells):
        if cell.cell_type == "code":
            cell.execution_count = number + 40
            cell.outputs = [nbformat.v4.new_output("stream", text="ran again\n")]
    notebook.metadata["resaved"] = True
    return notebook


def without_path(result: dict) -> dict:
    return {key: value for key, value in result.items() if key not in ("submission", "student")}


@pytest.fixture(scope="module")
def first_run(tmp_path_factory) -> tuple[Path, Path, dict[str, dict]]:
    """Three students graded once (seed 31) for the module: the run that keeps their grades."""
    base = tmp_path_factory.mktemp("first-run")
    for student in ("ada", "bram", "chiara"):
        place(base / "class" / "submitted", student, example(student))
    results, started = grade(base, base / "cache", str(base / "class" / "submitted"), "--seed", "31")
    assert started.count("student") == 3 and started.count("reference") == 1
    return base / "class", base / "cache", {r["student"]: r for r in results}


@pytest.fixture
def graded_class(first_run, tmp_path):
    """The first run's class folder, a copy of its cache for this test alone (each test changes or damages
    what it holds: copytree keeps the folder's key, modes and dates, so its entries verify as the first run
    left them) and its results."""
    class_folder, kept, first = first_run
    cache = tmp_path / "cache"
    shutil.copytree(kept, cache)
    return tmp_path, cache, first, class_folder


@pytest.mark.slow  # starts a grader
def test_a_reuse_run_takes_the_kept_grade_of_the_same_code_and_runs_nothing(graded_class):
    tmp_path, cache, first, class_folder = graded_class
    assert len(list((cache / "results").glob("result-*.json"))) == 3
    copy = place(tmp_path / "later" / "submitted", "bram", resaved(example("bram")))
    graded = class_folder / "submitted" / "bram" / "custom_gradients" / "custom_gradients.ipynb"
    assert copy.read_bytes() != graded.read_bytes()
    results, started = grade(tmp_path, cache, str(copy), "--seed", "31", "--reuse-results")
    assert started == []  # neither the submission nor the reference ran: no child at all
    assert without_path(results[0]) == without_path(first["bram"])
    assert results[0]["submission"] == str(copy) and results[0]["student"] == "bram"
    assert first["bram"]["score"] < first["bram"]["max_score"]  # bram's mistakes, with their feedback, kept


@pytest.mark.slow  # starts a grader
@pytest.mark.parametrize("change", ["code", "seed", "limits", "solutions", "no reuse asked"])
def test_anything_a_grade_depends_on_changes_and_the_submission_runs_again(graded_class, change):
    tmp_path, cache, first, _ = graded_class
    notebook = example("bram")
    if change == "code":
        cell = next(c for c in notebook.cells
                    if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution"))
        cell.source += "\n# one comment more"
    path = place(tmp_path / "later" / "submitted", "bram", notebook)
    args = [str(path), "--seed", "32" if change == "seed" else "31", "--reuse-results"]
    if change == "limits":
        args += ["--memory-limit", "1.5"]
    if change == "solutions":
        solutions = tmp_path / "solutions"
        (solutions / "custom_gradients").mkdir(parents=True)
        reference = ROOT / "solutions" / "custom_gradients" / "custom_gradients.ipynb"
        (solutions / "custom_gradients" / "custom_gradients.ipynb").write_text(reference.read_text() + "\n")
        args += ["--solutions", str(solutions)]
    if change == "no reuse asked":
        args.remove("--reuse-results")
    results, started = grade(tmp_path, cache, *args)
    assert started.count("student") == 1
    if change != "seed":
        assert without_path(results[0]) == without_path(first["bram"])  # ran again, and graded the same


@pytest.mark.slow  # starts a grader
def test_a_run_that_timed_out_is_not_kept_and_runs_again(tmp_path):
    cache = tmp_path / "cache"
    hanging = ROOT / "tests" / "submissions" / "hostile" / "loops_td_loss_while_true.py"
    args = (str(hanging), "--assignment", "custom_gradients", "--seed", "31", "--case-time-limit",
            str(min(under_load(2), 20)), "--reuse-results")  # the honest exercises finish within it, td_loss's loop reaches it
    results, started = grade(tmp_path, cache, *args)
    assert started.count("student") == 1
    td_loss = next(e for e in results[0]["exercises"] if e["id"] == "td_loss")
    assert td_loss["status"] == "timeout"
    assert not list((cache / "results").glob("result-*.json"))  # a timeout depends on the machine's load
    again, started = grade(tmp_path, cache, *args)
    assert started.count("student") == 1 and without_path(again[0]) == without_path(results[0])


@pytest.mark.slow  # starts a grader
def test_a_damaged_entry_is_not_taken(graded_class):
    tmp_path, cache, first, class_folder = graded_class
    for entry in (cache / "results").glob("result-*.json"):
        data = entry.read_bytes()
        entry.write_bytes(data.replace(b'"score": ', b'"score": 1', 1))  # the digest line no longer matches
    path = class_folder / "submitted" / "ada" / "custom_gradients" / "custom_gradients.ipynb"
    results, started = grade(tmp_path, cache, str(path), "--seed", "31", "--reuse-results")
    assert started.count("student") == 1 and results[0] == first["ada"]


def test_the_store_keeps_the_entries_used_last(tmp_path, monkeypatch):
    from autograder.model.results import ExerciseResult, SubmissionResult
    from autograder.report.contract import submission_json
    from autograder.store import result_store

    monkeypatch.setattr(result_store, "KEEP_RESULTS", 2)
    store = ResultStore(tmp_path / "results")
    result = SubmissionResult("a.ipynb", "a", "custom_gradients",
                              [ExerciseResult("log1pexp", 1.0, 2.0, "partial", ["unstable-value"], "Fix: ...")])
    for number, key in enumerate(("k1", "k2", "k3")):
        assert store.save(key, result)
        os.utime(store.path(key), (1_000_000 + number, 1_000_000 + number))
    assert len(list(store.folder.glob("result-*.json"))) == 3  # saving does not trim: a run trims once
    store.trim()
    assert store.load("k1") is None and store.load("k2") is not None and store.load("k3") is not None
    kept = store.load("k3")
    assert submission_json(kept) == submission_json(result) and kept.exercises[0].pitfalls == ["unstable-value"]
    assert oct(os.stat(store.folder).st_mode & 0o777) == "0o700"
