"""`autograder gradescope-bundle`: the zip, and its run_autograder run for real in a Gradescope-like layout.

Gradescope unpacks the zip into <root>/source, puts the student's files in <root>/submission
and reads <root>/results/results.json. Here <root> is a tmp folder (run_autograder honours
GRADESCOPE_AUTOGRADER_ROOT); setup.sh's pip install is skipped (this venv has the kit's
dependencies; run_autograder puts the bundled copy of the kit first on PYTHONPATH).
"""
from __future__ import annotations

import json
import re
import os
import py_compile
import shutil
import stat
import subprocess
import time
import zipfile
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from helpers import BIN, ROOT, check_gradescope, grade_json, quiet_env, run_autograder

ASSIGNMENT = "custom_gradients"
EXERCISES = ["log1pexp", "straight_through_round", "clip_gradient_norm", "td_loss", "checkpointed", "safe_norm"]
SUBMITTED = ROOT / "examples" / "submitted"


def notebook(student: str) -> Path:
    return SUBMITTED / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    output = tmp_path_factory.mktemp("bundle") / "autograder.zip"
    done = run_autograder("gradescope-bundle", ASSIGNMENT, "--output", str(output), timeout=120)
    assert done.returncode == 0, done.stderr
    assert str(output) in done.stdout
    return output


def gradescope_root(tmp_path: Path, bundle: Path, files: dict[str, bytes | Path] = {}) -> Path:
    """<root>/source (the unpacked zip), <root>/submission (the student's files), <root>/results."""
    root = tmp_path / "autograder"
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(root / "source")
        for info in archive.infolist():  # extractall drops permissions; Gradescope's unzip keeps them
            os.chmod(root / "source" / info.filename, (info.external_attr >> 16) & 0o777)
    (root / "submission").mkdir()
    (root / "results").mkdir()
    for name, content in files.items():
        target = root / "submission" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Path):
            shutil.copy(content, target)
        else:
            target.write_bytes(content)
    return root


def run_autograder_script(root: Path, seed: str | None = "1", timeout: float = 600) -> tuple[dict, str]:
    """Run <root>/source/run_autograder as Gradescope does (cwd <root>), with this venv's python3 on PATH."""
    env = quiet_env(GRADESCOPE_AUTOGRADER_ROOT=str(root))
    env.pop("AUTOGRADER_SEED", None)
    if seed is not None:
        env["AUTOGRADER_SEED"] = seed
    env["PATH"] = f"{BIN}{os.pathsep}{env['PATH']}"
    done = subprocess.run([str(root / "source" / "run_autograder")], cwd=root, env=env, capture_output=True,
                          text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads((root / "results" / "results.json").read_text())
    check_gradescope(results)
    return results, done.stdout + done.stderr


def test_bundle_holds_setup_run_autograder_the_kit_and_one_reference(bundle, tmp_path):
    with zipfile.ZipFile(bundle) as archive:
        infos = {info.filename: info for info in archive.infolist()}
    for name in ("setup.sh", "run_autograder"):
        assert stat.S_IMODE(infos[name].external_attr >> 16) == 0o755, name
    assert {"pyproject.toml", "README.md", "autograder/__init__.py", "autograder/cli.py",
            "autograder/frontends/gradescope_bundle.py", "autograder/frontends/gradescope_grading.py",
            f"autograder/course/{ASSIGNMENT}/__init__.py"} <= set(infos)
    assert [n for n in infos if n.startswith("solutions/")] == [f"solutions/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"]
    assert not [n for n in infos if "__pycache__" in n or n.endswith(".pyc") or n.startswith(("tests/", "examples/"))]
    root = gradescope_root(tmp_path, bundle)
    subprocess.run(["bash", "-n", str(root / "source" / "setup.sh")], check=True)
    py_compile.compile(str(root / "source" / "run_autograder"), cfile=str(tmp_path / "run.pyc"), doraise=True)
    # The same kit makes the same zip, byte for byte.
    again = tmp_path / "again.zip"
    assert run_autograder("gradescope-bundle", ASSIGNMENT, "--output", str(again), timeout=120).returncode == 0
    assert again.read_bytes() == bundle.read_bytes()


@pytest.mark.slow  # builds the bundled kit with pip
def test_bundled_kit_builds_as_a_package(bundle, tmp_path):
    """setup.sh pip-installs <root>/source: it must be a complete project (pyproject, README, package)."""
    pytest.importorskip("setuptools")  # built with this venv's setuptools: no download
    root = gradescope_root(tmp_path, bundle)
    done = subprocess.run([str(BIN / "python"), "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                           "-w", str(tmp_path / "wheel"), str(root / "source")], capture_output=True, text=True,
                          env=quiet_env(), timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    [wheel] = (tmp_path / "wheel").glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        assert {"autograder/frontends/gradescope_grading.py", "autograder/run/forkserver.py"} <= set(archive.namelist())


@pytest.mark.slow  # starts a grader
def test_run_autograder_grades_the_notebook_named_after_the_assignment(bundle, tmp_path):
    """Another notebook beside it (full marks) is ignored; the total equals the CLI's JSON for the same seed."""
    root = gradescope_root(tmp_path, bundle, {f"{ASSIGNMENT}.ipynb": notebook("bram"),
                                              "scratch/other.ipynb": notebook("ada")})
    results, log = run_autograder_script(root, seed="1")
    [expected] = grade_json(str(notebook("bram")), "--seed", "1")
    assert results["score"] == expected["score"] < expected["max_score"]
    assert [(t["name"], t["score"]) for t in results["tests"]] == [(e["id"], e["score"]) for e in expected["exercises"]]
    assert results["output_format"] == "md"  # the preamble is Markdown too: read it rendered
    assert f"Graded {ASSIGNMENT}.ipynb as {ASSIGNMENT}." in MarkdownIt("commonmark").render(results["output"])
    assert not re.search(r"seed\W*\d", json.dumps(results))  # students see no seed; run_autograder's log (instructors') has it
    assert "graded with seed 1" in log
    assert f"grader: {root / 'source' / 'autograder'}" in log  # the bundled copy of the kit graded it


@pytest.mark.slow  # starts a grader
def test_several_notebooks_none_named_the_highest_counts_and_a_corrupt_one_scores_0(bundle, tmp_path):
    root = gradescope_root(tmp_path, bundle, {"a.ipynb": b"{this is not a notebook", "b.ipynb": notebook("greta")})
    results, _ = run_autograder_script(root, seed="1")
    assert results["score"] == 8  # greta's; the corrupt notebook scored 0
    assert "a.ipynb: 0 / 12" in results["output"] and "b.ipynb: 8 / 12  (counted)" in results["output"]
    assert results["extra_data"]["submission"] == "b.ipynb"


@pytest.mark.slow  # starts a grader
def test_empty_submission_still_writes_a_score_0_result(bundle, tmp_path):
    root = gradescope_root(tmp_path, bundle, {"notes.txt": b"I forgot the notebook"})
    results, _ = run_autograder_script(root, seed=None)
    assert results["score"] == 0
    assert "no notebook (.ipynb) was found" in results["output"] and "notes.txt" in results["output"]
    assert [t["name"] for t in results["tests"]] == EXERCISES
    assert {t["status"] for t in results["tests"]} == {"failed"} and sum(t["max_score"] for t in results["tests"]) == 12


@pytest.mark.slow  # starts a grader
def test_a_grader_that_cannot_even_import_still_writes_a_result(bundle, tmp_path):
    """The outer layer (standard library only) writes the result; a stale results.json never passes for it."""
    root = gradescope_root(tmp_path, bundle, {f"{ASSIGNMENT}.ipynb": notebook("ada")})
    (root / "source" / "autograder" / "__init__.py").write_text("raise ImportError('a broken installation')\n")
    (root / "results" / "results.json").write_text(json.dumps({"score": 99, "tests": []}))
    results, log = run_autograder_script(root)
    assert results["score"] == 0 and results["extra_data"]["grader_failed"] is True
    assert "could not grade this submission" in results["output"] and "exit status 1" in results["output"]
    assert [t["name"] for t in results["tests"]] == EXERCISES
    assert "writing a score-0 result" in log


@pytest.mark.slow  # starts a grader
def test_a_grader_that_runs_out_of_time_is_stopped_and_reported(tmp_path):
    bundle = tmp_path / "quick.zip"
    assert run_autograder("gradescope-bundle", ASSIGNMENT, "--output", str(bundle), "--timeout", "1",
                          "--visibility", "after_due_date", timeout=120).returncode == 0
    root = gradescope_root(tmp_path, bundle, {f"{ASSIGNMENT}.ipynb": notebook("ada")})
    results, _ = run_autograder_script(root, timeout=120)
    assert results["score"] == 0 and "did not finish within 1 seconds" in results["output"]
    assert {t["visibility"] for t in results["tests"]} == {"after_due_date"} == {results["visibility"]}
    deadline = time.monotonic() + 10  # the grader's whole process group was killed: nothing of it is left
    while running(str(root)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not running(str(root))


def running(text: str) -> list[int]:
    """Processes whose command line mentions ``text``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and text in (entry / "cmdline").read_bytes().decode(errors="replace"):
                found.append(int(entry.name))
        except OSError:
            continue
    return found
