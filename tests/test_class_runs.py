"""A class graded in parallel, one submission at a time, in shards, with or without the reference cache,
and with copies of one program graded once, gives the same results."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from helpers import ROOT, grade_json, keyed_entry, quiet_env, run_autograder

pytestmark = pytest.mark.slow
ARGS = ("--assignment", "custom_gradients", "--seed", "21")


@pytest.fixture(scope="module")
def class_folder(tmp_path_factory) -> Path:
    """The example class's custom_gradients notebooks (one assignment keeps this fast), in nbgrader's layout."""
    folder = tmp_path_factory.mktemp("class")
    for notebook in sorted((ROOT / "examples" / "submitted").glob("*/custom_gradients/*.ipynb")):
        target = folder / "submitted" / notebook.parent.parent.name / "custom_gradients" / notebook.name
        target.parent.mkdir(parents=True)
        target.write_bytes(notebook.read_bytes())
    return folder


@pytest.fixture(scope="module")
def one_job(class_folder) -> list[dict]:
    return grade_json(str(class_folder), *ARGS, "--jobs", "1")


def test_results_are_identical_for_any_number_of_jobs(class_folder, one_job):
    assert len(one_job) >= 8
    assert grade_json(str(class_folder), *ARGS, "--jobs", "3") == one_job


def test_results_are_identical_to_grading_each_submission_in_a_fresh_process(one_job):
    for expected in one_job[:4]:
        [alone] = grade_json(expected["submission"], *ARGS)
        assert alone == expected


def test_shards_merged_give_the_results_of_one_run(class_folder, one_job, tmp_path):
    shards = []
    for k in (1, 2, 3):
        output = tmp_path / f"shard{k}.json"
        done = run_autograder("grade", str(class_folder), *ARGS, "--shard", f"{k}/3", "--format", "json",
                              "--output", str(output))
        assert done.returncode == 0, done.stderr
        shards.append(json.loads(output.read_text()))
    assert sorted(len(shard) for shard in shards) != [0, 0, len(one_job)], "the shares must split the class"
    assert sum(len(shard) for shard in shards) == len(one_job)
    merged = run_autograder("merge", *(str(tmp_path / f"shard{k}.json") for k in (1, 2, 3)))
    assert merged.returncode == 0, merged.stderr
    assert json.loads(merged.stdout) == one_job


def test_merge_refuses_the_same_shard_twice_and_shard_needs_a_seed(class_folder, tmp_path):
    output = tmp_path / "shard.json"
    for k in (1, 2, 3, 4):  # the shares follow a hash of the paths (here below a random folder): one not empty
        assert run_autograder("grade", str(class_folder), *ARGS, "--shard", f"{k}/4", "--format", "json",
                              "--output", str(output)).returncode == 0
        if json.loads(output.read_text()):
            break
    twice = run_autograder("merge", str(output), str(output))
    assert twice.returncode == 2 and "is in two inputs" in twice.stderr
    no_seed = run_autograder("grade", str(class_folder), "--shard", "1/2")
    assert no_seed.returncode == 2 and "--shard needs --seed" in no_seed.stderr
    assert run_autograder("grade", str(class_folder), "--shard", "3/2", "--seed", "1").returncode == 2


def grade_with(*args: str, cache: str) -> subprocess.CompletedProcess:
    """`autograder grade --format json` with AUTOGRADER_CACHE set (a folder, or "off")."""
    return subprocess.run([sys.executable, "-m", "autograder", "grade", *args, "--format", "json"], cwd=ROOT,
                          env=quiet_env(AUTOGRADER_CACHE=cache), capture_output=True, text=True, timeout=900)


def test_cached_reference_outcomes_give_the_results_of_a_run_without_the_cache(class_folder, one_job, tmp_path):
    folder = tmp_path / "cache"
    first = grade_with(str(class_folder), *ARGS, "--jobs", "2", cache=str(folder))
    assert first.returncode == 0, first.stderr
    [entry] = folder.glob("reference-*.json")  # one assignment, one entry
    second = grade_with(str(class_folder), *ARGS, "--jobs", "2", cache=str(folder))
    assert second.returncode == 0, second.stderr
    off = grade_with(str(class_folder), *ARGS, "--jobs", "2", cache="off")
    assert off.returncode == 0, off.stderr
    assert json.loads(first.stdout) == json.loads(second.stdout) == json.loads(off.stdout) == one_job
    # the kept grades, the programs' times (the next run's order), the key
    assert sorted(p.name for p in folder.iterdir()) == ["durations.json", "key", entry.name, "results"]

    def rewrite(change, sign: bool = True) -> None:
        """Change the entry's data; with ``sign``, also its MAC, under the cache's key (else it no longer
        matches: as for anyone, a child included, who cannot read the key)."""
        digest, _, text = entry.read_bytes().partition(b"\n")
        data = json.loads(text)
        change(data)
        text = json.dumps(data).encode()
        entry.write_bytes(keyed_entry(folder, text) if sign else digest + b"\n" + text)

    def swap_value_and_gradient(data):  # the reference's first log1pexp case: same shapes, other numbers
        outputs = data["record"]["outcomes"]["0"]["outputs"]
        outputs["value"], outputs["gradient"] = outputs["gradient"], outputs["value"]

    # The second run did read the entry: with a consistent but altered entry, the results follow it.
    rewrite(swap_value_and_gradient)
    altered = grade_with(str(class_folder), *ARGS, cache=str(folder))
    assert altered.returncode == 0, altered.stderr
    assert json.loads(altered.stdout) != one_job
    # An entry whose digest does not match (a disk error, a hand edit) is not used: computed again, rewritten.
    rewrite(swap_value_and_gradient, sign=False)
    assert json.loads(grade_with(str(class_folder), *ARGS, cache=str(folder)).stdout) == one_job
    assert json.loads(grade_with(str(class_folder), *ARGS, cache=str(folder)).stdout) == one_job
    # Nor is one whose reference does not run cleanly.
    rewrite(lambda data: data["record"]["outcomes"]["0"].update(status="error", outputs=None, error={
        "type": "ValueError", "message": "spoiled", "module": "", "contract": False, "frames": []}))
    again = grade_with(str(class_folder), *ARGS, cache=str(folder))
    assert again.returncode == 0 and json.loads(again.stdout) == one_job, again.stderr
    # Another seed, another solution: other keys, never the spoiled entry.
    assert grade_with(str(class_folder), "--assignment", "custom_gradients", "--seed", "22",
                      cache=str(folder)).returncode == 0
    solutions = tmp_path / "solutions"
    (solutions / "custom_gradients").mkdir(parents=True)
    notebook = (ROOT / "solutions" / "custom_gradients" / "custom_gradients.ipynb").read_text()
    (solutions / "custom_gradients" / "custom_gradients.ipynb").write_text(notebook + "\n")
    other = grade_with(str(class_folder), *ARGS, "--solutions", str(solutions), cache=str(folder))
    assert other.returncode == 0, other.stderr
    assert json.loads(other.stdout) == one_job


def test_submissions_that_run_the_same_code_are_graded_once_with_the_results_of_distinct_ones(tmp_path):
    """The template handed in unchanged by many, re-saved by JupyterLab (other outputs, execution counts,
    metadata, an extra markdown cell): one run, the same results as copies whose code differs by a comment."""
    source = ROOT / "examples" / "submitted" / "bram" / "custom_gradients" / "custom_gradients.ipynb"
    for number, student in enumerate(("same1", "same2", "same3")):
        notebook = nbformat.read(source, as_version=4)
        notebook.metadata["resaved_by"] = student
        for cell in notebook.cells:
            if cell.cell_type == "code":
                cell.execution_count = number + 1
                cell.outputs = [nbformat.v4.new_output("stream", text=f"{student}\n")] if number else []
        if number == 2:
            notebook.cells.append(nbformat.v4.new_markdown_cell(f"Handed in by {student}."))
        target = tmp_path / "submitted" / student / "custom_gradients" / "custom_gradients.ipynb"
        target.parent.mkdir(parents=True)
        nbformat.write(notebook, target)
    assert len({(tmp_path / "submitted" / s / "custom_gradients" / "custom_gradients.ipynb").read_bytes()
                for s in ("same1", "same2", "same3")}) == 3
    for student in ("other1", "other2", "other3"):
        notebook = nbformat.read(source, as_version=4)
        code = next(cell for cell in notebook.cells if cell.cell_type == "code"
                    and cell.metadata.get("nbgrader", {}).get("solution"))
        code.source += f"\n# handed in by {student}"  # a different program (for the grader), the same results
        target = tmp_path / "submitted" / student / "custom_gradients" / "custom_gradients.ipynb"
        target.parent.mkdir(parents=True)
        nbformat.write(notebook, target)
    done = grade_with(str(tmp_path), *ARGS, "--jobs", "2", cache="off")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    results = {r["student"]: r for r in json.loads(done.stdout)}
    assert len(results) == 6
    for same, other in (("same1", "other1"), ("same2", "other2"), ("same3", "other3")):
        assert {**results[same], "student": "", "submission": ""} == {**results[other], "student": "",
                                                                        "submission": ""}
        assert results[same]["submission"].endswith(f"{same}/custom_gradients/custom_gradients.ipynb")
    assert results["same1"]["score"] < results["same1"]["max_score"]  # bram's mistakes, named for each copy
    # Four runs for six submissions: the three copies of one program shared one (counted through the API).
    counting = """
import json, sys
from pathlib import Path
from autograder.pipeline.grading_run import grade
from autograder.run import scheduler
from autograder.config import Settings
from autograder.load.discover import find_submissions
started = []
def counted(runs, jobs=1):
    runs = list(runs)
    started.extend(run.key for run in runs if run.key[0] == "student")
    return run_all(runs, jobs)
run_all, scheduler.run_all = scheduler.run_all, counted  # what LocalRunner.run_all calls
found, _ = find_submissions([sys.argv[1]])
results = grade(found, Settings(seed=21, jobs=2, assignment="custom_gradients", cache=None)).results
print(json.dumps([len(started), sorted({r.score for r in results if r.student.startswith("same")})]))
"""
    counted = subprocess.run([sys.executable, "-c", counting, str(tmp_path)], cwd=ROOT, env=quiet_env(),
                             capture_output=True, text=True, timeout=900)
    assert counted.returncode == 0, counted.stderr
    assert json.loads(counted.stdout) == [4, [results["same1"]["score"]]]
