"""Every script in benchmarks/ runs, at its smallest size, so that none breaks silently again.

class_speed.py stopped running when `grade` took a runner (its wrapper did not pass it on) and nobody saw it
until a measurement was wanted. This runs each script as its docstring says, with one submission and one
worker, all three at once, and checks that each printed its table. It measures nothing (the numbers of a
one-submission class on a busy machine mean nothing).
"""
from __future__ import annotations

import subprocess
import sys

import pytest

from helpers import ROOT, quiet_env

pytestmark = pytest.mark.slow

SCRIPTS = {
    "class_speed.py": (["--sizes", "1", "--jobs", "1", "--skip-nbgrader"],
                       ("autograder --jobs 1", "floor on 1 cores", "| tool | N |")),
    "nbgrader_speed.py": (["--size", "1", "--jobs", "1", "--skip-kernels"],
                          ("autograder grade --jobs 1", "contained executor", "1 / 1 notebooks")),
    "cluster_speed.py": (["--size", "1", "--workers", "1", "--simulate", "2"],
                         ("N = 1, W = 1", "same JSON: True", "simulation N = 2")),
}


# Measurements too heavy for a smoke run, each named with why (a gap: give each a smallest size and smoke it).
NOT_SMOKED = {"student_install.py": "downloads tensorflow==2.20 from PyPI",
              "corpus_diagnosis.py": "grades the three corpora",
              "exercise_cost.py": "times the new exercises at n = 100,000",
              "per_example_cost.py": "times per_example_gradients per style at batch 256"}


def test_every_benchmark_script_runs_at_its_smallest_size():
    assert {p.name for p in (ROOT / "benchmarks").glob("*.py")} == set(SCRIPTS) | {"cluster_stub.py"} | set(NOT_SMOKED)
    running = {name: subprocess.Popen([sys.executable, str(ROOT / "benchmarks" / name), *arguments], cwd=ROOT,
                                      env=quiet_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for name, (arguments, _) in SCRIPTS.items()}
    failures = []
    for name, process in running.items():
        try:
            out, err = process.communicate(timeout=900)
        except subprocess.TimeoutExpired:
            process.kill()
            out, err = process.communicate()
        missing = [words for words in SCRIPTS[name][1] if words not in out]
        if process.returncode != 0 or missing:
            failures.append(f"{name}: exit {process.returncode}, missing {missing}\n{out[-1500:]}\n{err[-3000:]}")
    assert not failures, "\n\n".join(failures)
