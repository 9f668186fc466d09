"""What travels between the grading client and a Dask worker: one submission's run out, its record back.

Both directions are plain JSON made with the kit's one codec (``run.wire``), never a pickled object: the task
carries the submission's code (its cells, never its path), the tasks, each exercise's key (``case_key``: derived
one way from the course's secret, which stays with the client), the containment and the limits; the worker
draws the cases from the keys (``Exercise.cases_from_key``) and hands its child one case at a time, as a local
run does (the child never holds a key); the answer is the ``RunRecord`` the worker's supervisor built from what the
child sent, re-checked field by field on the client (``wire.records.decode_record`` is total). Dask pickles its own
messages around these bytes, which is why a cluster must be private (docs/cluster.md).

A submission whose task could not run (every worker that tried it died: Dask's ``KilledWorker``) gets a record
of its own here, so that the judge makes it that submission's error, as a local run does for a child that keeps
crashing.
"""
from __future__ import annotations

import json
from dataclasses import asdict, fields

from autograder.config import Limits
from autograder.course import assignment_by_id
from autograder.model.outcomes import RunRecord, RunStatus, TaskOutcome
from autograder.run.budgets import MAX_RECEIVED_BYTES
from autograder.run.handing import CaseBook
from autograder.run.isolation import Containment
from autograder.run.supervisor import SubmissionRun
from autograder.run.tasks import ChildJob, Task
from autograder.run.wire import records
from autograder.run.wire.checked import WireError
from autograder.run.wire.messages import dumps

TASK_EVENT, RECORD_EVENT = "autograder-task-v1", "autograder-record-v1"
# A record holds at most MAX_RECEIVED_BYTES of a child's answers (``run.budgets``), in base64 and JSON.
MAX_RECORD_BYTES = 2 * MAX_RECEIVED_BYTES
MAX_CODE_BYTES = 64 * 2**20  # the loader keeps at most 1,000,000 characters of code: this is ample
# Containment fields the worker decides for itself: the uid comes with its slot, ``applied`` from the child.
_CONTAINMENT = tuple(f.name for f in fields(Containment) if f.name not in ("uid", "applied"))
BOOKS_KEPT = 8  # a worker keeps the cases of the last few (assignment, keys): every task of a run shares them
_books: dict[tuple, CaseBook] = {}


class TaskError(ValueError):
    """A task or a record that is not what this protocol allows."""


def encode_run(run: SubmissionRun) -> bytes:
    """Client side: one submission's (or reference's) run as the bytes a worker needs to run it."""
    job = run.job
    if run.book.keys is None:
        raise TaskError("a cluster task carries the keys its cases are drawn from, never the cases")
    return dumps({
        "event": TASK_EVENT, "key": [str(part) for part in run.key], "assignment": job.assignment,
        "cells": [[index, code, filename] for index, code, filename in job.cells],
        "tasks": [[t.exercise, t.case_index, t.implementation] for t in run.tasks], "trusted": job.trusted,
        "keys": {exercise: key.hex() for exercise, key in sorted(run.book.keys.items())},
        "tf_threads": job.tf_threads, "containment": {name: getattr(job.containment, name) for name in _CONTAINMENT},
        "limits": asdict(run.limits), "time_limits": list(run.time_limits)})


def decode_run(data: bytes) -> SubmissionRun:
    """Worker side: the run the client asked for, its cases drawn from the task's keys."""
    if len(data) > MAX_CODE_BYTES:
        raise TaskError("a task larger than a submission can be")
    try:
        message = json.loads(data.decode("utf-8"))
        if message.get("event") != TASK_EVENT:
            raise TaskError(f"not an autograder task ({message.get('event')!r})")
        containment = {name: message["containment"][name] for name in _CONTAINMENT}
        job = ChildJob(assignment=str(message["assignment"]),
                       cells=[(int(i), str(code), str(name)) for i, code, name in message["cells"]],
                       trusted=message["trusted"] is True, containment=Containment(**containment),
                       tf_threads=int(message["tf_threads"]))
        tasks = [Task(str(e), int(n), str(impl)) for e, n, impl in message["tasks"]]
        book = _book(job.assignment, {str(e): bytes.fromhex(k) for e, k in message["keys"].items()})
        limits = Limits(**message["limits"])
        time_limits = [float(t) for t in message["time_limits"]]
        key = tuple(message["key"])
        for task in tasks:
            book.case(task)  # every task names a case of its exercise
    except TaskError:
        raise
    except (ValueError, KeyError, TypeError, AttributeError, IndexError) as error:
        raise TaskError(f"a malformed task ({type(error).__name__}: {error})") from None
    if len(time_limits) != len(tasks):
        raise TaskError("a task needs one time limit per task of its job")
    return SubmissionRun(key, job, tasks, book, limits, time_limits)  # on a worker every case runs


def _book(assignment_id: str, keys: dict[str, bytes]) -> CaseBook:
    """The cases the keys draw (the client's, case for case), built once per worker process."""
    memo = (assignment_id, tuple(sorted(keys.items())))
    if memo not in _books:
        assignment = assignment_by_id(assignment_id)
        _books[memo] = CaseBook({e.id: e.cases_from_key(keys[e.id]) for e in assignment.exercises}, keys)
        while len(_books) > BOOKS_KEPT:
            _books.pop(next(iter(_books)))
    return _books[memo]


def encode_record(record: RunRecord) -> bytes:
    """Worker side: the finished run's record, in the codec's plain data."""
    return dumps({"event": RECORD_EVENT, "record": records.record_to_data(record)})


def decode_record(data: object) -> RunRecord:
    """Client side: a worker's answer, checked as every record is (``WireError`` for anything else)."""
    if type(data) is not bytes or len(data) > MAX_RECORD_BYTES:
        raise WireError("a worker's answer must be the bytes of one record")
    try:
        message = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise WireError("a worker's answer is not JSON") from None
    if type(message) is not dict or message.get("event") != RECORD_EVENT:
        raise WireError("a worker's answer is not a record")
    return records.decode_record(message.get("record"))


def lost_record(tasks: int, reason: str) -> RunRecord:
    """The record of a submission the cluster could not grade: every task crashed, for ``reason`` (what a local
    supervisor writes when it gives up on a child)."""
    outcomes = {number: TaskOutcome(RunStatus.CRASHED, message=reason) for number in range(tasks)}
    return RunRecord(outcomes=outcomes, problems=[reason])


def killed_message(attempts: int) -> str:
    """What the student reads when every worker that ran their submission died (Dask's KilledWorker)."""
    return (f"grading stopped: the grader's process died each time it ran this submission ({attempts} "
            f"attempt{'s' if attempts != 1 else ''}, on different workers), so no exercise could be graded")
