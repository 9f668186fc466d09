"""A class graded in parallel, one submission at a time, or in shards gives the same results."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import ROOT, grade_json, run_autograder

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
    assert run_autograder("grade", str(class_folder), *ARGS, "--shard", "1/4", "--format", "json",
                          "--output", str(output)).returncode == 0
    twice = run_autograder("merge", str(output), str(output))
    assert twice.returncode == 2 and "is in two inputs" in twice.stderr
    no_seed = run_autograder("grade", str(class_folder), "--shard", "1/2")
    assert no_seed.returncode == 2 and "--shard needs --seed" in no_seed.stderr
    assert run_autograder("grade", str(class_folder), "--shard", "3/2", "--seed", "1").returncode == 2
