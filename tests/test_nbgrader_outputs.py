"""nbgrader's contained executor without nbgrader's commands: a cell's captured outputs through the wire to
nbformat, and the graded cells filled by the grader, read back by nbgrader's own determine_grade (fast)."""
from __future__ import annotations

import base64
import html
import io
import json

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from autograder.frontends.nbgrader_outputs import WRAPPED, NotebookGrade, fill_notebook, graded_exercise, to_nbformat
from autograder.load.cells import read_submission
from autograder.model.outcomes import CellOutput, ErrorInfo, RunRecord
from autograder.model.results import ExerciseResult, Status, SubmissionResult
from autograder.report.text import exercise_text
from autograder.run import capture
from autograder.run.wire.cell_outputs import MAX_CELL_OUTPUTS, MAX_OUTPUT_TEXT, decode_cell_outputs
from autograder.run.wire.checked import WireError
from autograder.run.wire.messages import dumps, loads

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16


def through_wire(items: list[dict]) -> list[CellOutput]:
    """What the parent rebuilds from a child's cell-outputs message."""
    message = loads(dumps({"event": "cell-outputs", "cell": 1, "outputs": items}))
    return decode_cell_outputs(message["outputs"])


def test_a_cell_runs_as_in_a_kernel_and_its_outputs_cross_the_wire():
    namespace = {"__name__": "__main__"}
    code = "import sys\nprint('one')\nprint('two')\nsys.stderr.write('careful\\n')\ndisplay(3)\n6 * 7\n"
    error, items = capture.run_cell(code, "<cell 4>", namespace)
    outputs = through_wire(items)
    assert error is None
    assert [(o.kind, o.name) for o in outputs] == [("stream", "stdout"), ("stream", "stderr"), ("display_data", ""),
                                                  ("execute_result", "")]
    assert outputs[0].text == "one\ntwo\n" and outputs[1].text == "careful\n"
    assert dict(outputs[3].data) == {"text/plain": "42"}
    error, items = capture.run_cell("x = 1\nx;", "<cell 5>", namespace)  # a trailing ';' shows nothing
    assert error is None and items == []


def test_a_failing_cell_keeps_what_it_printed_and_returns_its_exception():
    error, items = capture.run_cell("print('before')\n1 / 0\nprint('after')\n", "<cell 2>", {})
    assert isinstance(error, ZeroDivisionError)
    assert [o.text for o in through_wire(items)] == ["before\n"]


def test_a_flood_is_cut_with_a_note_and_still_crosses_the_wire():
    error, items = capture.run_cell("for i in range(300_000):\n    print(i)\n", "<cell 3>", {})
    outputs = through_wire(items)
    assert error is None and len(outputs) == 1 and len(outputs[0].text) <= MAX_OUTPUT_TEXT
    assert outputs[0].text.startswith("0\n1\n") and "the grader kept only the first" in outputs[0].text


def test_a_pyplot_figure_left_open_is_shown_as_a_png_then_closed():
    pytest.importorskip("matplotlib")
    code = "import matplotlib\nmatplotlib.use('agg')\nimport matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\n"
    error, items = capture.run_cell(code, "<cell 6>", {})
    (shown,) = [o for o in through_wire(items) if o.kind == "display_data"]
    png = base64.b64decode(dict(shown.data)["image/png"])
    assert error is None and png.startswith(b"\x89PNG") and "Figure" in dict(shown.data)["text/plain"]
    import matplotlib.pyplot as plt
    assert plt.get_fignums() == []


@pytest.mark.parametrize("bad", [
    [{"kind": "stream", "name": "stdin", "text": "x"}],
    [{"kind": "stream", "name": "stdout", "text": 3}],
    [{"kind": "stream", "name": "stdout", "text": "x" * (MAX_OUTPUT_TEXT + 1)}],
    [{"kind": "display_data", "data": {"text/html": "<script>"}}],
    [{"kind": "display_data", "data": {"image/png": base64.b64encode(b"GIF89a").decode()}}],
    [{"kind": "display_data", "data": {"image/png": "not base64!"}}],
    [{"kind": "display_data", "data": {}}],
    [{"kind": "error", "ename": "Fake"}],
    [{"kind": "stream", "name": "stdout", "text": "x"}] * (MAX_CELL_OUTPUTS + 1),
    {"kind": "stream"},
])
def test_the_wire_refuses_outputs_beyond_what_a_cell_may_show(bad):
    with pytest.raises(WireError):
        decode_cell_outputs(json.loads(json.dumps(bad)))


def test_outputs_become_nbformat_outputs_that_validate():
    outputs = [CellOutput("stream", "stdout", "hello\n"),
               CellOutput("display_data", data=(("image/png", base64.b64encode(PNG).decode()), ("text/plain", "<Fig>"))),
               CellOutput("execute_result", data=(("text/plain", "42"),))]
    error = ErrorInfo("ValueError", "bad shape", frames=(("<cell 3>", 2, "f", "raise ValueError('bad shape')"),))
    converted = to_nbformat(outputs, error, count=7)
    assert [o.output_type for o in converted] == ["stream", "display_data", "execute_result", "error"]
    assert converted[2].execution_count == 7 and converted[3].ename == "ValueError"
    assert converted[3].traceback[-1] == "ValueError: bad shape" and '"<cell 3>", line 2' in converted[3].traceback[1]
    notebook = new_notebook(cells=[new_code_cell("x", outputs=converted, execution_count=7)])
    nbformat.validate(notebook)


def course_notebook() -> nbformat.NotebookNode:
    def meta(**fields):
        return {"nbgrader": {"schema_version": 3, "grade": False, "solution": False, "locked": False, **fields}}
    return new_notebook(cells=[
        new_markdown_cell("# td_loss"),
        new_code_cell("import os\nprint('setup')", metadata=meta(grade_id="setup", locked=True)),
        new_code_cell("def td_loss(q, reward, next_q, gamma):\n    return 0\nprint('mine')",
                      metadata=meta(grade_id="td_loss", solution=True)),
        new_code_cell("print('a demo')", metadata=meta(grade_id="demo_td_loss", locked=True)),
        new_code_cell('from autograder.graded_cell import grade_exercise\n'
                      'grade_exercise("custom_gradients", "td_loss")',
                      metadata=meta(grade_id="test_td_loss", grade=True, locked=True, points=2)),
    ])


def exercise_result(score: float) -> ExerciseResult:
    return ExerciseResult("td_loss", score, 2.0, Status.PARTIAL if 0 < score < 2 else Status.FAILED,
                          pitfalls=["missing-stop-gradient"], summary="1 of 4 cases passed.")


def filled(tmp_path, grade_of) -> nbformat.NotebookNode:
    notebook = course_notebook()
    path = tmp_path / "custom_gradients.ipynb"
    nbformat.write(notebook, path)
    notebook.cells[4].outputs = [nbformat.v4.new_output("execute_result", data={"text/plain": "2.0"},
                                                        execution_count=1)]  # whatever a student left there
    fill_notebook(notebook, grade_of(path, read_submission(path)))
    return notebook


def determine_grade(cell) -> tuple:
    """nbgrader's own reading of a graded cell's points (imported here: nbgrader's import costs a worker that
    runs none of these tests a second of CPU)."""
    from nbgrader.utils import determine_grade as nbgraders

    return nbgraders(cell)


def test_graded_cells_hold_the_graders_feedback_and_score_as_nbgraders_partial_credit(tmp_path):
    record = RunRecord(loaded=True, cell_outputs={1: [CellOutput("stream", "stdout", "setup\n")],  # code cells [1], [2]
                                                  2: [CellOutput("stream", "stdout", "mine\n")]})
    result = SubmissionResult("s.ipynb", "s", "custom_gradients", [exercise_result(0.5)])
    notebook = filled(tmp_path, lambda path, source: NotebookGrade(path, result, record, source))
    setup, solution, demo, graded = notebook.cells[1:]
    assert setup.outputs[0].text == "setup\n" and solution.outputs[0].text == "mine\n"
    assert demo.outputs == [] and demo.execution_count is None  # not run by the grader, as on the CLI
    # Each cell's count is its number, which the feedback names it by ("cell [4]"), as after Run All.
    assert [setup.execution_count, solution.execution_count, graded.execution_count] == [1, 2, 4]
    shown = graded.outputs[0]
    assert shown.output_type == "display_data" and shown.data["text/plain"] == exercise_text(exercise_result(0.5)) + "\n"
    assert "[missing-stop-gradient]" in shown.data["text/plain"]
    # formgrader and nbgrader's feedback pages show the HTML: the same text, escaped, in a <pre> that wraps
    assert shown.data["text/html"] == f'<pre style="{WRAPPED}">{html.escape(shown.data["text/plain"])}</pre>'
    assert "pre-wrap" in WRAPPED
    assert graded.outputs[1].output_type == "execute_result" and graded.outputs[1].execution_count == 4
    assert determine_grade(graded) == (0.5, 2.0)
    nbformat.validate(notebook)


def test_a_cell_that_raised_shows_its_error_and_a_notebook_not_graded_scores_zero_with_the_reason(tmp_path):
    error = ErrorInfo("NameError", "name 'tff' is not defined", frames=(("<cell [2]>", 1, "<module>", "tff"),))
    record = RunRecord(loaded=True, load_errors=[(2, error)], cell_outputs={1: [], 2: []})
    result = SubmissionResult("s.ipynb", "s", "custom_gradients", [exercise_result(0.0)])
    notebook = filled(tmp_path, lambda path, source: NotebookGrade(path, result, record, source))
    assert notebook.cells[2].outputs[-1].ename == "NameError"
    assert determine_grade(notebook.cells[4]) == (0.0, 2.0)
    notebook = filled(tmp_path, lambda path, source: NotebookGrade(path, problem="the reference does not run"))
    graded = notebook.cells[4]
    assert [o.output_type for o in graded.outputs] == ["error"] and "reference" in graded.outputs[0].evalue
    assert determine_grade(graded) == (0, 2.0)


def test_a_graded_cell_names_its_exercise_by_its_call_else_by_its_grade_id():
    cell = course_notebook().cells[4]
    assert graded_exercise(cell) == ("custom_gradients", "td_loss")
    cell.source = "# this cell was missing from the submission"
    assert graded_exercise(cell) == (None, "td_loss")


def test_the_child_outputs_survive_a_real_json_round_trip_as_nbgrader_writes_notebooks():
    error, items = capture.run_cell("print('é ✓')\n'text'", "<cell 1>", {})
    converted = to_nbformat(through_wire(items), None, 1)
    notebook = new_notebook(cells=[new_code_cell("x", outputs=converted, execution_count=1)])
    again = nbformat.read(io.StringIO(nbformat.writes(notebook)), as_version=4)
    assert again.cells[0].outputs[0].text == "é ✓\n" and again.cells[0].outputs[1].data["text/plain"] == "'text'"


class _Server:
    """Enough of a fork server for SubmissionRun.start: a child that is never forked."""

    def fork(self, job):
        class Channel:
            pending, at_end = False, False

            def send(self, message: bytes) -> None:  # the task handed after loading: not looked at here
                pass

        class Child:
            pid, sentinel, channel = -1, -1, Channel()
        return Child()


def started(capture_outputs: bool):
    from autograder.config import Limits
    from autograder.course import assignment_by_id
    from autograder.run.handing import CaseBook
    from autograder.run.supervisor import SubmissionRun
    from autograder.run.tasks import ChildJob, Task

    job = ChildJob("custom_gradients", cells=[(1, "x = 1", "<cell 1>"), (2, "y = 2", "<cell 2>")],
                   capture_outputs=capture_outputs)
    book = CaseBook({"td_loss": assignment_by_id("custom_gradients").exercise("td_loss").cases(1)})
    run = SubmissionRun(("student", 0), job, [Task("td_loss", 0, "student")], book, Limits(), time_limits=[5.0])
    run.start(_Server())
    run._handle({"event": "contained", "measures": []})
    return run


def test_the_parent_takes_one_set_of_outputs_per_running_cell_and_only_when_it_asked_for_them():
    shown = [{"kind": "stream", "name": "stdout", "text": "hi\n"}]
    run = started(capture_outputs=True)
    run._handle({"event": "cell-start", "cell": 1})
    with pytest.raises(WireError):
        run._handle({"event": "cell-outputs", "cell": 2, "outputs": shown})  # not the cell that runs
    run._handle({"event": "cell-outputs", "cell": 1, "outputs": shown})
    with pytest.raises(WireError):
        run._handle({"event": "cell-outputs", "cell": 1, "outputs": []})  # a second set: would replace the first
    assert run.record.cell_outputs == {1: [CellOutput("stream", "stdout", "hi\n")]}
    run._handle({"event": "cell-start", "cell": 2})
    run._handle({"event": "loaded", "errors": [], "defined": {}})
    with pytest.raises(WireError):
        run._handle({"event": "cell-outputs", "cell": 2, "outputs": shown})  # after loading: no cell runs
    run = started(capture_outputs=False)  # the command line's children send none
    run._handle({"event": "cell-start", "cell": 1})
    with pytest.raises(WireError):
        run._handle({"event": "cell-outputs", "cell": 1, "outputs": shown})


def test_a_notebooks_outputs_past_what_the_parent_keeps_are_left_out_with_a_note():
    """The parent keeps at most MAX_OUTPUT_CHARS of a notebook's outputs (every cell, every child): a cell that
    passes it shows a note in their place, and its cells still run."""
    from autograder.run.budgets import MAX_OUTPUT_CHARS

    run = started(capture_outputs=True)
    run.budget.output_chars = MAX_OUTPUT_CHARS - 2  # what the cells before it showed
    run._handle({"event": "cell-start", "cell": 1})
    run._handle({"event": "cell-outputs", "cell": 1, "outputs": [{"kind": "stream", "name": "stdout", "text": "hi\n"}]})
    (note,) = run.record.cell_outputs[1]
    assert (note.kind, note.name) == ("stream", "stderr") and "this cell's are left out" in note.text
    run._handle({"event": "cell-start", "cell": 2})  # the notebook goes on loading
