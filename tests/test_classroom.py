"""The GitHub Classroom workflow: its shape, and its grading step run for real in a student-repository layout."""
from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest
import yaml

from autograder.report import formats
from helpers import BIN, ROOT, grade_json, quiet_env

WORKFLOW = ROOT / "examples" / "github-classroom" / "classroom.yml"
REPORTER = "classroom-resources/autograding-grading-reporter@v1"


@pytest.fixture(scope="module")
def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text())


def steps(workflow: dict) -> list[dict]:
    return workflow["jobs"]["run-autograding-tests"]["steps"]


def grading_step(workflow: dict) -> dict:
    [step] = [s for s in steps(workflow) if "autograder grade" in s.get("run", "")]
    return step


def test_workflow_has_the_shape_classroom_requires(workflow):
    # Classroom reads points only from a workflow of this name with this one job.
    assert workflow["name"] == "Autograding Tests"
    assert list(workflow["jobs"]) == ["run-autograding-tests"]
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert "push" in triggers
    assert workflow["permissions"]["checks"] == "write"
    uses = [s.get("uses", "") for s in steps(workflow)]
    assert uses[0].startswith("actions/checkout@") and any(u.startswith("actions/setup-python@") for u in uses)
    step = grading_step(workflow)
    [reporter] = [s for s in steps(workflow) if s.get("uses") == REPORTER]
    assert steps(workflow).index(reporter) > steps(workflow).index(step)
    # The reporter reads each runner's result from <RUNNER ID in capitals>_RESULTS.
    assert reporter["with"]["runners"] == step["id"]
    assert reporter["env"] == {f"{step['id'].upper()}_RESULTS": f"${{{{ steps.{step['id']}.outputs.result }}}}"}
    assert "--format classroom" in step["run"]
    assert workflow["env"]["ASSIGNMENT"] in ("custom_gradients", "higher_order", "jacobians")


def test_install_step_is_valid_bash(workflow):
    [install] = [s for s in steps(workflow) if "pip install" in s.get("run", "")]
    subprocess.run(["bash", "-n", "-c", install["run"]], check=True)


@pytest.mark.slow  # starts a grader
def test_grading_step_runs_and_reports_the_points_of_the_json(workflow, tmp_path):
    """The step's `run:` as GitHub runs it (bash -eo pipefail), in a student repository, with GITHUB_OUTPUT set."""
    assignment = workflow["env"]["ASSIGNMENT"]
    student_notebook = ROOT / "examples" / "submitted" / "bram" / assignment / f"{assignment}.ipynb"
    repository = tmp_path / "student-repo"
    repository.mkdir()
    shutil.copy(student_notebook, repository / f"{assignment}.ipynb")
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir()
    (runner_temp / "course").symlink_to(ROOT)  # what the install step's clone of the course repository holds
    outputs = tmp_path / "github_output"
    outputs.touch()
    env = quiet_env(**{key: str(value) for key, value in workflow["env"].items()})
    env.update(RUNNER_TEMP=str(runner_temp), GITHUB_OUTPUT=str(outputs), AUTOGRADER_SEED="1", GITHUB_ACTIONS="true")
    env["PATH"] = f"{BIN}{os.pathsep}{env['PATH']}"  # where the install step's pip puts `autograder`
    done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", grading_step(workflow)["run"]],
                          cwd=repository, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    [line] = [line for line in outputs.read_text().splitlines() if line.startswith("result=")]
    result = formats.decode_classroom(line.removeprefix("result="))

    [expected] = grade_json(str(student_notebook), "--assignment", assignment, "--seed", "1")
    assert result["version"] == 1 and result["max_score"] == expected["max_score"] == 10
    assert round(sum(test["score"] for test in result["tests"]), 4) == expected["score"]
    assert [(t["name"], t["score"]) for t in result["tests"]] == [(e["id"], e["score"]) for e in expected["exercises"]]
    assert result["status"] == ("pass" if expected["score"] == expected["max_score"] else "fail")
    assert {t["status"] for t in result["tests"]} <= {"pass", "fail", "error"}
    assert all(isinstance(t["message"], str) and t["filename"] == f"{assignment}.ipynb" for t in result["tests"])
    assert f"Points {formats.number(expected['score'])}/10\n" in done.stdout
    assert not re.search(r"seed\W*\d", done.stdout)  # the run's log is the student's: the seed of the hidden cases stays out
