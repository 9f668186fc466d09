"""A contained run's record as nbgrader's autograded notebook: each cell's outputs, each graded cell's grade.

nbgrader reads only the notebook it is handed after execution: its ``SaveAutoGrades`` takes a graded code
cell's score from its outputs (``nbgrader.utils.determine_grade``: an ``error`` or a ``stderr`` stream is 0,
a numeric ``execute_result`` is partial credit, anything else full marks), and formgrader shows the cells'
outputs. So the contained executor writes, with nbformat's own constructors:

- in every cell the child ran, what it showed (streams, displays, the last expression's value) and, when it
  raised, an ``error`` output with its type, message and the student's own frames;
- in every graded cell, the kit's feedback for its exercise (the CLI's words) and its score as an
  ``execute_result``, written by the grader. The feedback is a display (``text/plain``, and ``text/html``: the
  same text, escaped, in a ``<pre>`` that wraps long lines), not a stream: formgrader and nbgrader's feedback
  pages show a stream in a ``<pre>`` that never wraps, and a failing case's line can be 200 characters long.
  A graded cell the grader cannot fill gets an ``error`` (0 points and the reason), never silent marks.

Cells the grader does not run (read-only teaching cells, public checks) are left without outputs. Each cell
the grader fills gets its number as its execution count, the one the feedback names it by ("cell [7]": its
place among the code cells, as after Run All), so formgrader's page and the feedback agree.
"""
from __future__ import annotations

import ast
import difflib
import html
from dataclasses import dataclass
from pathlib import Path

from nbformat import NotebookNode
from nbformat.v4 import new_output

from autograder.load.cells import SubmissionSource, cell_label
from autograder.load.program import cells_for_child
from autograder.model.outcomes import CellOutput, ErrorInfo, RunRecord
from autograder.model.results import ExerciseResult, SubmissionResult
from autograder.report.text import exercise_text

GRADED_CALL = "grade_exercise"


@dataclass(frozen=True)
class NotebookGrade:
    """What the contained run made of one submitted notebook, or why it could not grade it."""

    path: Path
    result: SubmissionResult | None = None
    record: RunRecord | None = None
    source: SubmissionSource | None = None
    problem: str | None = None  # set when there is no result: every graded cell then says why


def to_nbformat(outputs: list[CellOutput], error: ErrorInfo | None, count: int | None) -> list[NotebookNode]:
    """A cell's outputs from the wire as nbformat outputs, the error (if it raised) last, as a kernel orders them."""
    converted = []
    for output in outputs:
        if output.kind == "stream":
            converted.append(new_output("stream", name=output.name, text=output.text))
        elif output.kind == "execute_result":
            converted.append(new_output("execute_result", data=dict(output.data), execution_count=count))
        else:
            converted.append(new_output("display_data", data=dict(output.data)))
    if error is not None:
        converted.append(error_output(error))
    return converted


def error_output(error: ErrorInfo) -> NotebookNode:
    """An exception as a kernel's ``error`` output: its type, its message, a traceback of the student's frames."""
    lines = ["Traceback (most recent call last):"] if error.frames else []
    for file, line, function, code in error.frames:
        lines.append(f'  File "{file}", line {line}, in {function}')
        if code:
            lines.append(f"    {code}")
    lines.append(f"{error.type}: {error.message}" if error.message else error.type)
    return new_output("error", ename=error.type, evalue=error.message, traceback=lines)


def unavailable(reason: str) -> NotebookNode:
    """What a graded cell shows when the grader could not grade: 0 points, and why."""
    return new_output("error", ename="GradingUnavailable", evalue=reason, traceback=[f"GradingUnavailable: {reason}"])


WRAPPED = "white-space: pre-wrap; overflow-wrap: anywhere; margin: 0"  # a <pre> whose long lines wrap


def feedback_output(feedback: str) -> NotebookNode:
    """The feedback as a display: plain text, and the same text escaped in a <pre> that wraps its long lines."""
    return new_output("display_data", data={"text/plain": feedback,
                                            "text/html": f'<pre style="{WRAPPED}">{html.escape(feedback)}</pre>'})


def graded_outputs(exercise: ExerciseResult, count: int) -> list[NotebookNode]:
    """The kit's feedback, then the score as nbgrader's partial credit (a numeric execute result)."""
    return [feedback_output(exercise_text(exercise) + "\n"),
            new_output("execute_result", data={"text/plain": repr(float(exercise.score))}, execution_count=count)]


def graded_exercise(cell: NotebookNode) -> tuple[str | None, str | None]:
    """(assignment, exercise) a graded cell asks for: its ``grade_exercise("a", "e")`` call (the source nbgrader
    restored from the release), else its grade id ``test_<exercise>``."""
    try:
        for node in ast.walk(ast.parse(cell.source)):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == GRADED_CALL \
                    and len(node.args) == 2 and all(isinstance(a, ast.Constant) and isinstance(a.value, str)
                                                    for a in node.args):
                return node.args[0].value, node.args[1].value
    except (SyntaxError, ValueError, RecursionError):
        pass
    grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
    return None, grade_id[len("test_"):] if grade_id.startswith("test_") else None


def is_graded(cell: NotebookNode) -> bool:
    meta = cell.metadata.get("nbgrader", {})
    return cell.cell_type == "code" and meta.get("grade") is True and meta.get("solution") is not True


def fill_notebook(notebook: NotebookNode, grade: NotebookGrade) -> None:
    """Every code cell's outputs and execution count, from ``grade`` (see the module's docstring)."""
    positions = _positions(grade.source, notebook) if grade.source is not None else {}
    ran = {index for index, _, _ in cells_for_child(grade.source)} if grade.source is not None else set()
    record = grade.record or RunRecord()
    errors = dict(record.load_errors)
    code_cells = [(position, cell) for position, cell in enumerate(notebook.cells, start=1) if cell.cell_type == "code"]
    for number, (position, cell) in enumerate(code_cells, start=1):
        cell.outputs, cell.execution_count = [], None
        index = positions.get(position)
        count = index if index is not None else number  # the number the feedback names it by
        if is_graded(cell):
            cell.execution_count = count
            cell.outputs = _graded(cell, grade, count)
        elif index in ran and grade.record is not None:
            cell.execution_count = count
            if index in record.cell_outputs:
                cell.outputs = to_nbformat(record.cell_outputs[index], errors.get(index), count)
            else:  # the child never finished it (it hung, or the process died in it)
                notes = [p for p in record.problems if p.startswith(f"{cell_label(index)} ")] or record.problems[:1]
                reason = "; ".join(notes) or "the cell did not finish in the grader's run"
                cell.outputs = [new_output("error", ename="CellNotFinished", evalue=reason,
                                           traceback=[f"CellNotFinished: {reason}"])]


def _graded(cell: NotebookNode, grade: NotebookGrade, count: int) -> list[NotebookNode]:
    assignment, exercise_id = graded_exercise(cell)
    if grade.result is None:
        return [unavailable(grade.problem or "the grader did not grade this notebook")]
    if assignment is not None and assignment != grade.result.assignment:
        return [unavailable(f"this cell grades {assignment}, but the notebook was graded as {grade.result.assignment}")]
    exercise = next((e for e in grade.result.exercises if e.id == exercise_id), None)
    if exercise is None:
        return [unavailable(f"the grader's result for {grade.path.name} has no exercise {exercise_id!r}")]
    return graded_outputs(exercise, count)


def _positions(source: SubmissionSource, notebook: NotebookNode) -> dict[int, int]:
    """Each position in ``notebook`` -> the index (number) of the same cell in the graded file. nbgrader's
    sanitizing keeps every cell in place unless it adds missing graded cells back; then cells are matched by
    source."""
    graded_file = source.cells
    code_positions = [p for p, cell in enumerate(notebook.cells, start=1) if cell.cell_type == "code"]
    if [c.index for c in graded_file] == list(range(1, len(code_positions) + 1)):
        return {p: number for number, p in enumerate(code_positions, start=1)}
    mine = [notebook.cells[p - 1].source for p in code_positions]
    matcher = difflib.SequenceMatcher(None, [c.source for c in graded_file], mine, autojunk=False)
    return {code_positions[b + k]: graded_file[a + k].index
            for a, b, size in matcher.get_matching_blocks() for k in range(size)}
