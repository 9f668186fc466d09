"""What the tests share: the repository's paths, a quiet environment, the CLI run for real, HTML read back.

Test modules import these from here (never from each other, nor from conftest.py, which holds fixtures).
"""
from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import pytest

from autograder.config import quiet_environment
from autograder.report import formats

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENT_IDS = ("custom_gradients", "higher_order", "jacobians")
BIN = Path(sys.executable).parent


def quiet_env(**extra: str) -> dict[str, str]:
    """The environment for a subprocess: TensorFlow silent, the venv's tools on PATH (nbgrader calls alembic)."""
    env = quiet_environment()
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


# --------------------------------------------------------------------------- Gradescope's rules

def check_gradescope(data: dict) -> None:
    """Gradescope's rules for results.json (gradescope-autograders.readthedocs.io, "Autograder Specifications")."""
    assert isinstance(data, dict)
    assert isinstance(data["score"], (int, float)) and not isinstance(data["score"], bool)
    assert math.isfinite(data["score"]) and data["score"] >= 0
    assert isinstance(data["execution_time"], int) and data["execution_time"] >= 0
    assert isinstance(data["output"], str) and data["output"]
    for key in ("output_format", "test_output_format", "test_name_format"):
        assert data[key] in formats.OUTPUT_FORMATS
    for key in ("visibility", "stdout_visibility"):
        assert data[key] in formats.VISIBILITIES
    assert isinstance(data["extra_data"], dict)
    assert isinstance(data["tests"], list) and data["tests"]
    allowed = {"score", "max_score", "status", "name", "name_format", "number", "output", "output_format", "tags",
               "visibility", "extra_data"}
    for test in data["tests"]:
        assert set(test) <= allowed, set(test) - allowed
        assert isinstance(test["name"], str) and test["name"]
        assert isinstance(test["score"], (int, float)) and isinstance(test["max_score"], (int, float))
        assert 0 <= test["score"] <= test["max_score"]
        assert test["status"] == ("passed" if test["score"] == test["max_score"] else "failed")
        assert test["visibility"] in formats.VISIBILITIES
        assert isinstance(test["output"], str) and test.get("output_format", "text") in formats.OUTPUT_FORMATS
        assert all(isinstance(tag, str) for tag in test.get("tags", []))
    # The top-level score is the submission's total; the tests add up to it up to their 4-decimal rounding.
    assert data["score"] == pytest.approx(sum(t["score"] for t in data["tests"]), abs=1e-4 * len(data["tests"]))
    json.dumps(data, allow_nan=False)  # plain JSON: no NaN or inf anywhere


# --------------------------------------------------------------------------- HTML, as parsers and browsers see it

SKIP_BROWSER = "AUTOGRADER_SKIP_BROWSER"
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
# As root (CI) Chromium needs --no-sandbox; without the background-networking flags it tries
# to reach Google's services, which a closed network refuses.
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync")

# --------------------------------------------------------------------------- helpers (also used by test_feedback_pages)

class Elements(HTMLParser):
    """Every element (tag, attributes) and the text of a document, as a browser's parser sees them."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.chunks: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.chunks.append(data)

    def tags(self, name: str) -> list[dict[str, str | None]]:
        return [attrs for tag, attrs in self.elements if tag == name]

    @property
    def text(self) -> str:
        return " ".join("".join(self.chunks).split())


def chromium() -> str:
    for name in CHROMIUM_NAMES:
        if found := shutil.which(name):
            return found
    if os.environ.get(SKIP_BROWSER) == "1":
        pytest.skip(f"no Chromium on this machine, and {SKIP_BROWSER}=1 says to skip the browser checks")
    pytest.fail(f"headless Chromium is needed to check the HTML pages in a real browser and none of "
                f"{', '.join(CHROMIUM_NAMES)} is on PATH: `apt-get install -y chromium` (.ci/run installs it), "
                f"or set {SKIP_BROWSER}=1 to skip these checks on this machine", pytrace=False)


def browser_dom(page: Path) -> str:
    """The DOM Chromium builds from ``page`` (a file), after its load event and every script it allows."""
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        done = subprocess.run([chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--dump-dom",
                               "--virtual-time-budget=10000", page.resolve().as_uri()],
                              capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "<html" in done.stdout, (
        f"chromium failed ({done.returncode}) on {page}:\n{done.stderr[-3000:]}")
    return done.stdout
