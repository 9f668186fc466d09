"""What a child runs from a submission, and a digest of it: the same program is graded once."""
from __future__ import annotations

import hashlib
import json

from autograder.load.cells import SubmissionSource


def cells_for_child(source: SubmissionSource, only_reference_cells: bool = False) -> list[tuple[int, str, str]]:
    """(index, code, filename) of the cells a child runs; filenames make tracebacks say 'cell [7]'."""
    cells = []
    for cell in source.runnable_cells:
        if only_reference_cells and not (cell.solution or cell.grade_id == "setup"):
            continue
        filename = f"<{cell.label}>" if source.kind == "notebook" else "<submission>"
        cells.append((cell.index, cell.code, filename))
    return cells


def program_digest(source: SubmissionSource) -> str:
    """What a child's run depends on from the submission: the code it runs, cell by cell, under the names its
    tracebacks give. Outputs, execution counts, metadata and markdown are not part of it: a notebook re-saved
    by JupyterLab runs the same program as the file it came from."""
    return hashlib.sha256(json.dumps([source.kind, cells_for_child(source)]).encode()).hexdigest()
