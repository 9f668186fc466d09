"""Fixtures shared by the test modules (their helpers are in helpers.py)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

# jsonschema (which nbformat imports) builds rfc3987-syntax's IRI grammars with lark when it is imported: 1.5 s of
# CPU in each worker before the first test, for its "iri" format checks, which no schema the tests validate with
# uses (nbformat's schemas name no format). The workers go without them; the tools the tests start (nbgrader,
# Jupyter) are other processes and keep theirs.
sys.modules.setdefault("rfc3987_syntax", None)

from helpers import ROOT, build_wheel, checkout_entries, generate_course, grade_json, once_per_run, run_folder

# A check of the static reading that crashes raises instead of leaving its evidence out, here and in every
# grader the tests start (they inherit this environment): a test expecting no finding cannot pass on a crash.
os.environ["AUTOGRADER_STRICT_STATIC"] = "1"


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


# --------------------------------------------------------------------------- two workers, kept busy to the end
# `-n 2 --dist loadgroup` (pyproject.toml) hands out units of work: an xdist group (its tests go to one worker,
# in order) or a single test. conftest.py makes the groups:
# - tests that share a fixture their module computes once (module or class scope), directly or through another
#   test: one group, so that the fixture is computed once ("<module>::<fixture>");
# - the fast tests (not marked slow) of a module that share none: one group ("<module>"), so that what they import
#   in the worker itself (TensorFlow, matplotlib, nbconvert) is imported by one worker, not both;
# - a module may name its own groups (the corpus: one per assignment, so that two corpora are graded at once).
# Every other test (slow, sharing nothing: it starts its own grader) is a unit of its own. Units are handed out
# longest first (the classic greedy schedule: no worker is left alone with a long unit at the end; units of
# unknown length keep their order after the known ones); `--no-loadscope-reorder` keeps that order (xdist
# would sort groups by their number of tests).
#
# Seconds of one worker (wall, two workers busy on this 2-core machine; measured 2026-12-03), by group or by
# test ("<module>::<test function>"). A missing or wrong number changes no result, only the order.
SECONDS = {
    "corpus-higher_order": 400, "corpus-jacobians": 180, "corpus-implicit": 100, "corpus-custom_gradients": 40,
}


def shared_fixtures(item) -> list[str]:
    """The fixtures of the test's own module (module or class scope) that it takes: computed once, shared."""
    info = getattr(item, "_fixtureinfo", None)
    module = Path(str(item.fspath)).name
    return sorted(name for name in (info.names_closure if info else ())
                  for definition in info.name2fixturedefs.get(name, ())[-1:]
                  if definition.scope in ("module", "class") and Path(definition.baseid.split("::")[0]).name == module)


def group_of(item) -> str | None:
    marker = item.get_closest_marker("xdist_group")
    return (marker.args[0] if marker.args else marker.kwargs.get("name")) if marker else None


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which reads the groups
def pytest_collection_modifyitems(items: list) -> None:
    # Tests that share a fixture, directly or through another test, are one group (union-find on the fixtures).
    parent: dict[tuple[str, str], tuple[str, str]] = {}

    def root(key: tuple[str, str]) -> tuple[str, str]:
        while parent.setdefault(key, key) != key:
            key = parent[key]
        return key

    sharing = {}
    for item in items:
        if group_of(item) is None and (shared := shared_fixtures(item)):
            keys = [(Path(str(item.fspath)).name, name) for name in shared]
            for key in keys[1:]:
                parent[root(key)] = root(keys[0])
            sharing[id(item)] = keys[0]
    for item in items:
        if group_of(item) is not None:
            continue
        if id(item) in sharing:
            item.add_marker(pytest.mark.xdist_group("::".join(root(sharing[id(item)]))))
        elif item.get_closest_marker("slow") is None:
            item.add_marker(pytest.mark.xdist_group(Path(str(item.fspath)).name))

    def unit(item) -> str:
        return group_of(item) or item.nodeid

    def seconds(name: str) -> float:
        return SECONDS.get(name, SECONDS.get(name.split("[")[0].split("/")[-1], 0))

    order = {id(item): number for number, item in enumerate(items)}
    first: dict[str, int] = {}
    for item in items:
        first.setdefault(unit(item), order[id(item)])
    items.sort(key=lambda item: (-seconds(unit(item)), first[unit(item)], order[id(item)]))


def pytest_xdist_node_collection_finished(node, ids: list[str]) -> None:
    """The controller's check that the groups reached xdist: a worker tags a grouped test's id with "@group"; with
    none tagged, `--dist loadgroup` spreads each group over both workers (pytest 9.2 with pytest-xdist 3.8,
    pytest-xdist#1386). Every test still runs and proves the same; the run takes longer, and says why."""
    if node.config.getvalue("dist") == "loadgroup" and ids and not any("@" in i.rsplit("]", 1)[-1] for i in ids):
        node.config.stash[GROUPS_LOST] = True


def pytest_terminal_summary(terminalreporter, config) -> None:
    if config.stash.get(GROUPS_LOST, False):
        terminalreporter.write_line("WARNING: pytest-xdist ran without the test groups (pytest-xdist#1386 with pytest "
                                    f"{pytest.__version__}): fixtures a group shares were computed once per worker; "
                                    "install the test extra's pytest (pip install -e '.[nbgrader,test]')", yellow=True)


GROUPS_LOST = pytest.StashKey[bool]()


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


@pytest.fixture(scope="session")
def generated_course(tmp_path_factory) -> Path:
    """The nbgrader course generated once per test run (helpers.generate_course: the solutions, the
    configuration, `nbgrader generate_assignment` for every assignment). Courses are copies of it
    (helpers.nbgrader_course); it is read, never changed."""
    folder, _ = once_per_run(tmp_path_factory, "nbgrader-course", lambda folder: str(generate_course(folder)))
    return folder


@pytest.fixture(scope="session")
def kit_wheel(tmp_path_factory) -> Path:
    """The kit's wheel (the students' wheel), built once per test run (helpers.build_wheel: from a copy of the
    sources, outside the checkout); read, never changed."""
    folder, name = once_per_run(tmp_path_factory, "kit-wheel", lambda folder: build_wheel(folder).name)
    return folder / name
