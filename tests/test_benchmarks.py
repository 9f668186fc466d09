"""Every script in benchmarks/ runs, at its smallest size, so that none breaks silently again.

class_speed.py stopped running when `grade` took a runner (its wrapper did not pass it on) and nobody saw it
until a measurement was wanted. This runs each script as its docstring says, with one submission and one
worker, all at once, and checks that each printed its table. It measures nothing (the numbers of a
one-submission class on a busy machine mean nothing).
"""
from __future__ import annotations

import subprocess
import sys

import pytest

from helpers import ROOT, quiet_env, under_load

pytestmark = pytest.mark.slow

SCRIPTS = {
    "class_speed.py": (["--sizes", "1", "--jobs", "1", "--skip-nbgrader"],
                       ("autograder --jobs 1", "floor on 1 cores", "floor, 1 warm processes at once (measured",
                        "the division,", "x the measured;", "| tool | N |")),
    "nbgrader_speed.py": (["--size", "1", "--jobs", "1", "--skip-kernels"],
                          ("autograder grade --jobs 1", "contained executor", "1 / 1 notebooks")),
    "cluster_speed.py": (["--size", "1", "--workers", "1", "--simulate", "2"],
                         ("N = 1, W = 1", "same JSON: True", "simulation N = 2")),
    "corpus_diagnosis.py": (["--assignments", "custom_gradients", "--first", "2", "--jobs", "1"],
                            ("mistakes caught (entries): 2/2", "mistakes named right (files)")),
    "exercise_cost.py": (["--assignment", "custom_gradients", "--examples", "1"],
                         ("custom_gradients, seed 1, 2 notebooks", "safe_norm", "mistake models on the cases")),
    "per_example_cost.py": (["--repeats", "1", "--styles", "jacobian"],
                            ("jacobian           all", "the other five exercises together")),
}


# A measurement too heavy for a smoke run, named with why.
NOT_SMOKED = {"student_install.py": "installs a TensorFlow (about 1.4 GB) and the kit of an older revision, which "
                                    "adds a second one (500 s measured)"}


def test_every_benchmark_script_runs_at_its_smallest_size():
    assert {p.name for p in (ROOT / "benchmarks").glob("*.py")} == set(SCRIPTS) | {"cluster_stub.py"} | set(NOT_SMOKED)
    running = {name: subprocess.Popen([sys.executable, str(ROOT / "benchmarks" / name), *arguments], cwd=ROOT,
                                      env=quiet_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for name, (arguments, _) in SCRIPTS.items()}
    failures = []
    for name, process in running.items():
        try:
            out, err = process.communicate(timeout=under_load(900))  # six at once, on a shared machine
        except subprocess.TimeoutExpired:
            process.kill()
            out, err = process.communicate()
        missing = [words for words in SCRIPTS[name][1] if words not in out]
        if process.returncode != 0 or missing:
            failures.append(f"{name}: exit {process.returncode}, missing {missing}\n{out[-1500:]}\n{err[-3000:]}")
    assert not failures, "\n\n".join(failures)
