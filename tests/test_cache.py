"""The reference cache on its own: keys, round trips, what is not kept, and writers racing each other."""
from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from autograder.config import cache_folder as default_folder
from autograder.model.outcomes import ErrorInfo, RunRecord, TaskOutcome, Value
from autograder.run.hidden import in_sight
from autograder.run.tasks import Task
from autograder.store import reference_cache as cache_module
from autograder.store.reference_cache import ReferenceCache, grader_fingerprint, reference_key

TASKS = [Task("log1pexp", 0, "student"), Task("log1pexp", 1, "student"), Task("log1pexp", 0, "mistake:0")]


def record(scale: float = 1.0) -> RunRecord:
    error = ErrorInfo("ValueError", "no", "builtins", contract=True, frames=(("<cell 3>", 4, "f", "x = 1"),))
    return RunRecord(
        loaded=True, seconds=1.5, defined={"log1pexp": ["x"], "td_loss": "not a function but a int"},
        load_errors=[(7, error)],
        outcomes={
            0: TaskOutcome("ok", outputs={"value": Value(np.arange(6.0).reshape(2, 3) * scale, "EagerTensor",
                                                         "float32"),
                                          "gradient": Value(None, "NoneType"),
                                          "loss": Value(np.array(2.5), "EagerTensor", "float64"),
                                          "strided": Value(np.arange(12.0).reshape(3, 4).T, "ndarray", "float64")},
                             seconds=0.25),
            1: TaskOutcome("ok", outputs={"value": Value(np.array([np.inf, -np.inf, np.nan, 1e-300]), "ndarray",
                                                         "float64")}),
            2: TaskOutcome("error", error=error, seconds=0.5),
        })


def test_a_record_comes_back_exactly(tmp_path):
    store = ReferenceCache(tmp_path / "cache")
    assert store.prepare()
    original = record()
    assert store.save("k", TASKS, original)
    again = store.load("k", TASKS)
    assert again.loaded and again.defined == original.defined and again.load_errors == original.load_errors
    assert again.outcomes.keys() == original.outcomes.keys()
    for number, outcome in original.outcomes.items():
        kept = again.outcomes[number]
        assert (kept.status, kept.error, kept.message, kept.seconds) == (outcome.status, outcome.error,
                                                                         outcome.message, outcome.seconds)
        for name, value in (outcome.outputs or {}).items():
            got = kept.outputs[name]
            assert (got.type_name, got.dtype) == (value.type_name, value.dtype)
            if value.array is None:
                assert got.array is None
            else:
                assert got.array.dtype == np.float64 and got.array.shape == value.array.shape
                assert np.array_equal(got.array, value.array, equal_nan=True)


def test_the_folder_is_private_and_out_of_every_childs_sight(tmp_path, capsys):
    store = ReferenceCache(tmp_path / "deep" / "cache")
    assert store.prepare()
    assert (store.folder.stat().st_mode & 0o777) == 0o700
    assert in_sight(store.folder) is None  # no child is told where it is: its view leaves it out
    inside = ReferenceCache(Path(sys.prefix) / "autograder-cache-test")  # Python's installation: every child reads it
    assert in_sight(inside.folder) and not inside.prepare() and not inside.folder.exists()
    assert "are off for this run" in capsys.readouterr().err


def test_other_tasks_a_broken_file_or_another_format_are_a_miss(tmp_path):
    store = ReferenceCache(tmp_path)
    store.save("k", TASKS, record())
    assert store.load("k", TASKS[:2]) is None  # the cases changed: not this entry
    assert store.load("missing", TASKS) is None
    store.path("k").write_text(store.path("k").read_text()[:-100])
    assert store.load("k", TASKS) is None
    store.save("k", TASKS, record())
    digest, _, text = store.path("k").read_bytes().partition(b"\n")
    store.path("k").write_bytes(digest + b"\n" + text.replace(b'"seconds": 1.5', b'"seconds": 2.5'))
    assert store.load("k", TASKS) is None  # the digest no longer matches
    data = json.loads(text)
    data["format"] = 0
    text = json.dumps(data).encode()
    store.path("k").write_bytes(hashlib.sha256(text).hexdigest().encode() + b"\n" + text)
    assert store.load("k", TASKS) is None


@pytest.mark.parametrize("status", ["timeout", "crashed", "memory", "not-run"])
def test_an_outcome_that_depends_on_the_machine_is_not_kept(tmp_path, status):
    store = ReferenceCache(tmp_path)
    unlucky = record()
    unlucky.outcomes[2] = TaskOutcome(status, message="the machine was busy")
    assert not store.save("k", TASKS, unlucky)
    assert not store.path("k").exists()
    incomplete = record()
    del incomplete.outcomes[1]
    assert not store.save("k", TASKS, incomplete)


def test_the_key_changes_with_the_solution_the_assignment_the_seed_and_the_grader(monkeypatch):
    base = reference_key(b"notebook", "jacobians", 1)
    assert base == reference_key(b"notebook", "jacobians", 1)
    assert len({base, reference_key(b"notebook!", "jacobians", 1), reference_key(b"notebook", "higher_order", 1),
                reference_key(b"notebook", "jacobians", 2)}) == 4
    monkeypatch.setenv("TF_ENABLE_ONEDNN_OPTS", "1")  # oneDNN kernels: other last bits
    assert reference_key(b"notebook", "jacobians", 1) != base
    monkeypatch.setenv("TF_ENABLE_ONEDNN_OPTS", "0")
    assert reference_key(b"notebook", "jacobians", 1) == base
    monkeypatch.setattr(cache_module, "grader_fingerprint", lambda: "another grader")
    assert reference_key(b"notebook", "jacobians", 1) != base


def test_the_fingerprint_covers_what_computes_and_not_what_reports(tmp_path, monkeypatch):
    package = cache_module.PACKAGE
    assert (package / "course" / "jacobians" / "mistakes.py").is_file()
    assert not cache_module._parent_only("course/jacobians/mistakes.py") and not cache_module._parent_only("run/child.py")
    assert cache_module._parent_only("report/text.py") and cache_module._parent_only("judge/diagnose.py")
    assert len(grader_fingerprint()) == 64


def test_where_the_cache_lives(monkeypatch, tmp_path):
    monkeypatch.setenv("AUTOGRADER_CACHE", str(tmp_path / "here"))
    assert default_folder() == tmp_path / "here"
    monkeypatch.setenv("AUTOGRADER_CACHE", "off")
    assert default_folder() is None
    monkeypatch.delenv("AUTOGRADER_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_folder() == tmp_path / "xdg" / "tf-autodiff-autograder"


def _writer(folder: str, scale: float, rounds: int) -> None:
    store = ReferenceCache(Path(folder))
    for _ in range(rounds):
        assert store.save("same", TASKS, record(scale))


def test_writers_racing_on_one_entry_always_leave_a_whole_file(tmp_path):
    store = ReferenceCache(tmp_path)
    store.save("same", TASKS, record(1.0))
    context = multiprocessing.get_context("fork")
    writers = [context.Process(target=_writer, args=(str(tmp_path), scale, 60)) for scale in (1.0, 2.0, 3.0)]
    for writer in writers:
        writer.start()
    seen = set()
    while any(writer.is_alive() for writer in writers):
        kept = store.load("same", TASKS)
        assert kept is not None, "a reader saw a partial entry"
        seen.add(float(kept.outcomes[0].outputs["value"].array[0, 1]))
    for writer in writers:
        writer.join()
        assert writer.exitcode == 0
    assert seen <= {1.0, 2.0, 3.0}
    assert store.load("same", TASKS) is not None
    # no temporary file left behind (beside the entry, only the folder's key)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["key", store.path("same").name]


def test_the_folder_keeps_the_entries_used_last(tmp_path, monkeypatch):
    monkeypatch.setattr(cache_module, "KEEP", 3)
    store = ReferenceCache(tmp_path)
    for number, key in enumerate("abcd"):
        assert store.save(key, TASKS, record())
        os.utime(store.path(key), (1000 + number, 1000 + number))  # written one after the other
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "key") == [store.path(k).name for k in "bcd"]
    assert store.load("b", TASKS) is not None  # read: now the one used last
    assert store.save("e", TASKS, record())
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "key") == [store.path(k).name for k in "bde"]
