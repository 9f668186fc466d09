"""Issue 13, each class of attack on its own, fast (nothing is graded): the codec, the parent's view of a child,
reading submissions, every writer, the seed, hidden cases, the cache's keys, the wheel, the child's modules.

tests/test_hostile.py proves the same classes end to end, with attack submissions in a real grading run
beside honest files (as root); tests/test_unprivileged.py with a grader that is another user.
"""
from __future__ import annotations

import csv
import datetime
import io
import json
import os
import random
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from autograder.config import Limits
from autograder.course import assignment_by_id
from autograder.load.cells import read_submission
from autograder.load.discover import find_submissions, student_name
from autograder.load.reading import MAX_FILE_BYTES, MiB
from autograder.model.outcomes import RunStatus
from autograder.model.results import CaseReport, ExerciseResult, Status, SubmissionResult
from autograder.report import classroom50, formats, safe_text
from autograder.report.markdown import submission_markdown
from autograder.report.step_summary import step_summary
from autograder.report.class_plots import matplotlib_missing
from autograder.report.class_report import write_class_report
from autograder.report.contract import to_json
from autograder.report.feedback_pages import feedback_page, index_page, write_feedback_pages
from autograder.report.text import class_table, exercise_text, submission_text
from autograder.run.budgets import MAX_RECEIVED_BYTES
from autograder.run.handing import CaseBook
from autograder.run.isolation import Containment
from autograder.run.supervisor import SubmissionRun
from autograder.run.task_outcomes import STOPPED
from autograder.run.tasks import ChildJob, Task
from autograder.run.wire.case_inputs import decode_args
from autograder.run.wire.checked import WireError
from autograder.run.wire.error_info import decode_error
from autograder.run.wire.messages import dumps, loads
from autograder.run.wire.records import decode_outcome
from autograder.run.wire.values import decode_value
from autograder.store import reference_cache
from autograder.store.atomic import read_entry, write_entry
from autograder.store.reference_cache import ReferenceCache
from autograder.store.result_store import ResultStore
from helpers import ROOT, quiet_env

# --------------------------------------------------------------------------- the codec is total

VALUE = {"type": "EagerTensor", "dtype": "float32", "shape": [2], "data": "AAAAAAAA8D8AAAAAAAAAQA=="}
GOOD = {"event": "task-result", "task": 0,
        "outcome": {"status": "ok", "outputs": {"loss": VALUE}, "error": None, "message": "", "seconds": 0.1}}
HOSTILE_BYTES = [
    b"[" * 100_000 + b"]" * 100_000,  # RecursionError in json.loads
    b'{"event": "task-start", "task": ' + b"9" * 5_000 + b"}",  # ValueError: Python's digit limit
    b'{"event": "x", "n": 1e999999}',
    b"\xff\xfe not utf-8",
    b"[" + b"{}," * 1_000_001 + b"{}]",  # a million objects: refused before parsing
]


@pytest.mark.parametrize("data", HOSTILE_BYTES, ids=["nesting", "digits", "inf", "bytes", "objects"])
def test_any_bytes_are_a_message_or_a_wire_error(data):
    try:
        loads(data)
    except WireError:
        pass


@pytest.mark.parametrize("shape, data", [([0, 2**62, 2**62], ""), ([1] * 33, "AAAAAAAAAAA="),
                                         ([1], "A" * 1_000_000), ([True], "AAAAAAAAAAA="), ([-1], ""),
                                         ([10**30], ""), ([1], "AAAAAAAAAA=="), ("1", "")])
def test_a_value_whose_shape_passes_the_size_check_but_not_numpy_is_a_wire_error(shape, data):
    with pytest.raises(WireError):
        decode_value({"type": "x", "dtype": "float32", "shape": shape, "data": data})


def test_mutated_messages_never_raise_anything_but_a_wire_error():
    """A thousand random mutations of a good message: every field replaced by data of another type."""
    rng = random.Random(13)
    strange = [None, True, 2**70, -1, 1e308, float("nan"), "", "\udc80", [], {}, [[[]]], {"a": {"b": []}},
               "A" * 10_000, [1] * 100]

    def mutate(node):
        if isinstance(node, dict):
            return {k: (rng.choice(strange) if rng.random() < 0.2 else mutate(v)) for k, v in node.items()}
        if isinstance(node, list):
            return [rng.choice(strange) if rng.random() < 0.2 else mutate(v) for v in node]
        return rng.choice(strange) if rng.random() < 0.3 else node

    for _ in range(1000):
        message = mutate(GOOD)
        try:
            decode_outcome(message.get("outcome") if isinstance(message, dict) else message)
        except WireError:
            pass


def test_texts_from_a_child_are_encodable_and_types_are_one_line():
    error = decode_error({"type": "Evil\x1b[2J\nFAKE", "message": "a\udc80b", "module": "m\rx",
                               "frames": [{"file": "<cell 1>", "line": 2, "function": "f\n", "code": "x\x1b"}]})
    assert "\n" not in error.type and "\x1b" not in error.type and error.type.startswith("Evil\\x1b")
    assert error.message == "a\ufffdb"
    error.message.encode("utf-8")
    assert all("\n" not in part and "\x1b" not in part for part in error.frames[0] if isinstance(part, str))


# --------------------------------------------------------------------------- the parent's view of a child

class _Channel:
    """What the parent sends a child that is never forked."""

    def __init__(self):
        self.sent: list[bytes] = []
        self.pending, self.at_end = False, False

    def send(self, message: bytes) -> None:
        self.sent.append(message)


class _Server:
    """Enough of a fork server for SubmissionRun.start: a child that is never forked."""

    def fork(self, job):
        class Child:
            pid, sentinel, channel = -1, -1, _Channel()
        return Child()


def _run() -> SubmissionRun:
    job = ChildJob("custom_gradients", cells=[(1, "x = 1", "<cell 1>"), (2, "y = 2", "<cell 2>")])
    book = CaseBook({"td_loss": assignment_by_id("custom_gradients").exercise("td_loss").cases(1)})
    run = SubmissionRun(("student", 0), job, [Task("td_loss", 0, "student"), Task("td_loss", 1, "student")], book,
                        Limits(), time_limits=[5.0, 5.0])
    run.start(_Server())
    return run


def test_deadlines_belong_to_the_parent_a_message_moves_the_child_forward_once():
    run = _run()
    run._handle({"event": "contained", "measures": []})
    with pytest.raises(WireError):
        run._handle({"event": "cell-start", "cell": 2})  # not the next cell
    run._handle({"event": "cell-start", "cell": 1})
    armed = run.deadline
    with pytest.raises(WireError):
        run._handle({"event": "cell-start", "cell": 1})  # again: would re-arm the cell's limit
    assert run.deadline == armed and run.child.channel.sent == []  # no case exists in a child while cells run
    result = {"event": "task-result", "task": 0, "outcome": GOOD["outcome"]}
    with pytest.raises(WireError):
        run._handle(result)  # before the notebook is loaded
    run._handle({"event": "cell-start", "cell": 2})
    run._handle({"event": "loaded", "errors": [], "defined": {}})
    # The parent hands the first task, with its case only, and arms its deadline itself.
    (handed,) = [loads(m) for m in run.child.channel.sent]
    case = run.book.case(Task("td_loss", 0, "student"))
    assert (handed["event"], handed["task"], run.current_task) == ("task", 0, 0)
    assert np.array_equal(decode_args(handed["args"])["next_q"], case.args["next_q"])
    armed = run.deadline
    for message in ({"event": "task-start", "task": 0}, {"event": "task-start", "task": 1},
                    {"event": "loaded", "errors": [], "defined": {}}, {"event": "contained", "measures": []},
                    {"event": "done"}, {**result, "task": 1}):
        with pytest.raises(WireError):
            run._handle(message)
    assert run.deadline == armed and run.current_task == 0 and len(run.child.channel.sent) == 1


def test_a_load_error_for_a_cell_the_grader_did_not_send_is_a_violation():
    run = _run()
    error = {"type": "ValueError", "message": "", "module": "", "frames": []}
    with pytest.raises(WireError):
        run._handle({"event": "loaded", "errors": [{"cell": 99, "error": error}], "defined": {}})



class _ScriptedChannel(_Channel):
    """A child's socket whose reads return what the test scripted, one list of frames per read."""

    def __init__(self, reads: list[list[bytes]]):
        super().__init__()
        self.reads = reads

    def receive(self, limit: int) -> list[bytes]:
        return self.reads.pop(0) if self.reads else []

    def close(self) -> None:
        self.reads = []


class _ScriptedServer:
    def __init__(self, reads: list[list[bytes]]):
        self.reads = reads

    def fork(self, job):
        channel = _ScriptedChannel(self.reads)

        class Child:
            pid, sentinel = -1, -1

            def __init__(self):
                self.channel = channel

            exitcode = -9  # when the test makes it end

            def close(self):
                self.channel = None

            def is_alive(self):
                return True

            def join(self, timeout=None):
                pass
        return Child()


def _two_exercises(reads: list[list[bytes]]) -> SubmissionRun:
    """A student's run of td_loss's and checkpointed's first public cases, loaded, td_loss's case handed."""
    assignment = assignment_by_id("custom_gradients")
    book = CaseBook({exercise: assignment.exercise(exercise).cases(1) for exercise in ("td_loss", "checkpointed")})
    job = ChildJob("custom_gradients", cells=[(1, "x = 1", "<cell 1>")])
    run = SubmissionRun(("student", 0), job, [Task("td_loss", 0, "student"), Task("checkpointed", 0, "student")],
                        book, Limits(), time_limits=[5.0, 5.0])
    run.start(_ScriptedServer(reads))
    run._kill = run.kill_leftovers = lambda: None  # no process to kill (as root, no sandbox user's to end)
    for message in ({"event": "contained", "measures": []}, {"event": "cell-start", "cell": 1},
                    {"event": "loaded", "errors": [], "defined": {}}):
        run._handle(message)
    assert run.current_task == 0 and len(run.child.channel.sent) == 1
    return run


def test_a_violation_is_the_running_tasks_even_when_its_result_follows_at_once():
    """CI, under load: a broken message, then td_loss's own result arriving while the child was being stopped.
    The result was taken, checkpointed handed to the dying child, and the violation charged to checkpointed."""
    result = dumps({**GOOD, "task": 0})
    run = _two_exercises([[b"[" * 100_000 + b"]" * 100_000], [result]])
    channel = run.child.channel
    run.pump()
    assert run.record.outcomes[0].status == RunStatus.CRASHED
    assert "broke the grader's protocol" in run.record.outcomes[0].message
    assert 1 not in run.record.outcomes and len(channel.sent) == 1  # checkpointed: never handed, left for a new child
    assert run.child is None and not run.finished


def test_what_a_submissions_children_send_is_bounded_past_it_the_running_task_broke_the_protocol():
    """All of a submission's children together send at most MAX_RECEIVED_BYTES (the parent's memory): the
    message that passes it is not parsed, and the task running is charged, as for any violation."""
    run = _two_exercises([[dumps({**GOOD, "task": 0})]])
    run.budget.received = MAX_RECEIVED_BYTES - 10  # what its earlier children sent
    run.pump()
    assert run.record.outcomes[0].status == RunStatus.CRASHED
    assert f"broke the grader's protocol (more than {MAX_RECEIVED_BYTES // 2**20} MiB of answers)" in \
        run.record.outcomes[0].message
    assert 1 not in run.record.outcomes and run.child is None and not run.finished  # a new child takes the next


def test_a_result_that_arrived_before_the_child_was_stopped_stands_and_charges_no_task():
    """A timeout noticed just after the running task's result reached the socket: the result stands, the next
    task is not handed to the child being killed nor charged with the timeout; a new child takes it."""
    run = _two_exercises([[], [dumps({**GOOD, "task": 0})]])
    channel = run.child.channel
    run.pump()
    run.check_limits(run.deadline + 1)
    assert run.record.outcomes[0].status == RunStatus.OK
    assert 1 not in run.record.outcomes and len(channel.sent) == 1
    assert run.child is None and not run.finished
    run.start(_ScriptedServer([]))  # the scheduler's next child: it loads, then gets checkpointed's case
    for message in ({"event": "contained", "measures": []}, {"event": "cell-start", "cell": 1},
                    {"event": "loaded", "errors": [], "defined": {}}):
        run._handle(message)
    assert run.current_task == 1 and loads(run.child.channel.sent[0])["exercise"] == "checkpointed"


def test_a_timeout_without_a_result_is_the_running_tasks():
    run = _two_exercises([])
    run.check_limits(run.deadline + 1)
    assert run.record.outcomes[0].status == RunStatus.TIMEOUT and "timeout after 5 s in td_loss" in \
        run.record.outcomes[0].message
    assert 1 not in run.record.outcomes and run.child is None



def test_a_stopped_case_costs_the_later_cases_of_its_exercise_and_the_next_exercise_gets_a_new_child():
    """One bad case costs that case and the later cases of the same implementation and exercise (they would most
    likely fail the same way, each after its own time limit), never another exercise's."""
    assignment = assignment_by_id("custom_gradients")
    book = CaseBook({exercise: assignment.exercise(exercise).cases(1) for exercise in ("td_loss", "checkpointed")})
    tasks = [Task("td_loss", 0, "student"), Task("td_loss", 1, "student"), Task("checkpointed", 0, "student")]
    run = SubmissionRun(("student", 0), ChildJob("custom_gradients", cells=[(1, "x = 1", "<cell 1>")]), tasks, book,
                        Limits(), time_limits=[5.0, 5.0, 5.0])
    run.start(_ScriptedServer([]))
    run._kill = run.kill_leftovers = lambda: None  # no process to kill
    for message in ({"event": "contained", "measures": []}, {"event": "cell-start", "cell": 1},
                    {"event": "loaded", "errors": [], "defined": {}}):
        run._handle(message)
    assert run.current_task == 0
    run.check_limits(run.deadline + 1)
    assert run.record.outcomes[0].status == RunStatus.TIMEOUT
    assert (run.record.outcomes[1].status, run.record.outcomes[1].message) == (
        RunStatus.NOT_RUN, "not run: an earlier case stopped (timeout after 5 s in td_loss)")
    assert 2 not in run.record.outcomes and run.child is None and not run.finished  # checkpointed: a new child


def test_after_a_hidden_case_why_a_child_stopped_between_cases_is_told_in_the_graders_words_only():
    """A child that ends between two cases once a hidden one was handed could spell out what it met there (its
    cells, run again in a new child, exit with a code of their choosing): the note, and the outcomes it leaves,
    say only that the process stopped."""
    assignment = assignment_by_id("custom_gradients")
    book = CaseBook({exercise: assignment.exercise(exercise).cases(1) for exercise in ("td_loss", "checkpointed")})
    tasks = [Task("td_loss", 0, "student"), Task("checkpointed", 0, "student"), Task("td_loss", 1, "student"),
             Task("checkpointed", 1, "student")]  # public, public, then the hidden ones (``run_order``)
    run = SubmissionRun(("student", 0), ChildJob("custom_gradients", cells=[(1, "x = 1", "<cell 1>")]), tasks, book,
                        Limits(), time_limits=[5.0] * 4)
    run.start(_ScriptedServer([[dumps({**GOOD, "task": 0})], [dumps({**GOOD, "task": 1})]]))
    run._kill = run.kill_leftovers = lambda: None  # no process to kill
    loading = ({"event": "contained", "measures": []}, {"event": "cell-start", "cell": 1},
               {"event": "loaded", "errors": [], "defined": {}})
    for message in loading:
        run._handle(message)
    run.pump()
    run.pump()
    assert run.current_task == 2 and not book.case(tasks[2]).public  # td_loss's hidden case is running
    run.on_exit()  # the child dies on it: that case's crash, in the grader's words as always
    assert run.record.outcomes[2].status == RunStatus.CRASHED and run.child is None and not run.finished
    run.start(_ScriptedServer([]))  # checkpointed's hidden case needs a new child, which runs the cells again
    for message in loading[:2]:
        run._handle(message)
    run.child.exitcode = 77  # the code's choice, between two cases
    run.on_exit()
    assert run.finished and run.record.problems == [STOPPED]
    assert (run.record.outcomes[3].status, run.record.outcomes[3].message) == (RunStatus.CRASHED, STOPPED)


def test_a_child_that_ends_right_after_a_result_is_not_handed_the_next_task_nor_charged_with_it():
    run = _two_exercises([[dumps({**GOOD, "task": 0})]])
    channel = run.child.channel
    run.on_exit()  # its exit and its last message are seen together
    assert run.record.outcomes[0].status == RunStatus.OK
    assert 1 not in run.record.outcomes and len(channel.sent) == 1
    assert run.child is None and not run.finished  # a new child runs checkpointed's case


def test_a_child_that_ends_without_a_result_is_charged_with_its_running_task():
    run = _two_exercises([])
    run.on_exit()
    assert run.record.outcomes[0].status == RunStatus.CRASHED and "killed by SIGKILL" in run.record.outcomes[0].message


def test_a_broken_message_read_as_the_child_ends_is_its_running_tasks_and_stops_nothing_else():
    """The rest of a long frame arrives with the child's exit: the violation releases the child inside on_exit."""
    run = _two_exercises([[b'{"event": "task-result", "outcome": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"]])
    run.on_exit()
    assert run.record.outcomes[0].status == RunStatus.CRASHED
    assert "broke the grader's protocol" in run.record.outcomes[0].message
    assert 1 not in run.record.outcomes and run.child is None and not run.finished


# --------------------------------------------------------------------------- reading submissions

def _notebook(**fields) -> str:
    cells = fields.pop("cells", [{"cell_type": "code", "metadata": {}, "source": "def td_loss(q, r, n, g):\n    pass\n",
                                  "outputs": [], "execution_count": None}])
    return json.dumps({"cells": cells, "metadata": fields.pop("metadata", {}), "nbformat": 4, "nbformat_minor": 5})


@pytest.mark.parametrize("text, problem", [
    (_notebook(metadata="a string"), None),
    (_notebook(metadata=[1, 2]), None),
    (_notebook(cells=[{"cell_type": "code", "source": "x = 1", "metadata": {"nbgrader": {"grade_id": ["a"],
                                                                                           "locked": "yes"}}}]), None),
    (_notebook(cells=[{"cell_type": "code", "source": ["x", 1, None], "metadata": "m"}]), None),
    ('{"cells": [], "metadata": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
    ('{"cells": [], "n": ' + "9" * 5_000 + "}", "too large to parse"),
    (_notebook(cells=[{"cell_type": "markdown", "source": "", "metadata": {}}] * 5_001), "more than 5000 cells"),
])
def test_a_notebook_of_any_shape_is_read_or_refused_with_a_message(tmp_path, text, problem):
    path = tmp_path / "n.ipynb"
    path.write_text(text)
    source = read_submission(path)
    if problem is None:
        assert source.problem is None and source.cells
    else:
        assert problem in source.problem


@pytest.mark.parametrize("code, words", [("x = " + "-" * 100_000 + "1\n", "nested too deeply"),
                                         ("x = " + "+".join(["1"] * 30_000) + "\n", "nested"),
                                         ("x = '" + "a" * 300_000 + "'\n", "characters of code")])
def test_a_cell_python_cannot_read_is_refused_with_a_message_and_the_others_kept(tmp_path, code, words):
    cells = [{"cell_type": "code", "source": code, "metadata": {}},
             {"cell_type": "code", "source": "def td_loss(q, r, n, g):\n    return 1\n", "metadata": {}}]
    path = tmp_path / "n.ipynb"
    path.write_text(_notebook(cells=cells))
    source = read_submission(path)
    assert source.problem is None
    refused, kept = source.cells
    assert refused.code.startswith("raise SyntaxError(") and words in refused.code
    assert kept.code == cells[1]["source"]
    from autograder.judge.static import analyze  # the parent's static reading: no RecursionError, strict or not
    assert analyze(source, "td_loss", strict=True).defined


def test_links_fifos_and_huge_files_are_refused_before_anything_is_read(tmp_path):
    (tmp_path / "real.py").write_text("def td_loss(q, r, n, g):\n    return 1\n")
    (tmp_path / "link.py").symlink_to(tmp_path / "real.py")
    (tmp_path / "dangling.ipynb").symlink_to(tmp_path / "nowhere.ipynb")
    os.mkfifo(tmp_path / "fifo.py")
    with open(tmp_path / "huge.ipynb", "wb") as huge:
        huge.truncate(MAX_FILE_BYTES + 1)
    assert "symbolic link" in read_submission(tmp_path / "link.py").problem
    assert "symbolic link" in read_submission(tmp_path / "dangling.ipynb").problem
    assert "not a regular file" in read_submission(tmp_path / "fifo.py").problem  # and it did not block
    assert "up to 32 MiB" in read_submission(tmp_path / "huge.ipynb").problem
    found, _ = find_submissions([str(tmp_path)])
    assert {Path(f.shown_as).name for f in found} == {"real.py", "link.py", "dangling.ipynb", "huge.ipynb"}


def test_a_file_name_that_is_not_utf8_is_shown_as_escapes(tmp_path):
    name = os.fsdecode(b"caf\xe9.py")
    (tmp_path / name).write_text("x = 1\n")
    [found], _ = find_submissions([str(tmp_path)])
    assert found.shown_as.endswith("caf\\xe9.py") and student_name(found.path) == "caf\\xe9"
    found.shown_as.encode("utf-8")
    assert read_submission(found.path).problem is None


def test_reading_a_huge_submission_keeps_the_parents_memory_bounded(tmp_path):
    """Each file read in a fresh process (no TensorFlow): its peak memory, minus the interpreter's own."""
    outputs = [{"output_type": "stream", "name": "stdout", "text": ["x" * 1000] * 1000}]
    cells = [{"cell_type": "code", "source": "x = 1\n", "metadata": {}, "outputs": outputs}] * 25  # 25 MB of outputs
    (tmp_path / "outputs.ipynb").write_text(_notebook(cells=cells))
    (tmp_path / "line.py").write_text("x = '" + "a" * 16 * MiB + "'\n")
    with open(tmp_path / "sparse.ipynb", "wb") as huge:
        huge.truncate(600 * MiB)
    (tmp_path / "cells.ipynb").write_text(_notebook(cells=[{"cell_type": "code", "source": "", "metadata": {}}]
                                                    * 200_000))
    script = ("import resource, sys; from autograder.load.cells import read_submission; "
              "base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss; "
              "source = read_submission(sys.argv[1]); "
              "print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) // 1024, source.problem)")
    for name in ("outputs.ipynb", "line.py", "sparse.ipynb", "cells.ipynb"):
        size = (tmp_path / name).stat().st_size
        done = subprocess.run([sys.executable, "-c", script, str(tmp_path / name)], capture_output=True, text=True,
                              env=quiet_env(), timeout=120, cwd=ROOT)
        assert done.returncode == 0, done.stderr[-2000:]
        grown = int(done.stdout.split()[0])
        assert grown < 3 * min(size, MAX_FILE_BYTES) // MiB + 40, (name, size // MiB, done.stdout)


# --------------------------------------------------------------------------- every writer, any text

# A name (one line by nature: a file, a student, an id) may hold a newline that starts a fake line of the report;
# a feedback text (many lines by nature) keeps its newlines but nothing else raw.
EVIL = "a\udc80 \x1b[2J\x1b[31m[/x] [bold]b\r\nINJECTED-LINE\u202e\x07"
EVIL_TEXT = EVIL.replace("\n", " ")


def _hostile_result(student: str = EVIL) -> SubmissionResult:
    exercises = [ExerciseResult("td_loss", 0.0, 2.0, Status.ERROR, [EVIL], summary=EVIL_TEXT, notes=[EVIL_TEXT],
                                cases=[CaseReport("c", EVIL_TEXT, True, EVIL_TEXT)]),
                 ExerciseResult("log1pexp", 2.0, 2.0, Status.PASSED, summary="All 6 cases passed.")]
    return SubmissionResult(f"s/{EVIL}.ipynb", student, "custom_gradients", exercises, notes=[EVIL])


def _classroom50(result: SubmissionResult) -> dict:
    moment = datetime.datetime(2026, 12, 1, tzinfo=datetime.timezone.utc)
    return classroom50.classroom50_result(result, classroom50.RunnerContext.from_environ({}), moment, moment)


def _no_raw_control(text: str, lines: bool = True) -> None:
    bad = {c for c in text if (ord(c) < 32 and c not in "\n\t") or 0x7f <= ord(c) < 0xa0 or 0xd800 <= ord(c) < 0xe000
           or c == "\u202e"}
    assert not bad, bad
    text.encode("utf-8")
    if lines:
        assert not [line for line in text.splitlines() if line.lstrip("│ ").startswith("INJECTED-LINE")]


def test_every_text_writer_escapes_what_students_control():
    results = [_hostile_result(), _hostile_result("=1+1"), _hostile_result("\t=2")]
    for text in (submission_text(results[0]), class_table(results, seed=3), exercise_text(results[0].exercises[0]),
                 submission_markdown(results[0]), step_summary(results), formats.to_junit(results, seed=3),
                 formats.to_csv(results), classroom50.release_body(results[0], _classroom50(results[0])),
                 classroom50.to_json(_classroom50(results[0])),
                 json.dumps(formats.gradescope_results(results[0]))):
        _no_raw_control(text)
    ET.fromstring(formats.to_junit(results).encode("utf-8"))
    json.loads(to_json(results))
    rows = list(csv.reader(io.StringIO(formats.to_csv(results))))
    assert all(not row[0].startswith(safe_text.FORMULA_STARTS) for row in rows)
    assert {row[0] for row in rows[1:]} >= {"'=1+1", "\\t=2"}


@pytest.mark.parametrize("value, expected", [("=SUM(A1)", "'=SUM(A1)"), ("+1", "'+1"), ("-1", "'-1"), ("@A", "'@A"),
                                             ("\t=1", "\\t=1"), ("\r=1", "\\r=1"), ("\uff1d1", "'\uff1d1"),
                                             ("ada", "ada"), ("a=1", "a=1")])
def test_a_gradebook_cell_is_never_a_formula(value, expected):
    assert safe_text.spreadsheet(value) == expected


def test_the_html_writers_escape_what_students_control(tmp_path):
    results = [_hostile_result(), _hostile_result("ada")]
    for html in (feedback_page(results[0]), index_page(results, ["a/x.html", "b/y.html"])):
        _no_raw_control(html, lines=False)
        assert "<script" not in html.lower()
    write_feedback_pages(results, tmp_path / "pages")
    if matplotlib_missing() is None:
        write_class_report([r for r in results], tmp_path / "report")
        _no_raw_control((tmp_path / "report" / "index.html").read_text(encoding="utf-8"), lines=False)


# --------------------------------------------------------------------------- students never see the seed

def test_what_students_see_never_holds_the_seed():
    seed = 987_654_321
    result = _hostile_result("ada")
    student_facing = [json.dumps(formats.gradescope_results(result, seed=seed)), feedback_page(result, seed),
                      classroom50.to_json(_classroom50(result)), step_summary([result]),
                      exercise_text(result.exercises[0]),
                      to_json([result])]
    assert not [text for text in student_facing if str(seed) in text]
    # The instructor's own views may name it: the class table, the index of every page.
    assert str(seed) in class_table([result], seed) and str(seed) in index_page([result], ["a.html"], seed)


def test_hidden_cases_are_described_without_their_values():
    from autograder.course import all_assignments

    # The contract's fixed edge values, sizes and formulas are not a hidden case's drawn inputs.
    allowed = re.compile(r"\(x = -?\d+(, -?\d+)+, \.\.\.\)|n = m = 100,000|H v = 0")
    for assignment in all_assignments():
        for exercise in assignment.exercises:
            for seed in (1, 2):
                for case in exercise.cases(seed):
                    text = allowed.sub("", case.description)
                    if not case.public:
                        assert not re.search(r"\b\w+ = -?\d", text), (exercise.id, case.description)


# --------------------------------------------------------------------------- the cache's keys

def test_an_entry_written_without_the_key_is_never_taken(tmp_path):
    import hashlib

    store = ReferenceCache(tmp_path / "cache")
    assert store.prepare()
    key = (tmp_path / "cache" / "key").read_bytes()
    assert len(key) == 32 and oct((tmp_path / "cache" / "key").stat().st_mode & 0o777) == "0o600"
    assert write_entry(tmp_path / "cache" / "e.json", b"data", key) and read_entry(tmp_path / "cache" / "e.json", key)
    forged = b"{}"
    (tmp_path / "cache" / "f.json").write_bytes(hashlib.sha256(forged).hexdigest().encode() + b"\n" + forged)
    assert read_entry(tmp_path / "cache" / "f.json", key) is None  # an unkeyed checksum no longer passes
    assert read_entry(tmp_path / "cache" / "e.json", b"another key of thirty-two bytes!") is None
    kept = ResultStore.inside(tmp_path / "cache")
    result = SubmissionResult("a.ipynb", "a", "custom_gradients", [ExerciseResult("log1pexp", 2.0, 2.0, "passed")])
    assert kept.save("k", result) and kept.load("k") is not None
    data = kept.path("k").read_bytes().replace(b'"passed"', b'"failed"')
    kept.path("k").write_bytes(data)  # rewritten by someone without the key
    assert kept.load("k") is None


def test_the_cache_is_refused_where_a_child_could_reach_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(reference_cache, "children_files_private", lambda: False)
    assert not ReferenceCache(tmp_path / "cache").prepare()
    assert not (tmp_path / "cache").exists()
    assert "the reference cache and the kept grades are off" in capsys.readouterr().err


def test_a_child_told_the_files_must_be_private_keeps_them_private_or_does_not_run():
    assert Containment(private_files=True).private_files and Containment().scratch == 256 * MiB
    assert Containment(memory_bytes=512 * MiB).scratch == 64 * MiB  # the scratch space is sized inside the limit


# --------------------------------------------------------------------------- what a student's child holds

@pytest.mark.slow  # imports TensorFlow
def test_the_childs_view_of_the_package_is_its_modules_files_only():
    """The files the child's private view binds back are those of CHILD_MODULES: no mistake model, no stored
    answers, nothing of the checkout around the package."""
    script = ("import json, autograder.run.child; from autograder.run.isolation import package_files, needed_paths;"
              "print(json.dumps([package_files(), needed_paths()]))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=quiet_env(), cwd=ROOT,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    files, needed = json.loads(done.stdout)
    assert files and not [f for f in files if "mistakes" in f or not f.startswith(str(ROOT / "autograder"))]
    assert not [p for p in needed if p == str(ROOT) or p.startswith(str(ROOT) + "/") and ".venv" not in p]



def test_the_files_the_fork_server_found_are_looked_for_again_once_a_module_was_imported(monkeypatch):
    """A reference's child imports its mistake models after the fork: its view must show their files."""
    from autograder.run import isolation

    monkeypatch.setattr(isolation, "_package_files", None)
    fresh = isolation.package_files()
    isolation.remember_package_files()
    assert isolation.package_files() == fresh
    monkeypatch.setitem(sys.modules, "autograder.course.custom_gradients.mistakes_stand_in", type(sys)("stand_in"))
    sys.modules["autograder.course.custom_gradients.mistakes_stand_in"].__file__ = str(ROOT / "autograder" / "x.py")
    assert isolation.package_files() == sorted([*fresh, str(ROOT / "autograder" / "x.py")])


# --------------------------------------------------------------------------- what an exercise leaves running

def test_threads_and_processes_left_running_are_counted():
    import threading

    from autograder.run.processes import tasks_of

    before = tasks_of([os.getpid()])
    stop = threading.Event()
    threads = [threading.Thread(target=stop.wait) for _ in range(40)]
    for thread in threads:
        thread.start()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert tasks_of([os.getpid()]) == before + 40
        assert tasks_of([os.getpid(), sleeper.pid]) >= before + 41
        assert tasks_of([2 ** 22 + 12345]) == 0  # a process that is gone counts nothing
    finally:
        stop.set()
        sleeper.kill()
        sleeper.wait()
        for thread in threads:
            thread.join()


def test_the_child_reads_a_virtual_environment_inside_the_checkout_but_nothing_else_of_it(tmp_path, monkeypatch):
    """A Python installed elsewhere running with the packages of a .venv inside the checkout (PYTHONPATH):
    the packages are Python's, the checkout's other folders stay out of the child's view."""
    from autograder.run import isolation

    checkout = tmp_path / "course"
    packages = checkout / ".venv" / "lib" / "python3.11" / "site-packages"
    for folder in (packages, checkout / "tests", checkout / "solutions"):
        folder.mkdir(parents=True)
    monkeypatch.setattr(isolation, "KIT_ROOT", checkout)
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "python"))
    monkeypatch.setattr(sys, "base_prefix", str(tmp_path / "python"))
    (tmp_path / "python").mkdir()
    monkeypatch.setattr(sys, "path", [str(checkout), str(checkout / "tests"), str(packages)])
    kept = isolation.needed_paths()
    assert str(packages) in kept and str(tmp_path / "python") in kept
    assert not [p for p in kept if p in (str(checkout), str(checkout / "tests"), str(checkout / "solutions"))]
