"""The grader's configuration: frozen settings and limits, and every environment variable it reads.

Each variable is declared once here (``VARIABLES``: name, default, what it does), as otter declares its
configuration keys; code reads a variable only through ``variable()``, which refuses an undeclared name,
and a test checks the table of docs/configuration.md against ``VARIABLES``, so neither can drift from what the code reads.

May import: the standard library only.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

GiB = 2**30
KIT_ROOT = Path(__file__).resolve().parents[1]  # the checkout or the installed tree the package lives in


@dataclass(frozen=True)
class Variable:
    name: str
    default: str  # in words, for people
    help: str


VARIABLES = {v.name: v for v in (
    Variable("AUTOGRADER_CACHE", "$XDG_CACHE_HOME/tf-autodiff-autograder, else ~/.cache/tf-autodiff-autograder",
             "folder of the reference cache and the kept grades; `off` (or 0, no, none, false) turns both off"),
    Variable("AUTOGRADER_SOLUTIONS", "solutions/ beside the kit",
             "the course's solutions/ folder, when `--solutions` is not given (nbgrader_config.py sets it)"),
    Variable("AUTOGRADER_SEED", "a seed per run (the CLI), or one fixed by the notebook's bytes (graded cells)",
             "seed of the hidden random cases for nbgrader's graded cells and the Gradescope bundle: a course "
             "secret (students who know it can recompute the hidden inputs); nbgrader_config.py keeps one in "
             "`.autograder-seed`"),
    Variable("AUTOGRADER_NBGRADER", "unset",
             "set by the course's nbgrader_config.py: a graded cell that cannot grade raises (0 points and the "
             "reason) instead of printing a note"),
    Variable("NBGRADER_EXECUTION", "unset",
             "set by nbgrader while it runs a notebook (validate, autograde): a failing public check then raises, "
             "so that nbgrader records the cell as failed (elsewhere it displays its feedback)"),
    Variable("AUTOGRADER_STRICT_STATIC", "unset",
             "set (to anything non-empty) by the test suite: a check of the static reading that crashes raises "
             "instead of leaving its evidence out (the crash is listed in the report either way)"),
    Variable("GRADESCOPE_AUTOGRADER_ROOT", "/autograder", "where Gradescope's run_autograder finds its files"),
    Variable("XDG_CACHE_HOME", "~/.cache", "the user's cache folder (freedesktop's convention)"),
    Variable("GITHUB_ACTIONS", "unset", "`true` in GitHub Actions (set by GitHub): the text report leaves out the "
             "seed, since the run's log is the student's"),
    Variable("GITHUB_OUTPUT", "unset", "the step's outputs file (set by GitHub): `--format classroom50` appends "
             "`status=` and `summary=`"),
    Variable("GITHUB_STEP_SUMMARY", "unset", "the job summary file (set by GitHub): `--step-summary` appends the "
             "points and the feedback"),
    *(Variable(name, "unset", f"set by Classroom 50's runner: {what}, for `--format classroom50`'s result.json")
      for name, what in (("CLASSROOM", "the classroom"), ("ASSIGNMENT", "the assignment's slug"),
                         ("ASSIGNMENT_TYPE", "individual or group"), ("SUBMISSION_TAG", "the submit/* tag"),
                         ("COMMIT_URL", "the graded commit"), ("RELEASE_URL", "the submission's Release"),
                         ("REVIEW_URL", "the diff from the starter code"))),
    *(Variable(name, "unset", f"set by Classroom 50's runner: {what}, for `--format classroom50`'s result.json; "
                              "the student's name in the run's log and job summary")
      for name, what in (("OWNER", "the repository's owner"), ("USERNAME", "the student (when OWNER is unset)"))),
    *(Variable(name, "unset", f"set by GitHub: {what}, the commit URL when Classroom 50's COMMIT_URL is unset")
      for name, what in (("GITHUB_SERVER_URL", "the server"), ("GITHUB_SHA", "the commit"))),
    Variable("GITHUB_REPOSITORY", "unset", "set by GitHub: owner/repository, the commit URL when Classroom 50's "
             "COMMIT_URL is unset; its owner names the student in the run's log and job summary when OWNER, USERNAME "
             "and GITHUB_ACTOR are unset"),
    Variable("GITHUB_ACTOR", "unset", "set by GitHub: who pushed (the owner when OWNER and USERNAME are unset), the "
             "commit URL when Classroom 50's COMMIT_URL is unset; the student's name in the run's log and job summary "
             "when OWNER and USERNAME are unset"),
)}

# TensorFlow's C++ logs and banners stay out of graded output: every process that may import TensorFlow sets
# these before the import (the fork server, nbgrader's kernels, the CI script), children inherit them.
QUIET_TENSORFLOW = {
    "TF_CPP_MIN_LOG_LEVEL": "3",  # C++ logs: errors only... and not even those
    "TF_ENABLE_ONEDNN_OPTS": "0",  # no oneDNN banner; reproducible CPU numerics
    "PYTHONWARNINGS": "ignore",
}
# Variables under which TensorFlow computes other last bits (or on another device): part of the cache's key.
NUMERIC_ENVIRONMENT = ("TF_ENABLE_ONEDNN_OPTS", "TF_DETERMINISTIC_OPS", "TF_USE_LEGACY_KERAS", "KERAS_BACKEND",
                       "CUDA_VISIBLE_DEVICES", "OMP_NUM_THREADS")
DISABLED = ("", "0", "off", "no", "none", "false")
# What a student's child keeps of its environment (HOME and TMPDIR become its own folder).
CHILD_ENVIRONMENT = ("PATH", "LANG", "LC_ALL", "TF_CPP_MIN_LOG_LEVEL", "TF_ENABLE_ONEDNN_OPTS", "PYTHONWARNINGS",
                     *NUMERIC_ENVIRONMENT)
# What the fork server starts with besides: how Python finds its libraries. Nothing else of the grader's
# environment (tokens, the course's paths) reaches it, hence no child (/proc/self/environ included).
SERVER_ENVIRONMENT = ("PYTHONPATH", "PYTHONHOME", "LD_LIBRARY_PATH")


def variable(name: str) -> str | None:
    """The value of a declared environment variable, or None when it is unset."""
    if name not in VARIABLES:
        raise KeyError(f"{name} is not declared in autograder.config.VARIABLES")
    return os.environ.get(name)


def quiet_tensorflow() -> None:
    """Set the quiet variables in this process (children inherit them); values set by the user win."""
    for name, value in QUIET_TENSORFLOW.items():
        os.environ.setdefault(name, value)


def quiet_environment(base: dict[str, str] | None = None) -> dict[str, str]:
    """An environment for a subprocess that may import TensorFlow: ``base`` (default: this one), kept quiet."""
    return {**(dict(os.environ) if base is None else base), **QUIET_TENSORFLOW}


def fork_server_environment(home: str, first_on_path: str) -> dict[str, str]:
    """The fork server's whole environment: the allowlists above, quiet TensorFlow, ``first_on_path`` first on
    PYTHONPATH, and ``home`` (a folder of its own) as HOME."""
    environment = {name: os.environ[name] for name in (*CHILD_ENVIRONMENT, *SERVER_ENVIRONMENT) if name in os.environ}
    environment.update(quiet_environment({}), HOME=home)
    environment["PYTHONPATH"] = os.pathsep.join(p for p in (first_on_path, environment.get("PYTHONPATH")) if p)
    return environment


def cache_folder() -> Path | None:
    """The cache folder the environment asks for, or None when the cache is turned off."""
    configured = variable("AUTOGRADER_CACHE")
    if configured is not None:
        return None if configured.strip().lower() in DISABLED else Path(configured).expanduser()
    base = variable("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "tf-autodiff-autograder"


class SetupError(RuntimeError):
    """The grader itself cannot run (no reference solutions, unknown assignment)."""


def find_solutions(given: Path | None = None) -> Path:
    """The course's solutions/ folder: ``given``, else $AUTOGRADER_SOLUTIONS, else the kit's own."""
    for candidate in (given, variable("AUTOGRADER_SOLUTIONS"), KIT_ROOT / "solutions"):
        if candidate and Path(candidate).is_dir():
            return Path(candidate)
    raise SetupError("cannot find the reference solutions: pass --solutions DIR or set AUTOGRADER_SOLUTIONS "
                     "to the course's solutions/ directory")


def require_mistake_models(assignment_id: str) -> None:
    """SetupError when the assignment's trusted mistake models are not installed: the students' wheel carries
    none (setup.py), so a grader installed from it cannot grade."""
    assignment = KIT_ROOT / "autograder" / "course" / assignment_id
    if not ((assignment / "mistakes.py").is_file() or (assignment / "mistakes" / "__init__.py").is_file()):
        raise SetupError("this installation of the kit is the students' wheel: it carries no mistake models, so it "
                         "cannot grade; grade from the course's checkout (pip install -e .)")


@dataclass(frozen=True)
class Limits:
    """Per-child limits; every value has a message the student can read."""

    load_seconds: float = 60.0  # running the notebook's cells (per cell that hangs)
    submission_seconds: float = 300.0  # everything for one submission
    memory_bytes: int = 2 * GiB  # resident memory of the child
    case_seconds: float | None = None  # caps every case's own time limit (None: the exercise's limits)


# The reference must never be the one that runs out of time or memory.
REFERENCE_LIMITS = Limits(load_seconds=300.0, submission_seconds=1800.0, memory_bytes=6 * GiB)


@dataclass(frozen=True)
class Settings:
    """What one grading run is asked to do. Frozen: the run's seed, once chosen, comes back in its result."""

    seed: int | None = None  # None: the journal's (when resuming), else chosen per run
    jobs: int = 1
    limits: Limits = field(default_factory=Limits)
    solutions: Path | None = None  # None: find_solutions()
    assignment: str | None = None  # grade every submission as this assignment
    journal: Path | None = None  # folder that keeps finished results on disk, so an interrupted run resumes
    cache: Path | None = field(default_factory=cache_folder)  # reference outcomes and kept grades (None: off)
    dedupe: bool = True  # submissions that run the same code (same assignment) run once and share the result
    reuse_results: bool = False  # take a grade an earlier run kept for the same code, seed, solution and grader
