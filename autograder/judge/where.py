"""A static finding as a place in the student's code, with the lines around it taken while grading.

The HTML pages show these lines; they come from the submission as it was graded, so a file changed (or
gone) since then cannot make a page show other code than the grade is about.
"""
from __future__ import annotations

from autograder.load.cells import SubmissionSource
from autograder.model.results import Where

CONTEXT_LINES = 3
MAX_EXCERPT_LINES = 30


def where_of(source: SubmissionSource, cell: int | None, line: int, code: str, detail: str,
             related: tuple[int, ...] = ()) -> Where:
    """The place of a finding (cell ``cell``, line ``line``), and its excerpt (covering ``related`` too)."""
    return Where(place=source.where(cell, line), cell=cell, line=line, code=code, detail=detail,
                 excerpt=_excerpt(source, cell, line, related))


def _excerpt(source: SubmissionSource, cell_index: int | None, line: int,
             related: tuple[int, ...]) -> tuple[tuple[int, str], ...]:
    cell = source.cell(cell_index) if cell_index is not None else (source.cells[0] if source.cells else None)
    if cell is None:
        return ()
    lines = cell.source.splitlines()
    if not 0 < line <= len(lines):
        return ()
    wanted = [line, *related]  # "the block ends (lines 6-10) ... on line 12": those lines too
    wanted = [n for n in wanted if 0 < n <= len(lines) and abs(n - line) <= MAX_EXCERPT_LINES]
    first = max(1, min(wanted) - CONTEXT_LINES)
    last = min(len(lines), max(wanted) + CONTEXT_LINES)
    return tuple((number, lines[number - 1]) for number in range(first, last + 1))
