"""Run many submissions with at most ``jobs`` children at once, from one fork server, and yield each as it ends."""
from __future__ import annotations

import atexit
import time
from multiprocessing.connection import wait
from typing import Iterable, Iterator

from autograder.run.forkserver import ForkServer
from autograder.run.supervisor import SubmissionRun

TICK_SECONDS = 0.05
_server: ForkServer | None = None


def fork_server() -> ForkServer:
    """This process's fork server, started on first use (its `import tensorflow` then runs in the background)."""
    global _server
    if _server is None:
        _server = ForkServer()
        atexit.register(_server.stop)
    _server.start()
    return _server


def start_fork_server() -> None:
    """Start the fork server now, without waiting for it: its `import tensorflow` (2-3 s on one core) then
    overlaps with the parent's own work (reading submissions, static checks) instead of preceding it."""
    fork_server()


class LocalRunner:
    """Where a grading run's children run by default: this machine's fork server, ``jobs`` at once. A cluster's
    runner (``autograder.cluster.client``) has the same two methods, so the pipeline does not know which it has."""

    def prepare(self) -> None:
        start_fork_server()

    def run_all(self, runs: Iterable[SubmissionRun], jobs: int = 1) -> Iterator[SubmissionRun]:
        return run_all(runs, jobs)


def stop_fork_server() -> None:
    """Stop this process's fork server, if it runs (it kills its children); the next use starts a new one."""
    if _server is not None:
        _server.stop()


def run_all(runs: Iterable[SubmissionRun], jobs: int = 1) -> Iterator[SubmissionRun]:
    """Run submissions with at most ``jobs`` children at once; yield each as it finishes."""
    server = fork_server()
    pending = list(runs)
    active: list[SubmissionRun] = []
    free_slots = list(range(max(1, jobs)))
    while pending or active:
        while pending and free_slots:
            run = pending.pop(0)
            run.start(server, free_slots.pop(0))
            active.append(run)
        ready = wait([w for run in active for w in run.waitables()], TICK_SECONDS)
        now = time.monotonic()
        for run in list(active):
            if run.child is not None and run.child.connection in ready:
                run.pump()
            if run.child is not None and run.child.sentinel in ready:
                run.on_exit()
            elif run.child is not None:
                run.check_limits(now)
            if run.finished:
                active.remove(run)
                free_slots.append(run.slot)
                yield run
            elif run.child is None:
                run.start(server, run.slot)
