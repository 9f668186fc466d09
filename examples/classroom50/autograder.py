#!/usr/bin/env python3
"""Classroom 50 autograder for one assignment of the TensorFlow autodiff course.

Put this file at CLASSROOM/autograders/ASSIGNMENT/autograder.py in your classroom50 repository (ASSIGNMENT
is Classroom 50's slug of the assignment) and edit the settings below. Classroom 50's runner calls it once
per submission, in the student's checkout, with the submission's identity in its environment (CLASSROOM,
ASSIGNMENT, SUBMISSION_TAG, COMMIT_URL, RELEASE_URL, REVIEW_URL, OWNER, ASSIGNMENT_TYPE, GITHUB_*).

It installs the kit (from a `course/` folder beside this file, else a clone of COURSE_REPO), grades the
notebook with `autograder grade NOTEBOOK --format classroom50`, which writes ./result.json
(classroom50/result/v1, points in hundredths), ./release-body.md (the feedback, Markdown) and the step's
status and summary, and appends the feedback to the job summary. As root (sudo: GitHub-hosted runners have
it without a password) so that the kit's root containment applies: every student child in its own mount,
PID and uid namespace.

Exit status, as Classroom 50 reads it: 0 when the submission was graded, whatever its score (a missing
notebook too: result.json then says so, with score 0); 1 when the grader itself could not run (the runner
then records an error, not a score). Standard library only.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

# ---- settings: edit these --------------------------------------------------------------------------
KIT_ASSIGNMENT = "custom_gradients"  # the kit's assignment id: custom_gradients, higher_order, jacobians or implicit
NOTEBOOK = "custom_gradients.ipynb"  # the student's notebook, at the root of their repository
COURSE_REPO = "https://github.com/YOUR-ORG/YOUR-COURSE.git"  # the kit and solutions/, when no course/ beside
COURSE_REF = "main"
MAX_POINTS = 12  # the assignment's points (6 exercises of 2; implicit: 4, 8): the score-0 result of a missing notebook
# ------------------------------------------------------------------------------------------------------

HERE = Path(__file__).resolve().parent
WORKSPACE = Path.cwd()
SCALE = 100  # Classroom 50 counts integers: hundredths of a point, as the kit writes them
QUIET = {"TF_CPP_MIN_LOG_LEVEL": "3", "TF_ENABLE_ONEDNN_OPTS": "0", "PYTHONUNBUFFERED": "1"}
PASSED_ON = ("CLASSROOM", "ASSIGNMENT", "ASSIGNMENT_TYPE", "USERNAME", "OWNER", "SUBMISSION_TAG", "COMMIT_URL",
             "RELEASE_URL", "REVIEW_URL", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_ACTOR",
             "GITHUB_REPOSITORY", "GITHUB_SERVER_URL", "GITHUB_SHA", "AUTOGRADER_SEED")


def log(message: str) -> None:
    print(f"autograder.py: {message}", flush=True)


def scratch() -> Path:
    base = os.environ.get("RUNNER_TEMP") or tempfile.mkdtemp(prefix="autograder-")
    return Path(base)


def course_folder() -> Path:
    """The kit and its solutions/: beside this file (the bundle), else cloned."""
    if (HERE / "course" / "solutions").is_dir():
        return HERE / "course"
    target = scratch() / "autodiff-course"
    if not target.exists():
        log(f"cloning {COURSE_REPO} ({COURSE_REF})")
        subprocess.run(["git", "clone", "--quiet", "--depth", "1", "--branch", COURSE_REF, COURSE_REPO, str(target)],
                       check=True)
    return target


def grader(course: Path) -> str:
    """The `autograder` command: $AUTOGRADER_BIN (a runner image that has the kit), else installed into a
    virtual environment, editable (the grader's mistake models are not in the kit's wheel)."""
    if os.environ.get("AUTOGRADER_BIN"):
        return os.environ["AUTOGRADER_BIN"]
    venv = scratch() / "autograder-venv"
    command = venv / "bin" / "autograder"
    if not command.exists():
        log("installing the grader (TensorFlow included: about a minute)")
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        "-e", f"{course}[tf]"], check=True)  # the tf extra: the runner has no TensorFlow
    return str(command)


def as_root() -> list[str]:
    """sudo where it needs no password (GitHub-hosted runners), so that the root containment applies."""
    if os.geteuid() == 0:
        return []
    if shutil.which("sudo") and subprocess.run(["sudo", "-n", "true"], capture_output=True).returncode == 0:
        return ["sudo", "-n"]
    log("not root and no password-less sudo: grading with the kit's unprivileged containment")
    return []


def seed() -> list[str]:
    """The course's seed of the hidden cases: $AUTOGRADER_SEED, else a `seed` file beside this file."""
    value = os.environ.get("AUTOGRADER_SEED") or ((HERE / "seed").read_text().strip() if (HERE / "seed").exists() else "")
    return ["--seed", value] if value else []


def missing_notebook() -> int:
    """No notebook to grade: a score-0 result that says so (the student's doing, not an infrastructure error)."""
    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    env = os.environ.get
    commit = env("COMMIT_URL", "unset:COMMIT_URL")
    result = {
        "schema": "classroom50/result/v1", "classroom": env("CLASSROOM", "unset:CLASSROOM"),
        "assignment": env("ASSIGNMENT", "unset:ASSIGNMENT"), "assignment_type": env("ASSIGNMENT_TYPE") or "individual",
        "owner": env("OWNER") or env("USERNAME") or env("GITHUB_ACTOR") or "unset:OWNER",
        "submission": env("SUBMISSION_TAG", "submit/unset"), "commit": commit,
        "release": env("RELEASE_URL", "unset:RELEASE_URL"), "review": env("REVIEW_URL") or commit,
        "datetime": now, "graded_at": now, "score": 0, "max-score": MAX_POINTS * SCALE,
        "tests": [{"test-name": "notebook", "passed": False, "score": 0, "max-score": MAX_POINTS * SCALE,
                   "status": "missing", "message": f"{NOTEBOOK} is not in the repository"}],
    }
    (WORKSPACE / "result.json").write_text(json.dumps(result, indent=2) + "\n")
    (WORKSPACE / "release-body.md").write_text(
        f"### Autograder: 0 / {MAX_POINTS} points\n\n`{NOTEBOOK}` is not at the root of the repository: "
        "commit the assignment's notebook under that name and submit again.\n")
    log(f"{NOTEBOOK} is missing: score 0")
    return 0


def main() -> int:
    if not (WORKSPACE / NOTEBOOK).is_file():
        return missing_notebook()
    try:
        course = course_folder()
        command = grader(course)
    except (OSError, subprocess.CalledProcessError) as error:
        log(f"the grader could not be installed: {error}")
        return 1
    environment = [f"{k}={os.environ[k]}" for k in PASSED_ON if k in os.environ] + [f"{k}={v}" for k, v in QUIET.items()]
    root = as_root()
    run = [*root, "env", *environment, command, "grade", NOTEBOOK, "--assignment", KIT_ASSIGNMENT,
           "--solutions", str(course / "solutions"), "--format", "classroom50", "--output", str(WORKSPACE / "result.json"),
           *seed()]
    if os.environ.get("GITHUB_STEP_SUMMARY"):
        run.append("--step-summary")
    done = subprocess.run(run, cwd=WORKSPACE)
    if root:  # hand the files back to the runner's user
        subprocess.run([*root, "chown", f"{os.getuid()}:{os.getgid()}", "result.json", "release-body.md"],
                       cwd=WORKSPACE, check=False)
    if done.returncode not in (0, 1) or not (WORKSPACE / "result.json").is_file():
        log(f"the grader could not run (exit status {done.returncode})")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
