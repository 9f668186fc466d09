"""What a child may say, and when: each message it sends, checked against what the parent expects next, then
taken into the run.

Part of ``supervisor.SubmissionRun`` (its base class), apart so that each module keeps one job: the supervisor
starts, stops and restarts children and hands them their tasks; this reads them. A message can only move its
child forward, once: deadlines belong to the parent, and no message re-arms a limit. Anything else is a
``WireError``: ``pump`` charges it to the running task (or the load), never to the grader's run.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from autograder.model.outcomes import RunStatus
from autograder.run.channel import FrameTooLarge
from autograder.run.task_outcomes import kept_result
from autograder.run.wire.cell_outputs import decode_cell_outputs
from autograder.run.wire.checked import MAX_ITEMS, WireError, as_dict, as_int, as_list, text
from autograder.run.wire.error_info import decode_error
from autograder.run.wire.messages import MAX_MESSAGE_BYTES, loads
from autograder.run.wire.records import decode_defined, decode_outcome


@dataclass
class Expected:
    """What the parent expects next from its current child: a new one for each child it starts."""

    cells: list[int]  # the cells still to start, in order
    load: bool  # the child runs the cells (a task of the submission's own functions remains)
    contained: bool = False  # its containment report came
    loaded: bool = False  # its cells ran
    finishing: bool = False  # it was told that no task is left
    done: bool = False  # it said done
    outputs_seen: set[int] = field(default_factory=set)  # cells whose outputs it sent


class ChildMessages:
    """How ``SubmissionRun`` reads its child (it sets ``child``, ``job``, ``limits``, ``record``, ``budget``,
    ``expected``, ``current_task``, ``current_cell`` and ``deadline``, and hands the next task)."""

    def pump(self) -> None:
        """Read every message that is ready; stop the child on a protocol violation.

        Any exception while reading or decoding what a child sent is that child's violation: it ends this
        submission's task (or its load) with a message, never the grader's run.
        """
        if self.child is None or self.child.channel is None:
            return
        try:
            channel = self.child.channel
            for data in channel.receive(MAX_MESSAGE_BYTES):
                self.budget.receive(data)
                self._handle(loads(data))
                if self.child is None or self.child.channel is not channel:
                    return  # the child was replaced (what an exercise left running): the rest is the old one's
            if channel.at_end:
                self._closed = True
        except Exception as error:  # noqa: BLE001  (see the docstring)
            if self._stopping:
                return  # it is being stopped already: the rest of what it sent is not read
            reason = str(error) if isinstance(error, (WireError, FrameTooLarge)) else type(error).__name__
            # Nothing it sent after breaking the protocol is read: the violation is the running task's.
            self._stop_child(f"the submission's process broke the grader's protocol ({reason})", RunStatus.CRASHED,
                             read_rest=False)

    def _handle(self, message: dict) -> None:
        """One message, checked against what the parent expects next; a limit is armed only by the parent."""
        handler = _HANDLERS.get(message["event"])
        if handler is None:
            raise WireError("an event the grader does not know")
        handler(self, message)

    def _on_contained(self, message: dict) -> None:
        """The containment the child applied, before any student code runs."""
        measures = as_list(message.get("measures"))
        if self.expected.contained or len(measures) > MAX_ITEMS:
            raise WireError("a second or oversized containment report")
        self.expected.contained = True
        self.measures = [text(m, "measure") for m in measures]
        self._baseline = self._family_tasks()  # before any student code runs
        if not self.expected.load:
            self._hand_next()

    def _on_cell_start(self, message: dict) -> None:
        cell = as_int(message.get("cell"))
        if self.expected.loaded or not self.expected.cells or self.expected.cells[0] != cell:
            raise WireError("a cell-start for a cell that is not the next one")
        self.expected.cells.pop(0)
        self.current_cell = cell
        self.deadline = time.monotonic() + self.limits.load_seconds

    def _on_cell_outputs(self, message: dict) -> None:
        cell = as_int(message.get("cell"))
        if not self.job.capture_outputs or self.expected.loaded or cell != self.current_cell \
                or cell in self.expected.outputs_seen:
            raise WireError("outputs for a cell that is not the one running")
        self.expected.outputs_seen.add(cell)
        outputs = decode_cell_outputs(message.get("outputs"))
        if cell in self.record.cell_outputs:
            return  # a restarted child runs the cells again: the first run's outputs are kept
        self.record.cell_outputs[cell] = self.budget.outputs_kept(outputs)

    def _on_loaded(self, message: dict) -> None:
        """Every cell ran: what failed, and what the cells defined; then the first task is handed."""
        errors = as_list(message.get("errors"))
        cells = {index for index, _, _ in self.job.cells}
        if self.expected.loaded or not self.expected.load or len(errors) > len(cells):
            raise WireError("an unexpected loaded")
        load_errors = [(as_int(e.get("cell")), decode_error(e.get("error"))) for e in map(as_dict, errors)]
        if any(cell not in cells for cell, _ in load_errors):
            raise WireError("an error in a cell the grader did not send")
        defined = decode_defined(message.get("defined"))
        if not self._handed:  # a child started after a case was handed: the first load's words stand
            self.record.defined, self.record.load_errors = defined, load_errors
        self.record.loaded = self.expected.loaded = True
        self.current_cell = None
        self._hand_next()

    def _on_task_result(self, message: dict) -> None:
        """The running task's result or error; then the next task, in this child or (``LEFT_RUNNING``) a fresh one."""
        task = as_int(message.get("task"))
        if task != self.current_task or task in self.record.outcomes:
            raise WireError("a result for a task that was not running")
        outcome = decode_outcome(message.get("outcome"))
        if outcome.status not in (RunStatus.OK, RunStatus.ERROR):
            raise WireError("a child reports only results and errors")
        self.record.outcomes[task] = kept_result(outcome, self.limits)
        self.current_task = None
        if self._ended:
            return  # it finished before it was stopped or exited: its result stands, no fresh child is due
        following = self._next_number()
        if not self._fresh_child_if_left_running(task, following):
            self._hand_next()

    def _on_done(self, message: dict) -> None:
        if not self.expected.finishing or self.expected.done:
            raise WireError("done before the grader said so")
        self.expected.done = True


_HANDLERS = {"contained": ChildMessages._on_contained, "cell-start": ChildMessages._on_cell_start,
             "cell-outputs": ChildMessages._on_cell_outputs, "loaded": ChildMessages._on_loaded,
             "task-result": ChildMessages._on_task_result, "done": ChildMessages._on_done}
