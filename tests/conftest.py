"""Fixtures shared by the test modules (their helpers are in helpers.py)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from helpers import ROOT, checkout_entries, grade_json, once_per_run, run_folder

# A check of the static reading that crashes raises instead of leaving its evidence out, here and in every
# grader the tests start (they inherit this environment): a test expecting no finding cannot pass on a crash.
os.environ["AUTOGRADER_STRICT_STATIC"] = "1"


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


# The longest modules first (measured: seconds of one worker, 2026-12-02), so that with `-n 2 --dist loadfile`
# the two workers end together instead of one finishing a long module alone at the end (longest first is the
# classic greedy schedule). Order within a module is kept; modules not named keep their order after these.
LONGEST_FIRST = ("test_submissions.py", "test_nbgrader_course.py", "test_fresh_clone_course.py", "test_cluster.py",
                 "test_hostile.py", "test_examples.py", "test_class_runs.py", "test_nbgrader_hostile.py", "test_unprivileged.py",
                 "test_grading_core.py", "test_notebooks.py", "test_result_store.py", "test_selfcheck.py")


def pytest_collection_modifyitems(items: list) -> None:
    rank = {name: number for number, name in enumerate(LONGEST_FIRST)}
    order = {id(item): number for number, item in enumerate(items)}
    items.sort(key=lambda item: (rank.get(Path(str(item.fspath)).name, len(rank)), order[id(item)]))


# --------------------------------------------------------------------------- nothing written into the checkout

def pytest_sessionstart(session) -> None:
    if not hasattr(session.config, "workerinput"):  # the controller (or a run without xdist): once per run
        session.config.stash[CHECKOUT_BEFORE] = checkout_entries(ROOT)


def pytest_sessionfinish(session, exitstatus) -> None:
    """A test that writes into the checkout (a seed, a gradebook, an exchange, a build folder) fails the run: an
    instructor who then uses the clone as the course would inherit what the tests made."""
    before = session.config.stash.get(CHECKOUT_BEFORE, None)
    if hasattr(session.config, "workerinput") or before is None:
        return
    after = checkout_entries(ROOT) or set()
    left = sorted(after - before)
    if left:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        message = ("the tests left these in the checkout (git status --ignored; write to tmp_path instead): "
                   + ", ".join(left))
        if reporter is not None:
            reporter.ensure_newline()
            reporter.write_line(f"ERROR: {message}", red=True, bold=True)
        session.config.stash[CHECKOUT_LEFT] = left
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


CHECKOUT_BEFORE = pytest.StashKey[object]()
CHECKOUT_LEFT = pytest.StashKey[list]()


# --------------------------------------------------------------------------- what one test run shares

@pytest.fixture(scope="session", autouse=True)
def grading_cache(tmp_path_factory) -> str:
    """The cache folder of every grader a test starts without a cache of its own: one per test run, shared by
    the xdist workers (references computed once per assignment and seed, however many tests grade with them),
    below pytest's temporary folder. Not the user's ~/.cache: the tests would fill it with kept grades, and a
    run's time would depend on what earlier runs left there. A cache the caller set (or `off`) is kept."""
    os.environ.setdefault("AUTOGRADER_CACHE", str(run_folder(tmp_path_factory) / "autograder-cache"))
    return os.environ["AUTOGRADER_CACHE"]


@pytest.fixture(scope="session")
def example_class(tmp_path_factory, grading_cache) -> tuple[list[dict], Path]:
    """The bundled example class graded once per test run: `autograder grade examples --seed 1` with its
    feedback pages and class report (test_examples.py holds it to the golden JSON; the nbgrader course compares
    nbgrader's grades with it). Its folder is read, never changed."""
    def grade(folder: Path) -> list[dict]:
        return grade_json("examples", "--seed", "1", "--feedback-dir", str(folder / "feedback"), "--report-dir",
                          str(folder / "report"), cwd=ROOT)

    folder, results = once_per_run(tmp_path_factory, "example-class", grade)
    return results, folder
