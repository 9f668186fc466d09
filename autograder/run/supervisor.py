"""The parent's view of one submission being graded: its child, its messages, its limits, across restarts.

The trusted parent never imports TensorFlow: it reads plain data from the child (``wire``), hands it one
task at a time with that task's case (``handing``), watches its time and memory, and starts a new child
after a crash or a timeout so that one bad case costs only that case (and the later cases of the same
exercise, which would most likely fail the same way). It decides which task comes next: a case that cannot
matter (``wanted``: the pipeline's judgement) is skipped, never run.
"""
from __future__ import annotations

import shutil
import tempfile
import time
from dataclasses import replace
from typing import Callable

from autograder.config import GiB, Limits
from autograder.model.outcomes import CellOutput, RunRecord, RunStatus, TaskOutcome
from autograder.run import wire
from autograder.run.channel import FrameTooLarge
from autograder.run.container import oom_kills
from autograder.run.forkserver import Child, ForkServer
from autograder.run.handing import CaseBook, run_order
from autograder.run.namespaces import can_become
from autograder.run.processes import sandbox_uid
from autograder.run.tasks import ChildJob, Task
from autograder.run.watch import Watched

MAX_LOAD_RESTARTS = 5
MAX_RECEIVED_BYTES = 256 * 2**20  # all a submission's children may send: the parent's memory per submission
LEFT_RUNNING = 32  # threads and processes an exercise's code may leave behind before the next runs afresh
MAX_OUTPUT_CHARS = 32 * 2**20  # what a notebook's cells may show in all (nbgrader's notebook), images included
MEMORY_ERRORS = {"MemoryError", "ResourceExhaustedError"}
STOPPED = ("the submission's process stopped between two cases (it crashed, exited, ran out of a limit or "
           "broke the grader's protocol)")  # what a note says once a hidden case was handed: nothing chosen


class SubmissionRun(Watched):
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
        self.started: float | None = None  # when its first child started: waiting in the queue is not its time
        self.child: Child | None = None
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
        self._family_checked = 0.0
        self._family_bytes = 0
        self.measures: list[str] = []  # the containment the child reported
        self._done_seen = False
        self._closed = False  # the child closed its end of the connection
        self._stopping = False  # the child is being stopped: what it still sends is read, never held against it
        self._ended = False  # the child is stopping or has exited: no task is handed to it any more
        self._received = 0  # bytes received from every child of this submission
        # What the parent expects next from the current child (deadlines belong to the parent: a message can
        # only move the child forward, once, never re-arm a limit).
        self._cells_pending: list[int] = []
        self._needs_load = False
        self._loaded_now = False
        self._contained = False
        self._finishing = False  # the child was told that no task is left
        self._handed = False  # a case was handed to a child of this run
        self._hidden_handed = False  # a hidden case was (from then on, notes carry nothing a child chose)
        self._outputs_seen: set[int] = set()  # cells whose outputs the current child sent
        self._output_chars = 0

    # ---------------------------------------------------------------- lifecycle
    def start(self, server: ForkServer, slot: int = 0) -> None:
        self.slot = slot
        self.uid = sandbox_uid(slot) if can_become() else None
        self.workdir = tempfile.mkdtemp(prefix="autograder-")
        self._needs_load = any(task.mistake is None and number not in self.record.outcomes
                               for number, task in enumerate(self.tasks))
        job = replace(self.job, load=self._needs_load, skip_cells=frozenset(self.skip_cells),
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
        self._ended = False
        self._cells_pending = [index for index, _, _ in self.job.cells if index not in self.skip_cells]
        self._finishing = False
        self._loaded_now = False
        self._contained = False
        self._baseline: int | None = None  # the child's threads and processes before any student code
        self._outputs_seen = set()
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

    def submission_deadline(self) -> float:
        return self.started + self.limits.submission_seconds

    # ---------------------------------------------------------------- events
    def pump(self) -> None:
        """Read every message that is ready; stop the child on a protocol violation.

        Any exception while reading or decoding what a child sent is that child's violation: it ends this
        submission's task (or its load) with a message, never the grader's run.
        """
        if self.child is None or self.child.channel is None:
            return
        try:
            channel = self.child.channel
            for data in channel.receive(wire.MAX_MESSAGE_BYTES):
                self._received += len(data)
                if self._received > MAX_RECEIVED_BYTES:
                    raise wire.WireError(f"more than {MAX_RECEIVED_BYTES // 2**20} MiB of answers")
                self._handle(wire.loads(data))
                if self.child is None or self.child.channel is not channel:
                    return  # the child was replaced (what an exercise left running): the rest is the old one's
            if channel.at_end:
                self._closed = True
        except Exception as error:  # noqa: BLE001  (see the docstring)
            if self._stopping:
                return  # it is being stopped already: the rest of what it sent is not read
            reason = str(error) if isinstance(error, (wire.WireError, FrameTooLarge)) else type(error).__name__
            # Nothing it sent after breaking the protocol is read: the violation is the running task's.
            self._stop_child(f"the submission's process broke the grader's protocol ({reason})", RunStatus.CRASHED,
                             read_rest=False)

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
            if not self._needs_load:
                self._hand_next()
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
            defined = wire.decode_defined(message.get("defined"))
            if not self._handed:  # a child started after a case was handed: the first load's words stand
                self.record.defined, self.record.load_errors = defined, load_errors
            self.record.loaded = self._loaded_now = True
            self.current_cell = None
            self._hand_next()
        elif event == "task-result":
            task = wire.as_int(message.get("task"))
            if task != self.current_task or task in self.record.outcomes:
                raise wire.WireError("a result for a task that was not running")
            outcome = wire.decode_outcome(message.get("outcome"))
            if outcome.status not in (RunStatus.OK, RunStatus.ERROR):
                raise wire.WireError("a child reports only results and errors")
            outcome = replace(outcome, message="")  # a result's words are its error's, never a child's note
            if outcome.status is RunStatus.ERROR and outcome.error.type in MEMORY_ERRORS:
                # the address-space limit made an allocation fail
                outcome = replace(outcome, status=RunStatus.MEMORY, message=(
                    f"memory limit of {self.limits.memory_bytes / GiB:g} GiB exceeded ({outcome.error.type})"))
            self.record.outcomes[task] = outcome
            self.current_task = None
            if self._ended:
                return  # it finished before it was stopped or exited: its result stands, no fresh child is due
            following = self._next_number()
            if not self._fresh_child_if_left_running(task, following):
                self._hand_next()
        elif event == "done":
            if not self._finishing or self._done_seen:
                raise wire.WireError("done before the grader said so")
            self._done_seen = True
        else:
            raise wire.WireError("an event the grader does not know")

    # ---------------------------------------------------------------- handing tasks over
    def _next_number(self) -> int | None:
        """The next task to run, in ``order``; the ones that cannot matter are marked skipped on the way."""
        for number in self.order:
            if number in self.record.outcomes:
                continue
            if self.wanted is not None and not self.wanted(number, self.record):
                self.record.outcomes[number] = TaskOutcome(RunStatus.SKIPPED, message="skipped: it could not "
                                                           "change this exercise's feedback")
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
            self._finishing = True
            self.child.channel.send(wire.dumps({"event": "finish"}))
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

    def check_limits(self, now: float) -> None:
        if self.child is None or not self.child.is_alive():
            return
        if now > self.submission_deadline():
            self._stop_child(f"the submission's time limit of {self.limits.submission_seconds:g} s was reached",
                             RunStatus.TIMEOUT, whole_submission=True)
        elif now > self.deadline:
            if self.current_task is not None:
                reason = (f"timeout after {self.time_limits[self.current_task]:g} s in "
                          f"{self.tasks[self.current_task].exercise}")
            elif self._finishing:
                reason = f"the process did not exit within {self.limits.load_seconds:g} s after its last case"
            else:  # a cell of the notebook hung while loading
                reason = f"cell [{self.current_cell}] did not finish within {self.limits.load_seconds:g} s"
            self._stop_child(reason, RunStatus.TIMEOUT)
        elif self._resident() > self.limits.memory_bytes:
            self._stop_child(f"memory limit of {self.limits.memory_bytes / GiB:g} GiB exceeded", RunStatus.MEMORY)

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
        if self._done_seen:
            self._finish()
        elif self._moved_on(running, loaded):
            self._next_or_finish()
        else:
            self._account_failure(*self.exit_reason(code))

    # ---------------------------------------------------------------- failures
    def _stop_child(self, reason: str, status: RunStatus, whole_submission: bool = False,
                    read_rest: bool = True) -> None:
        """Kill the child for ``reason``, the running task's (or cell's). What it sent before is read first (not after
        a protocol violation): a result that arrived in time stands, and then the reason is no task's."""
        self._stopping = self._ended = True
        self._kill()
        running, loaded = self.current_task, self.record.loaded
        if read_rest:
            self.pump()  # nothing is handed while stopping (``_handle``): the reason stays the running task's
        self._close()
        if whole_submission:
            for number in range(len(self.tasks)):
                self.record.outcomes.setdefault(number, TaskOutcome(RunStatus.TIMEOUT, message=reason))
            self.record.problems.append(reason)
            self._finish()
        elif self._moved_on(running, loaded):
            self._next_or_finish()  # what was running finished in time: a new child takes the next task
        else:
            self._account_failure(reason, status)

    def _moved_on(self, running: int | None, loaded: bool) -> bool:  # its task, or its cells, finished after all
        return (running is not None and self.current_task is None) or (not loaded and self.record.loaded)

    def _account_failure(self, reason: str, status: RunStatus) -> None:
        if self.current_task is not None:
            failed = self.current_task
            self.record.outcomes[failed] = TaskOutcome(status, message=reason)
            # The other cases of the same implementation and exercise would most likely fail the same way:
            # those after it in the exercise's own order (whatever order they run in).
            group = (self.tasks[failed].implementation, self.tasks[failed].exercise)
            for later in range(failed + 1, len(self.tasks)):
                if (self.tasks[later].implementation, self.tasks[later].exercise) == group:
                    self.record.outcomes.setdefault(later, TaskOutcome(
                        RunStatus.NOT_RUN, message=f"not run: an earlier case stopped ({reason})"))
        elif self._finishing:
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
        # Between two cases, after a hidden one: why the process stopped may be its own choice (an exit code,
        # a signal, a message): the note says what happened, in the grader's words only.
        reason = STOPPED if self._hidden_handed and self.record.loaded else reason
        self.record.problems.append(reason)
        for number in range(len(self.tasks)):
            self.record.outcomes.setdefault(number, TaskOutcome(RunStatus.CRASHED, message=reason))
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
        for number in range(len(self.tasks)):
            self.record.outcomes.setdefault(number, TaskOutcome(RunStatus.NOT_RUN, message="not run"))
        self.record.seconds = time.monotonic() - self.started
        self.finished = True
        self._release()

    def _release(self) -> None:
        if self.child is not None:
            self.child.close()
            self.child = None
