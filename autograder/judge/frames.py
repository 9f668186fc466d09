"""A traceback frame of the student's code as a place in the submission: its cell and line.

The child compiles each cell under a file name of its own, "<cell [7]>" in a notebook (the cell's number as the
student sees it, ``load.program``) and "<submission>" for a .py file. A frame's file name is the code's to choose
(it may compile code of its own under any name), so a frame counts only when its cell and line exist in the
submission.
"""
from __future__ import annotations

import re

from autograder.load.cells import SubmissionSource

CELL_FILE = re.compile(r"<cell \[(\d+)\]>")
PYTHON_FILE = "<submission>"


def frame_place(frame: tuple, source: SubmissionSource | None) -> tuple[int | None, int] | None:
    """(cell, line) of a frame (file, line, function, code) in ``source``: the cell is None for a .py file; None
    when the frame is not in the submission's code as graded."""
    if source is None or not frame:
        return None
    file, line = frame[0], frame[1]
    match = CELL_FILE.fullmatch(file) if isinstance(file, str) else None
    if source.kind == "notebook" and match:
        index: int | None = int(match.group(1))
        cell = source.cell(index)
    elif source.kind == "python" and file == PYTHON_FILE:
        index, cell = None, (source.cells[0] if source.cells else None)
    else:
        return None
    if cell is None or cell.skipped is not None or not isinstance(line, int) or \
            not 1 <= line <= len(cell.code.splitlines()):
        return None
    return index, line


def deepest_place(frames: tuple, source: SubmissionSource | None) -> tuple[int | None, int] | None:
    """The place of the deepest frame of the student's code (where the error was raised), or None."""
    return frame_place(frames[-1], source) if frames else None
