"""What one submission may cost the parent across all its children: bytes received, notebook outputs kept,
processes left running, restarts while loading.

A child's own limits (time, memory, CPU) end that child (``watch``, ``isolation``); these are counted over
every child a submission starts, so that no submission can fill the parent's memory or keep it restarting.
"""
from __future__ import annotations

from dataclasses import dataclass

from autograder.model.outcomes import CellOutput
from autograder.run.wire.checked import WireError

MAX_RECEIVED_BYTES = 256 * 2**20  # all a submission's children may send: the parent's memory per submission
MAX_OUTPUT_CHARS = 32 * 2**20  # what a notebook's cells may show in all (nbgrader's notebook), images included
LEFT_RUNNING = 32  # threads and processes an exercise's code may leave behind before the next runs afresh
MAX_LOAD_RESTARTS = 5  # fresh children after a cell stopped one while the notebook loaded


@dataclass
class ParentBudget:
    """What a submission's children have cost the parent so far (it is never reset by a restart)."""

    received: int = 0  # bytes received from every child of this submission
    output_chars: int = 0  # characters and image data of the notebook's outputs kept

    def receive(self, data: bytes) -> None:
        """Count one message; past MAX_RECEIVED_BYTES it is a violation (``WireError``), the running task's."""
        self.received += len(data)
        if self.received > MAX_RECEIVED_BYTES:
            raise WireError(f"more than {MAX_RECEIVED_BYTES // 2**20} MiB of answers")

    def outputs_kept(self, outputs: list[CellOutput]) -> list[CellOutput]:
        """A cell's outputs, or a note in their place once the notebook's outputs pass what any notebook needs."""
        self.output_chars += sum(len(o.text) + sum(len(v) for _, v in o.data) for o in outputs)
        if self.output_chars > MAX_OUTPUT_CHARS:
            return [CellOutput("stream", "stderr", f"[the grader keeps {MAX_OUTPUT_CHARS // 2**20} Mi "
                                                   "characters of a notebook's outputs: this cell's are left out]")]
        return outputs
