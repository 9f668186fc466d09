"""The examples run for real: Classroom 50's autograder.py in a student repository with the runner's
environment, and the plain GitHub Actions workflow's grading step as GitHub runs it (bash, job summary)."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from markdown_it import MarkdownIt

from autograder.report.numbers import number
from helpers import BIN, CLASSROOM50_RUNNER_ENV, ROOT, classroom50_problem, grade_json, quiet_env

AUTOGRADER_PY = ROOT / "examples" / "classroom50" / "autograder.py"
WORKFLOW = ROOT / "examples" / "github-actions" / "grade.yml"
BRAM = ROOT / "examples" / "submitted" / "bram" / "custom_gradients" / "custom_gradients.ipynb"


def student_repository(tmp_path: Path, notebook: Path | None) -> Path:
    """A student's checkout: a git repository whose last commit holds the notebook (or nothing)."""
    repository = tmp_path / "autodiff-fall-2026-custom-gradients-octo-ada"
    repository.mkdir()
    if notebook is not None:
        shutil.copy(notebook, repository / "custom_gradients.ipynb")
    (repository / "README.md").write_text("my work\n")
    git = ["git", "-c", "user.name=Ada", "-c", "user.email=ada@example.edu", "-C", str(repository)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "submit"], check=True,
                   env={**os.environ, "GIT_COMMITTER_DATE": "2026-12-01T09:30:00Z"})
    return repository


def bundle(tmp_path: Path) -> Path:
    """CLASSROOM/autograders/ASSIGNMENT/ as Classroom 50's runner extracts it: autograder.py, the course beside."""
    folder = tmp_path / "bundle"
    folder.mkdir()
    shutil.copy(AUTOGRADER_PY, folder / "autograder.py")
    (folder / "course").symlink_to(ROOT)
    (folder / "seed").write_text("1\n")
    return folder


def run_classroom50(tmp_path: Path, repository: Path) -> tuple[subprocess.CompletedProcess, Path]:
    outputs, summary = tmp_path / "github_output", tmp_path / "step_summary.md"
    outputs.touch()
    summary.touch()
    env = quiet_env(**CLASSROOM50_RUNNER_ENV, GITHUB_OUTPUT=str(outputs), GITHUB_STEP_SUMMARY=str(summary),
                    RUNNER_TEMP=str(tmp_path), AUTOGRADER_BIN=str(BIN / "autograder"))
    done = subprocess.run([sys.executable, str(bundle(tmp_path) / "autograder.py")], cwd=repository, env=env,
                          capture_output=True, text=True, timeout=900)
    return done, outputs


@pytest.mark.slow  # starts a grader
def test_classroom50_autograder_grades_the_notebook_and_writes_what_the_runner_reads(tmp_path):
    repository = student_repository(tmp_path, BRAM)
    done, outputs = run_classroom50(tmp_path, repository)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    data = json.loads((repository / "result.json").read_text())
    assert classroom50_problem(data) is None, data
    assert data["datetime"] == "2026-12-01T09:30:00Z"  # the submission instant: the commit's date

    [expected] = grade_json(str(BRAM), "--assignment", "custom_gradients", "--seed", "1")
    assert [(t["test-name"], t["points"]) for t in data["tests"]] == [(e["id"], e["score"]) for e in expected["exercises"]]
    assert data["score"] == sum(round(e["score"] * 100) for e in expected["exercises"]) and data["max-score"] == 1200
    assert [t["passed"] for t in data["tests"]] == [e["status"] == "passed" for e in expected["exercises"]]
    body = (repository / "release-body.md").read_text()
    assert body.startswith(f"### Autograder: {number(expected['score'])} / 12 points")  # two decimals
    assert "log1pexp" in MarkdownIt("commonmark").render(body)
    status, summary = outputs.read_text().splitlines()
    assert status == "status=failure" and summary.startswith(f"summary=autograder: {number(expected['score'])}/12")
    assert "log1pexp" in done.stdout and "partial" in done.stdout  # the log shows the feedback
    # The log and the job summary name the student (the runner's OWNER), not the notebook's file name
    assert re.search(rf"^octo-ada · custom_gradients · {re.escape(number(expected['score']))} / 12 ", done.stdout,
                     re.M), done.stdout[:600]
    assert "custom_gradients · custom_gradients" not in done.stdout
    job_summary = (tmp_path / "step_summary.md").read_text()
    assert "## Autograder:" in job_summary and "| octo-ada | **total** |" in job_summary
    assert "Feedback: octo-ada (" in job_summary
    assert not re.search(r"seed\W*\d", done.stdout + body + json.dumps(data))  # the seed stays the instructor's


@pytest.mark.slow  # runs the example's script
def test_classroom50_autograder_without_the_notebook_gives_score_0_not_an_error(tmp_path):
    repository = student_repository(tmp_path, None)
    done, _ = run_classroom50(tmp_path, repository)
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads((repository / "result.json").read_text())
    assert classroom50_problem(data) is None
    assert (data["score"], data["max-score"]) == (0, 1200) and data["tests"][0]["status"] == "missing"
    assert "custom_gradients.ipynb" in (repository / "release-body.md").read_text()


# --------------------------------------------------------------------------- plain GitHub Actions

@pytest.fixture(scope="module")
def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text())


def grading_step(workflow: dict) -> dict:
    [step] = [s for s in workflow["jobs"]["grade"]["steps"] if "autograder" in s.get("run", "") and "grade" in s["run"]
              and "pip install" not in s["run"]]
    return step


def test_workflow_is_a_plain_check_with_a_job_summary_and_sudo(workflow):
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert "push" in triggers and workflow["permissions"] == {"contents": "read"}
    uses = [s.get("uses", "") for s in workflow["jobs"]["grade"]["steps"]]
    assert uses[0].startswith("actions/checkout@") and any(u.startswith("actions/setup-python@") for u in uses)
    run = grading_step(workflow)["run"]
    assert "--step-summary" in run and '--fail-under "$FAIL_UNDER"' in run and "sudo -n" in run
    for name in ("GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS", "GITHUB_ACTOR", "GITHUB_REPOSITORY"):
        assert f'{name}="${name}"' in run, name  # sudo resets the environment
    for step in workflow["jobs"]["grade"]["steps"]:
        if "run" in step:
            subprocess.run(["bash", "-n", "-c", step["run"]], check=True)


@pytest.mark.slow  # starts a grader
@pytest.mark.parametrize("fail_under, status", [("11", 1), ("5", 0)])  # bram: 10.4286 of 12
def test_grading_step_prints_feedback_writes_the_summary_and_fails_below_the_bar(workflow, tmp_path, fail_under,
                                                                                   status):
    """The step's `run:` as GitHub runs it (bash -eo pipefail), in a student repository."""
    repository = tmp_path / "student-repo"
    repository.mkdir()
    shutil.copy(BRAM, repository / "custom_gradients.ipynb")
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir()
    (runner_temp / "course").symlink_to(ROOT)  # what the install step's clone of the course repository holds
    summary = tmp_path / "summary.md"
    env = quiet_env(**{key: str(value) for key, value in workflow["env"].items()})
    env.update(RUNNER_TEMP=str(runner_temp), GITHUB_STEP_SUMMARY=str(summary), AUTOGRADER_SEED="1",
               GITHUB_ACTIONS="true", FAIL_UNDER=fail_under, GITHUB_ACTOR="octo-bram",
               GITHUB_REPOSITORY="autodiff-org/custom-gradients-octo-bram")
    env["PATH"] = f"{BIN}{os.pathsep}{env['PATH']}"  # where the install step's pip puts `autograder`
    done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", grading_step(workflow)["run"]],
                          cwd=repository, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == status, done.stderr[-3000:]
    assert "log1pexp" in done.stdout and "partial" in done.stdout
    assert done.stdout.startswith("octo-bram · custom_gradients · "), done.stdout[:300]  # GitHub's actor, not the file
    text = summary.read_text()
    assert "| octo-bram | **total** |" in text
    html = MarkdownIt("commonmark").enable("table").render(text)
    assert "<table>" in html and "<strong>total</strong>" in html and "unstable" in html
    assert (f"below {fail_under} points: the check fails" in text) == (status == 1)
    assert not re.search(r"seed\W*\d", text + done.stdout)  # the run's log and summary are the student's
