"""Shared fixtures: the repository's paths and a quiet environment for subprocesses (static reading strict)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# A check of the static reading that crashes raises instead of leaving its evidence out, here and in every
# grader the tests start (they inherit this environment): a test expecting no finding cannot pass on a crash.
os.environ["AUTOGRADER_STRICT_STATIC"] = "1"

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENT_IDS = ("custom_gradients", "higher_order", "jacobians")
BIN = Path(sys.executable).parent


def quiet_env(**extra: str) -> dict[str, str]:
    """The environment for a subprocess: TensorFlow silent, the venv's tools on PATH (nbgrader calls alembic)."""
    env = dict(os.environ)
    env.update(TF_CPP_MIN_LOG_LEVEL="3", TF_ENABLE_ONEDNN_OPTS="0", PYTHONWARNINGS="ignore")
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env.update(extra)
    return env


def run_autograder(*args: str, cwd: Path = ROOT, timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=cwd, env=quiet_env(),
                          capture_output=True, text=True, timeout=timeout)


def grade_json(*args: str, cwd: Path = ROOT) -> list[dict]:
    """Run `autograder grade ... --format json` for real and parse what it printed."""
    done = run_autograder("grade", *args, "--format", "json", cwd=cwd)
    assert done.returncode == 0, f"autograder failed ({done.returncode}):\n{done.stderr[-3000:]}"
    return json.loads(done.stdout)


def by_file(results: list[dict]) -> dict[str, dict]:
    return {Path(r["submission"]).name: r for r in results}


def exercise(result: dict, exercise_id: str) -> dict:
    return next(e for e in result["exercises"] if e["id"] == exercise_id)


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT
