"""The student's install where TensorFlow is already there (Colab, Kaggle, a GPU machine), before and after the
kit named TensorFlow only in its `tf` extra: time, size added, and which TensorFlow distributions are left.

    .venv/bin/python benchmarks/student_install.py                       # before = da8d2dc, tensorflow==2.20.*
    .venv/bin/python benchmarks/student_install.py --before da8d2dc --tensorflow "tensorflow==2.20.*" --run-all

One venv gets the TensorFlow first (timed apart: the student had it already), then it is copied once per kit;
in each copy the student's line installs the kit's wheel (`pip install tf_autodiff_autograder-*.whl`, built from
the given revision and from this checkout), timed, with pip's cache as it is (warm after the first run: run
twice and report the second). ``--run-all`` then runs every released notebook top to bottom in a real kernel
of the after copy (nbclient; ipykernel and matplotlib installed first, as Colab has them) and says whether
each reached its end. A measurement, not a test: the venvs are removed at the end.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FAMILY = ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tf-nightly", "intel-tensorflow")


def mib(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink()) / 2**20


def wheel_of(source: Path, out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out),
                    str(source)], check=True)
    return next(out.glob("*.whl"))


def checkout(revision: str, folder: Path) -> Path:
    folder.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def pip(venv: Path, *arguments: str) -> float:
    started = time.monotonic()
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                    *arguments], check=True)
    return time.monotonic() - started


def tensorflows(venv: Path) -> list[str]:
    listed = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "list", "--format", "json",
                             "--disable-pip-version-check"], check=True, capture_output=True, text=True).stdout
    return [f"{p['name']} {p['version']}" for p in json.loads(listed)
            if p["name"].lower().replace("_", "-") in FAMILY]


def run_all(venv: Path, work: Path) -> dict[str, str]:
    """Each released notebook in a kernel of ``venv``: 'reached the end' or where it stopped."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    kernels = venv / "share" / "jupyter" / "kernels" / "student"
    kernels.mkdir(parents=True, exist_ok=True)
    (kernels / "kernel.json").write_text(json.dumps({"argv": [str(venv / "bin" / "python"), "-m", "ipykernel_launcher",
                                                              "-f", "{connection_file}"], "language": "python",
                                                     "display_name": "student"}))
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(work), "JUPYTER_PATH": str(venv / "share" / "jupyter"),
           "TF_CPP_MIN_LOG_LEVEL": "3", "TF_ENABLE_ONEDNN_OPTS": "0"}
    os.environ["JUPYTER_PATH"] = env["JUPYTER_PATH"]  # where nbclient finds the kernel
    outcome = {}
    for assignment in ("custom_gradients", "higher_order", "jacobians", "implicit"):
        notebook = nbformat.read(ROOT / "assignments" / assignment / f"{assignment}.ipynb", as_version=4)
        started = time.monotonic()
        try:
            NotebookClient(notebook, timeout=900, kernel_name="student",
                           resources={"metadata": {"path": str(work)}}).execute(env=env)
            outcome[assignment] = f"reached the end ({time.monotonic() - started:.0f} s)"
        except CellExecutionError as error:
            outcome[assignment] = f"stopped: {str(error).strip().splitlines()[-1][:200]}"
    return outcome


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", default="da8d2dc", help="the revision before the change (default: %(default)s)")
    parser.add_argument("--tensorflow", default="tensorflow==2.20.*", help="what the student had (default: %(default)s)")
    parser.add_argument("--run-all", action="store_true", help="Run All of each release in the after venv")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="student-install-"))
    try:
        wheels = {"before": wheel_of(checkout(args.before, work / "before-src"), work / "before-wheel"),
                  "after": wheel_of(ROOT, work / "after-wheel")}
        base = work / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(base)], check=True)
        seconds = pip(base, args.tensorflow)
        print(f"{args.tensorflow}: {seconds:.0f} s, {mib(base):.0f} MiB ({', '.join(tensorflows(base))})")
        rows = []
        for name, wheel in wheels.items():
            venv = work / f"venv-{name}"
            shutil.copytree(base, venv, symlinks=True)
            size = mib(venv)
            seconds = pip(venv, str(wheel))
            rows.append((name, wheel.name, seconds, mib(venv) - size, ", ".join(tensorflows(venv))))
        print("| kit | student's line | s | MiB added | TensorFlow distributions after |")
        print("|---|---|---|---|---|")
        for name, wheel, seconds, added, left in rows:
            print(f"| {name} ({args.before if name == 'before' else 'this checkout'}) | `pip install {wheel}` | "
                  f"{seconds:.1f} | {added:.0f} | {left} |")
        if args.run_all:
            venv = work / "venv-after"
            pip(venv, "ipykernel", "matplotlib")  # what Colab and Kaggle have
            for assignment, outcome in run_all(venv, work).items():
                print(f"Run All {assignment}: {outcome}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
