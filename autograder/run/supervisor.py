"""The parent's view of one submission being graded: its children started, stopped and restarted, and its tasks
handed out one at a time, to a finished ``RunRecord``.

The trusted parent never imports TensorFlow: it hands its child one task at a time with that task's case
(``handing``), reads what it sends (``child_messages``), watches its time and memory (``watch``), and starts a
new child after a crash or a timeout so that one bad case costs only that case (and the later cases of the
same exercise, which would most likely fail the same way: ``task_outcomes``). It decides which task comes
next: a case that cannot matter (``wanted``: the pipeline's judgement) is skipped, never run.
"""
from __future__ import annotations

import shutil
import tempfile
import time
from dataclasses import replace
from typing import Callable

from autograder.config import Limits
from autograder.model.outcomes import RunRecord, RunStatus
from autograder.run.budgets import LEFT_RUNNING, MAX_LOAD_RESTARTS, ParentBudget
from autograder.run.child_messages import ChildMessages, Expected
from autograder.run.container import oom_kills
from autograder.run.forkserver import Child, ForkServer
from autograder.run.handing import CaseBook, run_order
from autograder.run.namespaces import can_become
from autograder.run.processes import sandbox_uid
from autograder.run.task_outcomes import fail_all_left, fail_with_its_group, not_run_left, skipped, stop_note
from autograder.run.tasks import ChildJob, Task
from autograder.run.watch import Watched
from autograder.run.wire.messages import dumps


class SubmissionRun(ChildMessages, Watched):
    """One submission (or reference) through its children, to a finished ``RunRecord``."""

    def __init__(self, key, job: ChildJob, tasks: list[Task], book: CaseBook, limits: Limits,
                 time_limits: list[float], wanted: Callable[[int, RunRecord], bool] | None = None):
        self.key = key
        self.job = job
        self.tasks = tasks
        self.book = book
        self.limits = limits
        self.time_limits = time_limits  # per task
        self.wanted = wanted  # whether a task can still matter, given the record so far (None: every task)
        # The reference's children run in the tasks' order; a student's, public cases first (``handing``).
        self.order = list(range(len(tasks))) if job.trusted else run_order(tasks, book)
        self.record = RunRecord()
        self.budget = ParentBudget()  # what all its children cost the parent
        self.started: float | None = None  # when its first child started: waiting in the queue is not its time
        self.child: Child | None = None
        self.expected = Expected(cells=[], load=False)  # what the parent expects next from the current child
        self.current_task: int | None = None
        self.current_cell: int | None = None
        self.deadline = 0.0
        self.skip_cells: set[int] = set()
        self.load_restarts = 0
        self.finished = False
        self.slot = 0
        self.oom_kills_before: tuple[int, ...] | None = None  # the memory controller's OOM kills at the start
        self.uid: int | None = None  # the child's own uid, when the grader is root
        self.workdir = ""
        self.measures: list[str] = []  # the containment the child reported
        self._baseline: int | None = None  # the child's threads and processes before any student code
        self._family_checked = 0.0
        self._family_bytes = 0
        self._closed = False  # the child closed its end of the connection
        self._stopping = False  # the child is being stopped: what it still sends is read, never held against it
        self._ended = False  # the child is stopping or has exited: no task is handed to it any more
        self._handed = False  # a case was handed to a child of this run
        self._hidden_handed = False  # a hidden case was (from then on, notes carry nothing a child chose)

    # ---------------------------------------------------------------- lifecycle
    def start(self, server: ForkServer, slot: int = 0) -> None:
        self.slot = slot
        self.uid = sandbox_uid(slot) if can_become() else None
        self.workdir = tempfile.mkdtemp(prefix="autograder-")
        needs_load = any(task.mistake is None and number not in self.record.outcomes
                         for number, task in enumerate(self.tasks))
        job = replace(self.job, load=needs_load, skip_cells=frozenset(self.skip_cells),
                      containment=replace(self.job.containment, uid=self.uid), workdir=self.workdir)
        self.oom_kills_before = oom_kills()
        self.child = server.fork(job)  # the first one waits for the fork server's import: not the submission's time
        if self.started is None:
            self.started = time.monotonic()
        self.expected = Expected(cells=[index for index, _, _ in self.job.cells if index not in self.skip_cells],
                                 load=needs_load)
        self.current_task = None
        self.current_cell = None
        self._closed = False
        self._stopping = False
        self._ended = False
        self._baseline = None
        self.measures = []
        self._family_checked, self._family_bytes = 0.0, 0  # the last child's family is not this one's
        self.deadline = time.monotonic() + self.limits.load_seconds

    def waitables(self) -> list:
        """What to wait on for reading: the child's socket (until it closed its end: at EOF it would stay
        readable and the wait would spin) and its exit."""
        if self.child is None:
            return []
        channel = None if self._closed else self.child.channel
        return [self.child.sentinel] if channel is None else [channel, self.child.sentinel]

    def writing(self) -> list:
        """What to wait on for writing: the child's socket, while a task's case waits to be taken."""
        channel = self.child.channel if self.child is not None else None
        return [channel] if channel is not None and channel.pending and not self._closed else []

    def flush(self) -> None:
        if self.child is not None and self.child.channel is not None:
            self.child.channel.flush()

    def on_exit(self) -> None:
        """The child ended: account for it, and decide whether to restart. What it sent before it ended is read
        first (nothing is handed to it any more): a result that came stands, and then its exit is no task's."""
        self._ended = True
        running, loaded = self.current_task, self.record.loaded
        self.pump()
        if self.child is None:
            return  # what it sent broke the protocol: that was accounted for, and the child released
        self.child.join()
        code = self.child.exitcode
        self.kill_leftovers()
        self._close()
        if self.expected.done:
            self._finish()
        elif self._moved_on(running, loaded):
            self._next_or_finish()
        else:
            self._account_failure(*self.exit_reason(code))

    # ---------------------------------------------------------------- handing tasks over
    def _next_number(self) -> int | None:
        """The next task to run, in ``order``; the ones that cannot matter are marked skipped on the way."""
        for number in self.order:
            if number in self.record.outcomes:
                continue
            if self.wanted is not None and not self.wanted(number, self.record):
                self.record.outcomes[number] = skipped()
                continue
            return number
        return None

    def _hand_next(self) -> None:
        """Hand the child its next task with that task's case only, or tell it that none is left."""
        if self._ended:
            return  # a child being stopped or gone gets nothing: what it was running is its caller's to settle
        number = self._next_number()
        now = time.monotonic()
        if number is None:
            self.expected.finishing = True
            self.child.channel.send(dumps({"event": "finish"}))
            self.deadline = now + self.limits.load_seconds  # to say done and exit
            return
        task = self.tasks[number]
        self._handed = True
        self._hidden_handed = self._hidden_handed or not self.book.case(task).public
        self.current_task = number
        self.deadline = now + self.time_limits[number]
        self.child.channel.send(self.book.task_message(number, task))

    def _fresh_child_if_left_running(self, task: int, following: int | None) -> bool:
        """What an exercise's code left running (threads that hold the process limit, processes) must not run
        into the next exercise's cases: the next exercise then starts in a fresh child (no case is lost)."""
        if following is None or self.tasks[following].exercise == self.tasks[task].exercise:
            return False  # looked at between exercises only: /proc is not free
        if self._baseline is not None and self._family_tasks() > self._baseline + LEFT_RUNNING:
            self._kill()
            self._close()
            self._release()  # the scheduler starts the next child
            return True
        return False

    # ---------------------------------------------------------------- failures
    def _stop_child(self, reason: str, status: RunStatus, whole_submission: bool = False,
                    read_rest: bool = True) -> None:
        """Kill the child for ``reason``, the running task's (or cell's). What it sent before is read first (not after
        a protocol violation): a result that arrived in time stands, and then the reason is no task's."""
        self._stopping = self._ended = True
        self._kill()
        running, loaded = self.current_task, self.record.loaded
        if read_rest:
            self.pump()  # nothing is handed while stopping (``_hand_next``): the reason stays the running task's
        self._close()
        if whole_submission:
            fail_all_left(self.record, self.tasks, reason, RunStatus.TIMEOUT)
            self._finish()
        elif self._moved_on(running, loaded):
            self._next_or_finish()  # what was running finished in time: a new child takes the next task
        else:
            self._account_failure(reason, status)

    def _moved_on(self, running: int | None, loaded: bool) -> bool:  # its task, or its cells, finished after all
        return (running is not None and self.current_task is None) or (not loaded and self.record.loaded)

    def _account_failure(self, reason: str, status: RunStatus) -> None:
        if self.current_task is not None:
            fail_with_its_group(self.record, self.tasks, self.current_task, reason, status)
        elif self.expected.finishing:
            pass  # every task has its outcome: nothing is lost
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
        after_hidden_case = self._hidden_handed and self.record.loaded
        fail_all_left(self.record, self.tasks, stop_note(reason, after_hidden_case), RunStatus.CRASHED)
        self._finish()

    def _next_or_finish(self) -> None:
        if self._next_number() is None:
            self._finish()
        else:
            self._release()  # the scheduler starts a new child

    def _close(self) -> None:
        """The socket only: the sentinel stays open until the child's exit is read (``_release``)."""
        if self.child is not None and self.child.channel is not None:
            self.child.channel.close()
            self.child.channel = None
        if self.workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)  # the captured output and whatever the child left
            self.workdir = ""

    def _finish(self) -> None:
        not_run_left(self.record, self.tasks)
        self.record.seconds = time.monotonic() - self.started
        self.finished = True
        self._release()

    def _release(self) -> None:
        if self.child is not None:
            self.child.close()
            self.child = None
