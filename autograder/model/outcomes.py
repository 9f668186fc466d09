"""What a child reported about one submission, as plain data the parent rebuilt (never an object of the child).

The one codec that turns these into bytes and back is ``autograder.run.wire``: the child, the parent, the
reference cache and the students' stored public answers all use it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

import numpy as np


class RunStatus(str, Enum):
    """How one task ended."""

    OK = "ok"  # it returned outputs
    ERROR = "error"  # it raised (the student's exception, or the probe's ContractError)
    TIMEOUT = "timeout"  # the parent stopped it at its time limit
    CRASHED = "crashed"  # the process died (a signal, an exit, a broken protocol)
    MEMORY = "memory"  # over the memory limit (the parent's watch, an allocation that failed, the OOM killer)
    NOT_RUN = "not-run"  # an earlier case of the same exercise stopped the child
    SKIPPED = "skipped"  # could not matter: a diagnostic case with no graded failure, an advisory one after one

    def __str__(self) -> str:
        return self.value

    __format__ = str.__format__


# Outcomes that depend only on the cases, never on the machine's load: the ones a cache may keep (a case is
# skipped for what the graded cases' outcomes were).
DETERMINISTIC = frozenset({RunStatus.OK, RunStatus.ERROR, RunStatus.SKIPPED})


@dataclass(frozen=True)
class Value:
    """A value a student function returned, as plain data.

    ``array`` is None when the function returned None. ``type_name`` and ``dtype`` describe what it was
    (``EagerTensor``, ``float32``), so the parent can say "returned a float32 numpy array" without touching it.
    """

    array: np.ndarray | None
    type_name: str
    dtype: str | None = None

    @property
    def is_none(self) -> bool:
        return self.array is None


@dataclass(frozen=True)
class ErrorInfo:
    type: str
    message: str
    module: str = ""
    contract: bool = False  # raised by the grader's probe: the return value broke the contract
    frames: tuple[tuple[str, int, str, str], ...] = ()  # (file, line, function, code) of the student's frames

    @property
    def where(self) -> str:
        """'cell [7], line 4' of the deepest student frame, or ''."""
        if not self.frames:
            return ""
        file, line, _, _ = self.frames[-1]
        label = file.strip("<>")
        return f"{label}, line {line}" if label.startswith("cell") else f"line {line}"


@dataclass(frozen=True)
class TaskOutcome:
    """What happened to one task: outputs, or an error, or why it did not finish."""

    status: RunStatus
    outputs: dict[str, Value] | None = None
    error: ErrorInfo | None = None
    message: str = ""  # for timeout / crashed / memory / not-run
    seconds: float = 0.0

    def __post_init__(self):
        object.__setattr__(self, "status", RunStatus(self.status))  # "ok" and RunStatus.OK alike


@dataclass(frozen=True)
class CellOutput:
    """One output of a notebook cell, as a kernel would have shown it (nbformat's names): a stream's text, or
    a display's or an execute result's data by mime type (text/plain as text, image/png as base64)."""

    kind: str  # "stream", "display_data" or "execute_result"
    name: str = ""  # a stream's: "stdout" or "stderr"
    text: str = ""  # a stream's text
    data: tuple[tuple[str, str], ...] = ()  # (mime type, content) of a display or an execute result


@dataclass
class RunRecord:
    """Everything the child reported about one submission, as plain data."""

    load_errors: list[tuple[int, ErrorInfo]] = field(default_factory=list)
    defined: dict[str, list[str] | str] = field(default_factory=dict)  # exercise -> parameters, or why not a function
    outcomes: dict[int, TaskOutcome] = field(default_factory=dict)  # task number -> outcome
    problems: list[str] = field(default_factory=list)  # what went wrong outside a task
    loaded: bool = False
    seconds: float = 0.0
    cell_outputs: dict[int, list[CellOutput]] = field(default_factory=dict)  # cell -> its outputs, when asked for

    def clean(self, tasks: int) -> bool:
        """Every one of ``tasks`` tasks ended in an outcome that depends only on the cases (cacheable)."""
        return self.loaded and not self.problems and all(
            self.outcomes.get(n) is not None and self.outcomes[n].status in DETERMINISTIC for n in range(tasks))
