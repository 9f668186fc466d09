"""A student's machine, as the README's student line makes it: TensorFlow there first, then the kit's wheel.

A venv of its own sees the suite's installed packages as a machine's own (a `.pth` file naming a folder of links
to them: TensorFlow 2.21 as pip installed it, ipykernel, matplotlib), without the kit; the kit comes by the
student's line (`pip install tf_autodiff_autograder-*.whl`, built from this checkout: no solutions, no mistake
models), with pip's own resolver (`--no-index`: nothing comes from elsewhere). Then, in a real kernel of that venv:

- pip lists one TensorFlow; Run All of each released notebook reaches the end: the first cell says which
  TensorFlow runs, each public check shows its stub's feedback, each graded cell says in one line that the
  hidden cases run when the instructor grades;
- before the kit is installed, the first cell prints the one pip line (the wheel's real name) and goes on;
- with two TensorFlow distributions in one folder (what the kit used to leave), the first cell stops Run All
  with one line that says how to repair it, not a traceback.

A second venv without TensorFlow (the same links, TensorFlow's left out) gets the kit by the same line; then the
CLI, the public check, the graded cell and the first cell each say in one line what to install, never a
traceback. The real downloads (plain `tensorflow` 2.20 from PyPI, every supported release) are
scripts/tf_matrix.py's and benchmarks/student_install.py's.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from autograder.frontends.nbgrader_cell import LATER
from helpers import ASSIGNMENT_IDS, ROOT, quiet_env

pytestmark = pytest.mark.slow

TENSORFLOW = re.compile(r"^(tensorflow|tensorflow[-_]cpu|tf[-_]nightly)([-_][\d.]+\.dist-info)?$", re.IGNORECASE)
THE_KIT = re.compile(r"^(tf_autodiff_autograder.*|__editable__.*tf_autodiff_autograder.*|autograder)$")


def links_to_site_packages(folder: Path, without_tensorflow: bool) -> Path:
    """A folder of links to this venv's site-packages entries: every package but the kit (and TensorFlow)."""
    folder.mkdir()
    for entry in Path(sysconfig.get_path("purelib")).iterdir():
        if entry.suffix == ".pth" or THE_KIT.match(entry.name) or (without_tensorflow and TENSORFLOW.match(entry.name)):
            continue
        (folder / entry.name).symlink_to(entry)
    return folder


def student_venv(tmp_path: Path, name: str, without_tensorflow: bool = False) -> Path:
    venv = tmp_path / name
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    site = next((venv / "lib").glob("python3*/site-packages"))
    shared = links_to_site_packages(tmp_path / f"{name}-machine", without_tensorflow)
    (site / "machine.pth").write_text(f"{shared}\n", encoding="utf-8")
    return venv


@pytest.fixture(scope="module")
def wheel(kit_wheel) -> Path:
    return kit_wheel  # built once per test run (conftest.py)


def student_line(venv: Path, wheel: Path) -> None:
    done = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--no-index", "-q",
                           "--disable-pip-version-check", str(wheel)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]


def tensorflows(venv: Path) -> list[str]:
    listed = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "list", "--format", "json",
                             "--disable-pip-version-check"], capture_output=True, text=True, timeout=120, check=True)
    return [p["name"] for p in json.loads(listed.stdout) if TENSORFLOW.match(p["name"].replace("-", "_"))]


def environment(venv: Path) -> dict[str, str]:
    env = quiet_env()
    env.pop("PYTHONPATH", None)
    env.update(PATH=f"{venv / 'bin'}:/usr/bin:/bin", AUTOGRADER_SOLUTIONS="", AUTOGRADER_NBGRADER="")
    return env


def run_in_kernel(venv: Path, notebook: nbformat.NotebookNode, cwd: Path, monkeypatch, allow_errors=False):
    """Run every cell in a real kernel of ``venv`` (its own kernelspec), as "Run All" does."""
    kernels = venv / "share" / "jupyter" / "kernels" / "student"
    kernels.mkdir(parents=True, exist_ok=True)
    (kernels / "kernel.json").write_text(json.dumps({
        "argv": [str(venv / "bin" / "python"), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "student", "language": "python"}), encoding="utf-8")
    monkeypatch.setenv("JUPYTER_PATH", str(venv / "share" / "jupyter"))
    NotebookClient(notebook, timeout=900, kernel_name="student", allow_errors=allow_errors,
                   resources={"metadata": {"path": str(cwd)}}).execute(env=environment(venv))
    return notebook


def text_of(cell) -> str:
    return "".join(o.get("text", "") if o.get("output_type") == "stream" else o.get("data", {}).get("text/plain", "")
                   for o in cell.get("outputs", []))


def grade_id(cell) -> str:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", "")


def first_cell_only(assignment: str) -> nbformat.NotebookNode:
    release = nbformat.read(ROOT / "assignments" / assignment / f"{assignment}.ipynb", as_version=4)
    return nbformat.v4.new_notebook(cells=[next(c for c in release.cells if c.cell_type == "code")])


def test_with_tensorflow_installed_the_student_line_adds_none_and_run_all_reaches_the_end(tmp_path, wheel,
                                                                                         monkeypatch):
    venv = student_venv(tmp_path, "student")
    before = run_in_kernel(venv, first_cell_only("custom_gradients"), tmp_path, monkeypatch)
    shown = text_of(before.cells[0])
    assert f"%pip install {wheel.name}" in shown and "TensorFlow 2." in shown, shown  # the kit's line, then on

    student_line(venv, wheel)
    assert len(tensorflows(venv)) == 1, tensorflows(venv)
    for assignment in ASSIGNMENT_IDS:
        notebook = nbformat.read(ROOT / "assignments" / assignment / f"{assignment}.ipynb", as_version=4)
        run_in_kernel(venv, notebook, tmp_path, monkeypatch)  # raises if a cell raises: Run All would stop
        code = [cell for cell in notebook.cells if cell.cell_type == "code"]
        assert all(cell.get("execution_count") for cell in code), f"{assignment}: Run All stopped"
        first = text_of(code[0])
        assert first.startswith("TensorFlow 2.") and "not installed" not in first, first
        for cell in code:
            if grade_id(cell).startswith("test_"):
                exercise = grade_id(cell)[len("test_"):]
                assert text_of(cell) == f"{exercise}: {LATER}\n", text_of(cell)
            elif grade_id(cell).startswith("check_"):
                assert "public checks failed [not-implemented]" in text_of(cell), text_of(cell)[:300]

    site = next((venv / "lib").glob("python3*/site-packages"))
    (site / "tensorflow-2.20.0.dist-info").mkdir()  # what installing the kit used to leave: two in one folder
    for name, text in (("METADATA", "Metadata-Version: 2.1\nName: tensorflow\nVersion: 2.20.0\n"),
                       ("top_level.txt", "tensorflow\n"), ("RECORD", ""), ("INSTALLER", "pip\n")):
        (site / "tensorflow-2.20.0.dist-info" / name).write_text(text, encoding="utf-8")
    stopped = run_in_kernel(venv, first_cell_only("jacobians"), tmp_path, monkeypatch, allow_errors=True)
    (error,) = [o for o in stopped.cells[0].outputs if o.output_type == "error"]
    assert error.ename == "UnsupportedTensorFlow" and len(error.traceback) == 1, error.traceback
    assert "2 TensorFlow distributions share one `tensorflow` folder" in error.traceback[0]
    assert "%pip uninstall -y tensorflow tensorflow-cpu" in error.traceback[0]


def test_without_tensorflow_every_entry_point_says_what_to_install_in_one_line(tmp_path, wheel, monkeypatch):
    venv = student_venv(tmp_path, "bare", without_tensorflow=True)
    student_line(venv, wheel)  # the kit needs no TensorFlow to install
    assert tensorflows(venv) == []
    python, env = str(venv / "bin" / "python"), environment(venv)
    fix = 'pip install "tensorflow>=2.'

    notebook = ROOT / "examples" / "submitted" / "ada" / "custom_gradients" / "custom_gradients.ipynb"
    cli = subprocess.run([str(venv / "bin" / "autograder"), "grade", str(notebook)], capture_output=True, text=True,
                         env=env, timeout=300)
    assert cli.returncode == 2 and cli.stdout == "", cli.stdout[-500:]
    assert cli.stderr.count("\n") == 1 and cli.stderr.startswith("autograder: error: TensorFlow is not installed")
    assert fix in cli.stderr and "Traceback" not in cli.stderr, cli.stderr

    code = ("from autograder.selfcheck import check\ncheck('log1pexp')\n"
            "from autograder.graded_cell import grade_exercise\ngrade_exercise('custom_gradients', 'log1pexp')\n")
    cells = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
    assert cells.returncode == 0 and cells.stderr == "", cells.stderr[-2000:]
    check_line, graded_line = cells.stdout.splitlines()
    assert check_line.startswith("log1pexp: public checks not run: TensorFlow is not installed") and \
        f"%{fix}" in check_line, check_line
    assert graded_line == f"log1pexp: {LATER}"

    stopped = run_in_kernel(venv, first_cell_only("higher_order"), tmp_path, monkeypatch, allow_errors=True)
    (error,) = [o for o in stopped.cells[0].outputs if o.output_type == "error"]
    assert error.ename == "UnsupportedTensorFlow" and len(error.traceback) == 1, error.traceback
    assert error.traceback[0].startswith("TensorFlow is not installed") and f"%{fix}" in error.traceback[0]
