"""The parent's view of one submission being graded: its child, its messages, its limits, across restarts.

The trusted parent never imports TensorFlow: it reads plain data from the child (``wire``), watches its
time and memory, and starts a new child after a crash or a timeout so that one bad case costs only that
case (and the later cases of the same exercise, which would most likely fail the same way).
"""
from __future__ import annotations

import os
import shutil
import tempfile
import time
from dataclasses import replace

from autograder.config import GiB, Limits
from autograder.model.outcomes import RunRecord, RunStatus, TaskOutcome
from autograder.run import wire
from autograder.run.container import describe_limit, memory_limit, oom_kills
from autograder.run.forkserver import Child, ForkServer
from autograder.run.processes import kill_everything_of, processes_of, resident_bytes, sandbox_uid, signal_name
from autograder.run.tasks import ChildJob

MAX_LOAD_RESTARTS = 5
MEMORY_ERRORS = {"MemoryError", "ResourceExhaustedError"}
SIGXCPU, SIGKILL = 24, 9


class SubmissionRun:
    """One submission (or reference) through its children, to a finished ``RunRecord``."""

    def __init__(self, key, job: ChildJob, limits: Limits, time_limits: list[float]):
        self.key = key
        self.job = job
        self.limits = limits
        self.time_limits = time_limits  # per task
        self.record = RunRecord()
        self.started: float | None = None  # when its first child started: waiting in the queue is not its time
        self.child: Child | None = None
        self.current_task: int | None = None
        self.current_cell: int | None = None
        self.deadline = 0.0
        self.next_start = 0
        self.skip_cells: set[int] = set()
        self.load_restarts = 0
        self.finished = False
        self.slot = 0
        self.oom_kills_before: tuple[int, ...] | None = None  # the memory controller's OOM kills at the start
        self.uid: int | None = None  # the child's own uid, when the grader is root
        self.workdir = ""
        self._family_checked = 0.0
        self._family_bytes = 0
        self.measures: list[str] = []  # the containment the child reported
        self._done_seen = False
        self._closed = False  # the child closed its end of the connection

    # ---------------------------------------------------------------- lifecycle
    def start(self, server: ForkServer, slot: int = 0) -> None:
        self.slot = slot
        self.uid = sandbox_uid(slot) if os.geteuid() == 0 else None
        self.workdir = tempfile.mkdtemp(prefix="autograder-")
        job = replace(self.job, start=self.next_start, skip_cells=frozenset(self.skip_cells),
                      containment=replace(self.job.containment, uid=self.uid), workdir=self.workdir)
        self.oom_kills_before = oom_kills()
        self.child = server.fork(job)  # the first one waits for the fork server's import: not the submission's time
        if self.started is None:
            self.started = time.monotonic()
        self.current_task = None
        self.current_cell = None
        self._done_seen = False
        self._closed = False
        self.deadline = time.monotonic() + self.limits.load_seconds

    def waitables(self) -> list:
        if self.child is None:
            return []
        # A connection the child has closed stays readable (at EOF) until the child is gone: waiting on it
        # would spin. From then on only the child's exit is awaited.
        return [self.child.sentinel] if self._closed else [self.child.connection, self.child.sentinel]

    def submission_deadline(self) -> float:
        return self.started + self.limits.submission_seconds

    # ---------------------------------------------------------------- events
    def pump(self) -> None:
        """Read every message that is ready; stop the child on a protocol violation."""
        if self.child is None or self.child.connection is None:
            return
        try:
            while self.child.connection.poll():
                self._handle(wire.loads(self.child.connection.recv_bytes(wire.MAX_MESSAGE_BYTES)))
        except (EOFError, ConnectionError):
            self._closed = True
        except (OSError, wire.WireError) as error:
            self._stop_child(f"the submission's process broke the grader's protocol ({error})", RunStatus.CRASHED)

    def _handle(self, message: dict) -> None:
        event = message["event"]
        now = time.monotonic()
        if event == "contained":
            self.measures = [wire.text(m, "measure") for m in wire.as_list(message.get("measures"))]
        elif event == "cell-start":
            self.current_cell = wire.as_int(message.get("cell"))
            self.deadline = now + self.limits.load_seconds
        elif event == "loaded":
            self.record.loaded = True
            self.current_cell = None
            self.record.load_errors = [(wire.as_int(e.get("cell")), wire.decode_error(e.get("error")))
                                       for e in map(wire.as_dict, wire.as_list(message.get("errors")))]
            self.record.defined = wire.decode_defined(message.get("defined"))
        elif event == "task-start":
            task = wire.as_int(message.get("task"))
            if task < 0 or task >= len(self.job.tasks):
                raise wire.WireError("unknown task")
            self.current_task = task
            self.deadline = now + self.time_limits[task]
        elif event == "task-result":
            task = wire.as_int(message.get("task"))
            if task != self.current_task or task in self.record.outcomes:
                raise wire.WireError("a result for a task that was not running")
            outcome = wire.decode_outcome(message.get("outcome"))
            if outcome.status not in (RunStatus.OK, RunStatus.ERROR):
                raise wire.WireError("a child reports only results and errors")
            if outcome.status is RunStatus.ERROR and outcome.error.type in MEMORY_ERRORS:
                # the address-space limit made an allocation fail
                outcome = replace(outcome, status=RunStatus.MEMORY, message=(
                    f"memory limit of {self.limits.memory_bytes / GiB:g} GiB exceeded ({outcome.error.type})"))
            self.record.outcomes[task] = outcome
            self.current_task = None
        elif event == "done":
            self._done_seen = True
        else:
            raise wire.WireError(f"unknown event {event!r}")

    def check_limits(self, now: float) -> None:
        if self.child is None or not self.child.is_alive():
            return
        if now > self.submission_deadline():
            self._stop_child(f"the submission's time limit of {self.limits.submission_seconds:g} s was reached",
                             RunStatus.TIMEOUT, whole_submission=True)
        elif now > self.deadline:
            if self.current_task is not None:
                exercise = self.job.tasks[self.current_task].exercise
                limit = self.time_limits[self.current_task]
                self._stop_child(f"timeout after {limit:g} s in {exercise}", RunStatus.TIMEOUT)
            else:
                self._stop_child(None, RunStatus.TIMEOUT)
        elif self._resident() > self.limits.memory_bytes:
            self._stop_child(f"memory limit of {self.limits.memory_bytes / GiB:g} GiB exceeded", RunStatus.MEMORY)

    def _resident(self) -> int:
        """The child's resident memory, plus every process it started (scanned at most 4 times a second)."""
        own = resident_bytes(self.child.pid)
        if self.uid is None:
            return own
        now = time.monotonic()
        if now - self._family_checked > 0.25:
            self._family_checked = now
            self._family_bytes = sum(resident_bytes(pid) for pid in processes_of(self.uid, max_age=0.2)
                                     if pid != self.child.pid)
        return own + self._family_bytes

    def on_exit(self) -> None:
        """The child ended: account for it, and decide whether to restart."""
        self.pump()
        self.child.join()
        code = self.child.exitcode
        self.kill_leftovers()
        self._close()
        if self._done_seen:
            self._finish()
            return
        status = RunStatus.CRASHED
        if code == -SIGXCPU:
            reason = f"CPU time limit of {self.job.containment.cpu_seconds} s exceeded"
        elif code == -SIGKILL and self.oom_kills_before is not None and oom_kills() != self.oom_kills_before:
            # The kernel's, not ours: the machine's or container's memory ran out before our own limit.
            reason = "out of memory: the system's out-of-memory killer stopped it" + describe_limit(memory_limit())
            status = RunStatus.MEMORY
        elif code is not None and code < 0:
            reason = f"the process was killed by {signal_name(-code)}"
        else:
            reason = f"the process exited with code {code} before grading finished"
        self._account_failure(reason, status)

    # ---------------------------------------------------------------- failures
    def _stop_child(self, reason: str | None, status: RunStatus, whole_submission: bool = False) -> None:
        self._kill()
        self.pump()
        self._close()
        if whole_submission:
            for number in range(len(self.job.tasks)):
                self.record.outcomes.setdefault(number, TaskOutcome(RunStatus.TIMEOUT, message=reason))
            self.record.problems.append(reason)
            self._finish()
            return
        if reason is None:  # a cell of the notebook hung while loading
            reason = f"cell {self.current_cell} did not finish within {self.limits.load_seconds:g} s"
        self._account_failure(reason, status)

    def _account_failure(self, reason: str, status: RunStatus) -> None:
        if self.current_task is not None:
            failed = self.current_task
            self.record.outcomes[failed] = TaskOutcome(status, message=reason)
            # The other cases of the same implementation and exercise would most likely fail the same way.
            group = (self.job.tasks[failed].implementation, self.job.tasks[failed].exercise)
            later = failed + 1
            while later < len(self.job.tasks) and (self.job.tasks[later].implementation,
                                                    self.job.tasks[later].exercise) == group:
                self.record.outcomes.setdefault(
                    later, TaskOutcome(RunStatus.NOT_RUN, message=f"not run: an earlier case stopped ({reason})"))
                later += 1
            self.next_start = later
        elif not self.record.loaded and self.current_cell is not None:
            self.record.problems.append(f"cell {self.current_cell} was skipped: {reason}")
            self.skip_cells.add(self.current_cell)
            self.load_restarts += 1
            if self.load_restarts > MAX_LOAD_RESTARTS:
                self._give_up(f"the notebook could not be loaded ({reason})")
                return
        else:
            self._give_up(reason)
            return
        self._next_or_finish()

    def _give_up(self, reason: str) -> None:
        self.record.problems.append(reason)
        for number in range(len(self.job.tasks)):
            self.record.outcomes.setdefault(number, TaskOutcome(RunStatus.CRASHED, message=reason))
        self._finish()

    def _next_or_finish(self) -> None:
        while self.next_start < len(self.job.tasks) and self.next_start in self.record.outcomes:
            self.next_start += 1
        if self.next_start >= len(self.job.tasks):
            self._finish()
        else:
            self._release()  # the scheduler starts a new child

    def _kill(self) -> None:
        if self.child is None:
            return
        self.child.kill()
        self.child.join(5)
        self.kill_leftovers()

    def kill_leftovers(self) -> None:
        """Processes the student started that escaped the child's session: none may outlive it."""
        if self.uid is not None:
            kill_everything_of(self.uid)

    def _close(self) -> None:
        """The connection only: the sentinel stays open until the child's exit is read (``_release``)."""
        if self.child is not None and self.child.connection is not None:
            self.child.connection.close()
            self.child.connection = None
        if self.workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)  # the captured output and whatever the child left
            self.workdir = ""

    def _finish(self) -> None:
        for number in range(len(self.job.tasks)):
            self.record.outcomes.setdefault(number, TaskOutcome(RunStatus.NOT_RUN, message="not run"))
        self.record.seconds = time.monotonic() - self.started
        self.finished = True
        self._release()

    def _release(self) -> None:
        if self.child is not None:
            self.child.close()
            self.child = None
