"""Longest first by each program's time the last time it was graded (``store.durations``): the order, never a grade."""
from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from autograder.config import Settings
from autograder.load.discover import Found
from autograder.pipeline.grading_run import GradingRun, grade
from autograder.store.atomic import folder_key, write_entry
from autograder.store.durations import FILE, KEEP, Durations, longest_first, program_key
from helpers import ROOT

EXAMPLES = ROOT / "examples" / "submitted"
CLASS = [EXAMPLES / "ada" / "custom_gradients" / "custom_gradients.ipynb",
         EXAMPLES / "bram" / "custom_gradients" / "custom_gradients.ipynb",
         EXAMPLES / "esra" / "higher_order" / "higher_order.ipynb",
         EXAMPLES / "dev" / "jacobians" / "jacobians.ipynb"]


def scheduled(cache: Path, notebooks: list[Path]) -> tuple[GradingRun, list]:
    """The order a run would hand the notebooks out in (nothing runs)."""
    run = GradingRun(Settings(seed=1, cache=cache, solutions=ROOT / "solutions"))
    run.plan([Found(path, f"{path.parent.parent.name}/{path.name}") for path in notebooks])
    run.prepare_references()
    return run, run.schedule()


def names(run: GradingRun, runs: list) -> list[str]:
    return [run.submissions[each.key[1]].found.shown_as for each in runs]


def test_without_history_the_order_is_the_assignments_and_stable(tmp_path):
    run, runs = scheduled(tmp_path / "cache", CLASS)
    cost = {a: reference.expected_seconds() for a, reference in run.references.items()}
    expected = sorted(CLASS, key=lambda path: -cost[path.parent.name])  # stable: ties keep the class's order
    assert names(run, runs) == [f"{p.parent.parent.name}/{p.name}" for p in expected]


def test_a_second_run_starts_the_programs_that_took_longest_first(tmp_path):
    cache = tmp_path / "cache"
    run, runs = scheduled(cache, CLASS)
    durations = Durations.inside(run.cache.folder)
    took = {"ada/custom_gradients.ipynb": 0.2, "bram/custom_gradients.ipynb": 9.0,
            "esra/higher_order.ipynb": 6.0, "dev/jacobians.ipynb": 3.0}
    for each, name in zip(runs, names(run, runs)):
        durations.note(run.submissions[each.key[1]], took[name])
    durations.save()
    again, runs = scheduled(cache, CLASS)
    assert names(again, runs) == sorted(took, key=lambda name: -took[name])


def test_a_program_not_seen_before_takes_its_assignments_median(tmp_path):
    cache = tmp_path / "cache"
    run, runs = scheduled(cache, CLASS[:3])
    durations = Durations.inside(run.cache.folder)
    took = {"ada/custom_gradients.ipynb": 4.0, "bram/custom_gradients.ipynb": 6.0, "esra/higher_order.ipynb": 1.0}
    for each, name in zip(runs, names(run, runs)):
        durations.note(run.submissions[each.key[1]], took[name])
    durations.save()
    # A new custom_gradients program: 5 s expected (its assignment's median), more than esra's 1 s.
    new = EXAMPLES / "chiara" / "custom_gradients" / "custom_gradients.ipynb"
    again, runs = scheduled(cache, [CLASS[2], new])
    assert names(again, runs) == ["chiara/custom_gradients.ipynb", "esra/higher_order.ipynb"]


def program(assignment: str, digest: str) -> SimpleNamespace:
    """A submission as ``longest_first`` reads it: its assignment and its program's digest."""
    return SimpleNamespace(assignment=assignment, program=digest)


def test_unknown_programs_are_expected_to_compare_with_their_reference_as_the_known_ones_do(tmp_path):
    a, b = program("custom_gradients", "aa"), program("higher_order", "bb")
    c, d = program("jacobians", "cc"), program("custom_gradients", "dd")
    durations = Durations(tmp_path / FILE, loaded={program_key(a): 4.0, program_key(b): 1.0})
    reference = {"custom_gradients": 2.0, "higher_order": 0.25, "jacobians": 1.5}  # ratios 2 and 4: median 3
    # c: 1.5 s x 3 = 4.5; d: its assignment's known median, 4.0, tied with a, before it as given; b: 1.0.
    given = [b, d, a, c]
    assert longest_first(given, given, durations, reference) == [c, d, a, b]
    assert longest_first(given, given, None, reference) == [d, a, c, b]  # no history: the references' times


def test_the_same_program_resaved_shares_its_time_and_another_program_does_not(tmp_path):
    first = scheduled(tmp_path / "a", CLASS[:1])[0].submissions[0]
    notebook = json.loads(CLASS[0].read_text(encoding="utf-8"))
    notebook["metadata"]["saved_by"] = "JupyterLab"  # re-saved: outputs and metadata are not the program
    resaved = tmp_path / "student" / "custom_gradients.ipynb"
    resaved.parent.mkdir()
    resaved.write_text(json.dumps(notebook), encoding="utf-8")
    second = scheduled(tmp_path / "b", [resaved])[0].submissions[0]
    other = scheduled(tmp_path / "c", CLASS[1:2])[0].submissions[0]
    assert program_key(first) == program_key(second) != program_key(other)


def test_a_forged_or_broken_durations_file_reads_as_no_history(tmp_path):
    folder = tmp_path / "cache"
    folder.mkdir()
    key = folder_key(folder)
    (folder / FILE).write_text('hmac-sha256:0000\n{"custom_gradients:abc": 99}')  # not written with the key
    assert Durations.inside(folder).known == {}
    write_entry(folder / FILE, b"[1, 2]", key)  # the key's, but not a mapping
    assert Durations.inside(folder).known == {}
    write_entry(folder / FILE, b'{"a": 1.5, "b": -2, "c": "x"}', key)  # only durations that can be
    assert Durations.inside(folder).known == {"a": 1.5}


def test_saving_merges_with_another_graders_writes_and_keeps_the_last_noted(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    ours, theirs = Durations.inside(folder), Durations.inside(folder)
    ours.noted = {"x": 1.0, "y": 2.0}
    theirs.noted = {"z": 3.0, "x": 4.0}
    ours.save()
    theirs.save()
    assert Durations.inside(folder).known == {"y": 2.0, "z": 3.0, "x": 4.0}
    monkeypatch.setattr("autograder.store.durations.KEEP", 3)
    ours.noted = {"w": 5.0, "v": 6.0}
    ours.save()
    assert Durations.inside(folder).known == {"x": 4.0, "w": 5.0, "v": 6.0}  # the oldest noted go first
    assert KEEP >= 10_000  # a few large classes' worth


def test_a_run_of_one_program_reads_and_writes_nothing(tmp_path):
    """nbgrader's graded cells grade one notebook a run: no order to choose, no file to rewrite each time."""
    folder = tmp_path / "cache"
    alone = Durations.inside(folder)
    alone.noted = {"x": 1.0}
    alone.save()
    assert not (folder / FILE).exists()
    only = [program("custom_gradients", "aa")]
    unread = Durations(folder / FILE)
    assert longest_first(only, only, unread, {}) == only and unread.loaded is None


@pytest.mark.slow
def test_a_real_run_notes_every_program_and_the_grades_do_not_depend_on_the_order(tmp_path):
    cache = tmp_path / "cache"
    found = [Found(path, f"{path.parent.parent.name}/{path.name}") for path in CLASS[:2]]
    first = grade(found, Settings(seed=1, cache=cache, jobs=2))
    run, _ = scheduled(cache, CLASS[:2])
    known = Durations.inside(run.cache.folder).known
    assert {program_key(each) for each in run.submissions} <= set(known)
    assert all(0 < known[program_key(each)] < 60 for each in run.submissions)
    second = grade(found, Settings(seed=1, cache=cache, jobs=2))
    strip = [dict(vars(result), seconds=0) for result in first.results]
    assert strip == [dict(vars(result), seconds=0) for result in second.results]
