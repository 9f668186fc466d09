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
from autograder.model.outcomes import CellOutput, RunRecord, RunStatus, TaskOutcome
from autograder.run import wire
from autograder.run.container import describe_limit, memory_limit, oom_kills
from autograder.run.forkserver import Child, ForkServer
from autograder.run.namespaces import can_become
from autograder.run.isolation import CONTAINMENT_FAILED
from autograder.run.processes import (descendants, kill_everything_of, memory_bytes, processes_of, sandbox_uid,
                                      scratch_bytes, signal_name, tasks_of)
from autograder.run.tasks import ChildJob

MAX_LOAD_RESTARTS = 5
MAX_RECEIVED_BYTES = 256 * 2**20  # all a submission's children may send: the parent's memory per submission
LEFT_RUNNING = 32  # threads and processes an exercise's code may leave behind before the next runs afresh
MAX_OUTPUT_CHARS = 32 * 2**20  # what a notebook's cells may show in all (nbgrader's notebook), images included
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
        self._stopping = False  # the child is being stopped: what it still sends is read, never held against it
        self._received = 0  # bytes received from every child of this submission
        # What the parent expects next from the current child (deadlines belong to the parent: a message can
        # only move the child forward, once, never re-arm a limit).
        self._cells_pending: list[int] = []
        self._next_task = 0
        self._needs_load = False
        self._loaded_now = False
        self._contained = False
        self._outputs_seen: set[int] = set()  # cells whose outputs the current child sent
        self._output_chars = 0

    # ---------------------------------------------------------------- lifecycle
    def start(self, server: ForkServer, slot: int = 0) -> None:
        self.slot = slot
        self.uid = sandbox_uid(slot) if can_become() else None
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
        self._stopping = False
        self._cells_pending = [index for index, _, _ in self.job.cells if index not in self.skip_cells]
        self._next_task = self.next_start
        self._needs_load = any(task.mistake is None for task in self.job.tasks[self.next_start:])
        self._loaded_now = False
        self._contained = False
        self._baseline: int | None = None  # the child's threads and processes before any student code
        self._outputs_seen = set()
        self.measures = []
        self._family_checked, self._family_bytes = 0.0, 0  # the last child's family is not this one's
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
        """Read every message that is ready; stop the child on a protocol violation.

        Any exception while reading or decoding what a child sent is that child's violation: it ends this
        submission's task (or its load) with a message, never the grader's run.
        """
        if self.child is None or self.child.connection is None:
            return
        try:
            while self.child is not None and self.child.connection is not None and self.child.connection.poll():
                data = self.child.connection.recv_bytes(wire.MAX_MESSAGE_BYTES)
                self._received += len(data)
                if self._received > MAX_RECEIVED_BYTES:
                    raise wire.WireError(f"more than {MAX_RECEIVED_BYTES // 2**20} MiB of answers")
                self._handle(wire.loads(data))
        except (EOFError, ConnectionError):
            self._closed = True
        except Exception as error:  # noqa: BLE001  (see the docstring)
            if self._stopping:
                return  # it is being stopped already: the rest of what it sent is not read
            reason = str(error) if isinstance(error, (wire.WireError, OSError)) else type(error).__name__
            self._stop_child(f"the submission's process broke the grader's protocol ({reason})", RunStatus.CRASHED)

    def _handle(self, message: dict) -> None:
        """One message, checked against what the parent expects next; a limit is armed only by the parent."""
        event = message["event"]
        now = time.monotonic()
        if event == "contained":
            measures = wire.as_list(message.get("measures"))
            if self._contained or len(measures) > wire.MAX_ITEMS:
                raise wire.WireError("a second or oversized containment report")
            self._contained = True
            self.measures = [wire.text(m, "measure") for m in measures]
            self._baseline = self._family_tasks()  # before any student code runs
        elif event == "cell-start":
            cell = wire.as_int(message.get("cell"))
            if self._loaded_now or not self._cells_pending or self._cells_pending[0] != cell:
                raise wire.WireError("a cell-start for a cell that is not the next one")
            self._cells_pending.pop(0)
            self.current_cell = cell
            self.deadline = now + self.limits.load_seconds
        elif event == "cell-outputs":
            cell = wire.as_int(message.get("cell"))
            if not self.job.capture_outputs or self._loaded_now or cell != self.current_cell \
                    or cell in self._outputs_seen:
                raise wire.WireError("outputs for a cell that is not the one running")
            self._outputs_seen.add(cell)
            outputs = wire.decode_cell_outputs(message.get("outputs"))
            if cell in self.record.cell_outputs:
                return  # a restarted child runs the cells again: the first run's outputs are kept
            self._output_chars += sum(len(o.text) + sum(len(v) for _, v in o.data) for o in outputs)
            if self._output_chars > MAX_OUTPUT_CHARS:  # the notebook's outputs, beyond what any notebook needs
                outputs = [CellOutput("stream", "stderr", f"[the grader keeps {MAX_OUTPUT_CHARS // 2**20} Mi "
                                                          "characters of a notebook's outputs: this cell's are left out]")]
            self.record.cell_outputs[cell] = outputs
        elif event == "loaded":
            errors = wire.as_list(message.get("errors"))
            cells = {index for index, _, _ in self.job.cells}
            if self._loaded_now or not self._needs_load or len(errors) > len(cells):
                raise wire.WireError("an unexpected loaded")
            load_errors = [(wire.as_int(e.get("cell")), wire.decode_error(e.get("error")))
                           for e in map(wire.as_dict, errors)]
            if any(cell not in cells for cell, _ in load_errors):
                raise wire.WireError("an error in a cell the grader did not send")
            self.record.defined = wire.decode_defined(message.get("defined"))
            self.record.load_errors = load_errors
            self.record.loaded = self._loaded_now = True
            self.current_cell = None
        elif event == "task-start":
            task = wire.as_int(message.get("task"))
            if task != self._next_task or self.current_task is not None or task >= len(self.job.tasks) \
                    or (self._needs_load and not self._loaded_now):
                raise wire.WireError("a task-start that is not the next task's")
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
            self._next_task = task + 1
            self._fresh_child_if_left_running(task)
        elif event == "done":
            if self.current_task is not None or self._next_task != len(self.job.tasks) or self._done_seen:
                raise wire.WireError("done before the last task")
            self._done_seen = True
        else:
            raise wire.WireError(f"unknown event {event!r}")

    def _fresh_child_if_left_running(self, task: int) -> None:
        """What an exercise's code left running (threads that hold the process limit, processes) must not run
        into the next exercise's cases: the next exercise then starts in a fresh child (no case is lost)."""
        following = task + 1
        if following >= len(self.job.tasks) or self.job.tasks[following].exercise == self.job.tasks[task].exercise:
            return  # looked at between exercises only: /proc is not free
        if self._baseline is not None and self._family_tasks() > self._baseline + LEFT_RUNNING:
            self._kill()
            self._close()
            self.next_start = following
            self._release()  # the scheduler starts the next child

    def _family_tasks(self) -> int:
        return tasks_of([self.child.pid, *descendants(self.child.pid)])

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
        """The child's memory, plus every process it started and what its scratch tmpfs holds (which no
        process's memory counts); the family is looked at at most 4 times a second (``processes.memory_bytes``:
        the pages the children share with the fork server count once, not once per fork)."""
        own = memory_bytes(self.child.pid)
        now = time.monotonic()
        if now - self._family_checked > 0.25:
            self._family_checked = now
            family = set(descendants(self.child.pid, max_age=0.2))
            if self.uid is not None:
                family |= set(processes_of(self.uid, max_age=0.2))  # even one that left the child's tree
            family.discard(self.child.pid)
            # The child reports its containment before any student code runs: whether it has a scratch tmpfs.
            scratch = scratch_bytes(self.child.pid, self.job.containment.scratch) if any(
                m.startswith("one scratch tmpfs") for m in self.measures) else 0
            self._family_bytes = sum(memory_bytes(pid) for pid in family) + scratch
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
        elif code == CONTAINMENT_FAILED and not self.record.loaded:
            reason = ("the grader could not contain this submission's process on this machine (its files would "
                      "not be private), so it did not run it: tell your instructor")
        elif code is not None and code < 0:
            reason = f"the process was killed by {signal_name(-code)}"
        else:
            reason = f"the process exited with code {code} before grading finished"
        self._account_failure(reason, status)

    # ---------------------------------------------------------------- failures
    def _stop_child(self, reason: str | None, status: RunStatus, whole_submission: bool = False) -> None:
        self._stopping = True
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
            reason = f"cell [{self.current_cell}] did not finish within {self.limits.load_seconds:g} s"
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
            self.record.problems.append(f"cell [{self.current_cell}] was skipped: {reason}")
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
        family = descendants(self.child.pid)  # before it dies: then they are orphans, out of its tree
        self.child.kill()
        for pid in family:
            try:
                os.kill(pid, SIGKILL)
            except OSError:
                pass
        self.child.join(5)
        self.kill_leftovers()

    def kill_leftovers(self) -> None:
        """Processes the student started that escaped the child's session: none may outlive it. (In a PID
        namespace the kernel has ended them all already; this is for the machines that give none.)"""
        if self.uid is not None:
            kill_everything_of(self.uid)
        elif self.child is not None:
            for pid in descendants(self.child.pid):
                try:
                    os.kill(pid, SIGKILL)
                except OSError:
                    pass

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
