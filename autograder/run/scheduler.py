"""Run many submissions with at most ``jobs`` children at once, from one fork server, and yield each as it ends."""
from __future__ import annotations

import atexit
import selectors
import time
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
        ready, writable = _wait(active)
        now = time.monotonic()
        for run in list(active):
            if run.child is not None and run.child.channel in writable:
                run.flush()  # the rest of a task's case, now that the child takes it
            if run.child is not None and run.child.channel in ready:
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


def _wait(active: list[SubmissionRun]) -> tuple[set, set]:
    """What is readable (a child's socket or exit) and writable (a socket a case waits on), within a tick."""
    with selectors.PollSelector() as selector:
        wanted: dict[object, int] = {}
        for run in active:
            for each in run.waitables():
                wanted[each] = wanted.get(each, 0) | selectors.EVENT_READ
            for each in run.writing():
                wanted[each] = wanted.get(each, 0) | selectors.EVENT_WRITE
        if not wanted:
            time.sleep(TICK_SECONDS)
            return set(), set()
        for each, events in wanted.items():
            selector.register(each, events)
        ready = selector.select(TICK_SECONDS)
    return ({key.fileobj for key, events in ready if events & selectors.EVENT_READ},
            {key.fileobj for key, events in ready if events & selectors.EVENT_WRITE})
