"""Grading over Dask distributed: a real `dask scheduler` and `autograder worker` processes on 127.0.0.1.

The slow tests share one cluster (module fixture) and compare the contract's JSON with the golden local result
(tests/fixtures/example_class_seed1.json: `autograder grade examples --seed 1`, with this machine's default
of --jobs 2; test_examples.py holds the local run to it): the example class, a client killed halfway and rerun,
a submission that kills every worker it lands on, and last a class whose worker is SIGKILLed halfway. The fast
tests check the task and record encoding and the KilledWorker -> error mapping without a cluster.
"""
from __future__ import annotations

import concurrent.futures
import json
import os
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import pytest

from autograder.config import Limits, Settings
from autograder.course import assignment_by_id
from autograder.frontends import dask_tasks
from autograder.frontends.dask_client import ClusterOptions, ClusterRunner
from autograder.load.cells import read_submission
from autograder.load.discover import Found
from autograder.model.course import case_key
from autograder.model.outcomes import ErrorInfo, RunRecord, RunStatus, TaskOutcome, Value
from autograder.pipeline.references import child_run, student_tasks
from autograder.run.handing import CaseBook
from autograder.run.wire.checked import WireError
from autograder.run.wire.records import record_to_data
from helpers import (BIN, ROOT, assert_same_result, by_file, copy_submissions, exercise, quiet_env, secret_forms,
                     under_load)

GOLDEN = {r["submission"]: r for r in json.loads((ROOT / "tests/fixtures/example_class_seed1.json").read_text())}
# A small class for the fault tests: two assignments that take a second or two each, so that "halfway" exists.
SMALL = sorted(p for p in GOLDEN if "/higher_order/" in p or "/jacobians/" in p)[:8]
CRASH_MARKER = "CRASH-THE-WORKER"
SECRET = 6_602_315_977_145_380_899  # the course's secret of the round-three test (63 bits)


# --------------------------------------------------------------------------- a real cluster

def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def cluster_env(cache: Path, **extra: str) -> dict[str, str]:
    """Every process of the cluster imports the kit of this checkout (never the venv's editable install)."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return quiet_env(PYTHONPATH=path, AUTOGRADER_CACHE=str(cache), **extra)


@contextmanager
def cluster(folder: Path, workers: int = 2, **scheduler_config: str):
    """A `dask scheduler` and ``workers`` `autograder worker` processes (one worker process each), each in a
    session of its own; yields (address, the workers' Popen), all killed at the end."""
    folder.mkdir(parents=True, exist_ok=True)
    env = cluster_env(folder / "worker-cache", **{f"DASK_DISTRIBUTED__SCHEDULER__{k.upper()}": v
                                                  for k, v in scheduler_config.items()})
    address = f"tcp://127.0.0.1:{_free_port()}"
    processes = []

    def start(name: str, command: list[str]) -> subprocess.Popen:
        log = open(folder / f"{name}.log", "wb")
        process = subprocess.Popen(command, cwd=folder, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                   start_new_session=True)
        processes.append(process)
        return process

    try:
        start("scheduler", [str(BIN / "dask"), "scheduler", "--host", "127.0.0.1",
                            "--port", address.rsplit(":", 1)[1], "--no-dashboard"])
        nodes = [start(f"worker{n}", [sys.executable, "-m", "autograder", "worker", address, "--nworkers", "1",
                                      "--name", f"w{n}", "--local-directory", str(folder / f"scratch{n}")])
                 for n in range(workers)]
        wait_for_workers(address, workers)
        yield address, nodes
    finally:
        for process in processes:
            stop(process)


def wait_for_workers(address: str, count: int, timeout: float = 180) -> None:
    from distributed import Client

    deadline = time.monotonic() + timeout
    while True:
        try:
            with Client(address, timeout=10, set_as_default=False) as client:
                client.wait_for_workers(count, timeout=max(1, deadline - time.monotonic()))
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def stop(process: subprocess.Popen) -> None:
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
        if process.poll() is not None:
            return
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(wait)
        except subprocess.TimeoutExpired:
            continue


def client_command(address: str, paths: list[str], output: Path | None = None) -> list[str]:
    command = [sys.executable, "-m", "autograder", "grade", *paths, "--seed", "1", "--format", "json",
               "--scheduler", address]
    return command + (["--output", str(output)] if output else [])


def journaled(output: Path) -> int:
    """How many results the client's journal holds (beside its --output file)."""
    folder = output.parent / f".{output.name}.partial"
    return len([p for p in folder.glob("*.json") if p.name != "run.json"]) if folder.is_dir() else 0


def assert_golden(results: list[dict], paths: list[str]) -> None:
    assert [r["submission"] for r in results] == paths
    for result in results:
        assert_same_result(result, GOLDEN[result["submission"]])


@pytest.fixture(scope="module")
def shared_cluster(tmp_path_factory):
    """One cluster for the slow tests (one xdist group: conftest.py); a submission that kills its
    worker twice is that submission's error (allowed-failures 1), and a worker holds one task at a time
    (worker-saturation 1.0: a worker's death then counts against the one task it ran, never against a queued
    innocent one). The last test kills a worker for good."""
    folder = tmp_path_factory.mktemp("cluster")
    with cluster(folder, allowed_failures="1", worker_saturation="1.0") as (address, nodes):
        yield address, folder / "client-cache", nodes


# --------------------------------------------------------------------------- the slow tests

@pytest.mark.slow
def test_the_example_class_over_the_cluster_gives_the_local_json(shared_cluster):
    address, cache, _ = shared_cluster
    done = subprocess.run(client_command(address, ["examples"]), cwd=ROOT, env=cluster_env(cache),
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    # The references ran on the workers (the client's cache was empty), once per assignment.
    assert "32 submission runs and 4 references to send" in done.stderr, done.stderr[-2000:]
    assert_golden(json.loads(done.stdout), sorted(GOLDEN))
    from distributed import Client

    with Client(address, set_as_default=False) as client:  # the workers never imported TensorFlow
        assert set(client.run(lambda: "tensorflow" in sys.modules).values()) == {False}


@pytest.mark.slow
def test_a_client_killed_halfway_reruns_only_what_is_missing(shared_cluster, tmp_path):
    address, cache, _ = shared_cluster
    output = tmp_path / "results.json"
    env = cluster_env(cache)
    with open(tmp_path / "first.log", "wb") as log:
        first = subprocess.Popen(client_command(address, SMALL, output), cwd=ROOT, env=env, stdout=log, stderr=log,
                                 start_new_session=True)
        deadline = time.monotonic() + 300
        while journaled(output) < 2 and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
    kept = journaled(output)
    assert 2 <= kept < len(SMALL), (kept, (tmp_path / "first.log").read_text()[-2000:])
    done = subprocess.run(client_command(address, SMALL, output), cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"{kept} of {len(SMALL)} submissions were already graded" in done.stderr, done.stderr
    assert f"{len(SMALL) - kept} submission runs and 0 references to send" in done.stderr, done.stderr
    assert_golden(json.loads(output.read_text()), SMALL)
    assert journaled(output) == 0  # complete: the journal is gone


@pytest.mark.slow
def test_a_submission_that_kills_every_worker_it_lands_on_is_its_own_error(shared_cluster, tmp_path):
    """Simulated: as root, a submission's child cannot reach its worker (PID namespace, a uid of its own), so the
    worker-side function itself dies (os._exit) for the task that carries the marker, on every worker."""
    from autograder.frontends.dask_worker import run_on_worker
    from autograder.pipeline.grading_run import grade

    address, cache, _ = shared_cluster

    def killing_its_worker(task: bytes) -> bytes:  # a local function: Dask ships it by value
        if CRASH_MARKER.encode() in task:
            os._exit(1)
        return run_on_worker(task)

    notebook = json.loads((ROOT / SMALL[0]).read_text())
    code = next(c for c in notebook["cells"] if c["cell_type"] == "code")
    code["source"] = "".join(code["source"]) + f"\n# {CRASH_MARKER}\n"
    crash = tmp_path / "submitted" / "zed" / "higher_order" / "higher_order.ipynb"
    crash.parent.mkdir(parents=True)
    crash.write_text(json.dumps(notebook))
    found = [Found(ROOT / p, p) for p in SMALL[:4]] + [Found(crash, "zed.ipynb")]
    runner = ClusterRunner(ClusterOptions(address), work=killing_its_worker)
    settings = Settings(seed=1, cache=cache, assignment=None)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # a stuck run fails the test instead of hanging it
        graded = pool.submit(grade, found, settings, None, runner).result(timeout=600)
    from autograder.report.contract import to_json

    contract = json.loads(to_json(graded.results))
    assert_golden(contract[:4], SMALL[:4])
    killed = contract[4]
    # What the judge gives any submission that never finished loading (as a local child that keeps dying while
    # loading): every exercise "missing", 0 points, and the feedback says why.
    assert killed["score"] == 0 and {e["status"] for e in killed["exercises"]} == {"missing"}, killed
    assert all("died each time it ran this submission (2 attempts" in e["feedback"] for e in killed["exercises"])


@pytest.mark.slow
def test_over_the_cluster_no_output_holds_the_secret_and_honest_work_gets_its_solo_json(shared_cluster, tmp_path):
    """Round three (issue 22) over Dask: a worker gets each exercise's key, never the seed, and hands its child
    one case at a time; the memory oracle finds neither the seed nor a case before its turn, the channel attack
    carries no hidden input out, and honest work graded beside them gets the JSON it gets alone, locally."""
    address, cache, _ = shared_cluster
    folder = tmp_path / "submissions"
    copy_submissions(["honest_a.py", "leak_all_hidden_channels.py", "leak_td_loss_memory_oracle.py"], folder,
                     "cluster", seed=SECRET)
    options = ["--assignment", "custom_gradients", "--seed", str(SECRET), "--case-time-limit",
               str(min(under_load(5), 20)), "--format", "json"]  # the oracle's search and honest work finish within it
    done = subprocess.run([sys.executable, "-m", "autograder", "grade", str(folder), *options, "--scheduler", address],
                          cwd=ROOT, env=cluster_env(cache), capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    results = by_file(json.loads(done.stdout))
    leaks = [label for label, form in secret_forms("custom_gradients", SECRET).items()
             if form in done.stdout or form in done.stderr]
    assert not leaks, leaks
    oracle = exercise(results["leak_td_loss_memory_oracle.py"], "td_loss")
    # round four: a hidden case shows its kind only; the oracle says "looked everywhere, found nothing" by an error
    assert oracle["feedback"].count("\n    an error (it raised") == 2, oracle["feedback"]
    alone = subprocess.run([sys.executable, "-m", "autograder", "grade", str(folder / "honest_a.py"), *options],
                           cwd=ROOT, env=cluster_env(cache), capture_output=True, text=True, timeout=600)
    assert alone.returncode == 0, alone.stderr[-3000:]
    (solo,) = json.loads(alone.stdout)
    assert results["honest_a.py"]["score"] == assignment_by_id("custom_gradients").max_score
    assert {k: v for k, v in results["honest_a.py"].items() if k != "submission"} == \
        {k: v for k, v in solo.items() if k != "submission"}


@pytest.mark.slow
def test_a_worker_killed_halfway_costs_no_grade(shared_cluster, tmp_path):
    """The module's last test on the cluster: it kills one of its two workers for good (a client of its own,
    whose cache is empty: the references run on the workers too)."""
    address, _, nodes = shared_cluster
    output = tmp_path / "results.json"
    env = cluster_env(tmp_path / "client-cache")
    with open(tmp_path / "client.log", "wb") as log:
        client = subprocess.Popen(client_command(address, SMALL, output), cwd=ROOT, env=env, stdout=log,
                                  stderr=log)
        deadline = time.monotonic() + 600
        while journaled(output) < 2 and client.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert client.poll() is None, "the class finished before the worker could be killed"
        os.killpg(nodes[0].pid, signal.SIGKILL)  # the nanny, its worker, its fork server and its child
        assert client.wait(600) == 0, (tmp_path / "client.log").read_text()[-3000:]
    assert nodes[0].wait(10) == -signal.SIGKILL
    assert_golden(json.loads(output.read_text()), SMALL)


# --------------------------------------------------------------------------- fast: encoding, the mapping

def a_run(number: int = 3):
    source = read_submission(ROOT / SMALL[0])
    assignment = assignment_by_id("higher_order")
    keys = {e.id: case_key(1, e.id) for e in assignment.exercises}
    cases = {e.id: e.cases_from_key(keys[e.id]) for e in assignment.exercises}
    return child_run(("student", number), source, assignment, CaseBook(cases, keys), student_tasks(assignment, cases),
                     Limits(), private_files=True)


def test_a_task_carries_the_code_and_the_keys_never_the_path_the_seed_or_a_folder():
    run = a_run()
    data = dask_tasks.encode_run(run)
    assert SMALL[0].encode() not in data and b"examples/submitted" not in data
    message = json.loads(data)
    assert "seed" not in message and "hidden" not in message["containment"]  # no path of the grader's travels
    back = dask_tasks.decode_run(data)
    assert back.key == ("student", "3")
    assert back.job.cells == run.job.cells and back.tasks == run.tasks and back.job.assignment == "higher_order"
    # The worker draws the client's cases from the keys: the same bytes are handed to the child, case for case.
    assert back.book.keys == run.book.keys
    assert [back.book.task_message(n, t) for n, t in enumerate(back.tasks)] == \
        [run.book.task_message(n, t) for n, t in enumerate(run.tasks)]
    assert back.job.containment.private_files and back.job.containment.uid is None and not back.job.trusted
    assert back.job.containment.memory_bytes == run.job.containment.memory_bytes
    assert back.limits == run.limits and back.time_limits == run.time_limits


@pytest.mark.parametrize("data", [b"", b"\xff", b"[]", b'{"event": "other"}',
                                  b'{"event": "autograder-task-v1", "cells": 5}'])
def test_a_malformed_task_is_refused(data):
    with pytest.raises(dask_tasks.TaskError):
        dask_tasks.decode_run(data)


def test_a_task_never_carries_the_cases_themselves():
    run = a_run()
    run.book = CaseBook(run.book.cases)  # cases without the keys they came from
    with pytest.raises(dask_tasks.TaskError):
        dask_tasks.encode_run(run)


def test_a_record_travels_as_the_codecs_plain_data():
    import numpy as np

    record = RunRecord(loaded=True, seconds=1.5, defined={"derivatives": ["f", "x"]},
                       load_errors=[(4, ErrorInfo("NameError", "name 'q' is not defined"))],
                       outcomes={0: TaskOutcome(RunStatus.OK, {"dy_dx": Value(np.arange(3.0), "EagerTensor", "float32")}),
                                 1: TaskOutcome(RunStatus.TIMEOUT, message="timeout after 20 s")})
    data = dask_tasks.encode_record(record)
    assert b"pickle" not in data and data.startswith(b"{")
    assert record_to_data(dask_tasks.decode_record(data)) == record_to_data(record)
    for bad in ("not bytes", b"{}", b'{"event": "autograder-record-v1", "record": {"loaded": 1}}', b"\x80"):
        with pytest.raises(WireError):
            dask_tasks.decode_record(bad)


def test_killed_worker_becomes_that_submissions_crash_and_another_failure_stops_the_run():
    from distributed.scheduler import KilledWorker

    from autograder.config import SetupError

    class Finished:
        def __init__(self, error):
            self.error = error

        def result(self):
            raise self.error

    run = a_run()
    log = open(os.devnull, "w")
    runner = ClusterRunner(ClusterOptions("tcp://127.0.0.1:1"), log=log)
    killed = KilledWorker("autograder-x-student-3", SimpleNamespace(address="tcp://10.0.0.9:4000"), 3)
    record = runner._record(Finished(killed), run)
    assert not record.clean(len(run.tasks))
    assert {o.status for o in record.outcomes.values()} == {RunStatus.CRASHED}
    assert sorted(record.outcomes) == list(range(len(run.tasks)))
    assert record.problems == [dask_tasks.killed_message(4)] and "4 attempts" in record.problems[0]
    assert "10.0.0.9" not in record.problems[0]  # the student's feedback names no machine of the cluster
    with pytest.raises(SetupError, match="could not run student 3"):
        runner._record(Finished(RuntimeError("the fork server stopped")), run)
    log.close()
