"""Issue 22, each defence on its own, fast (no child runs): the course's secret stays with the grader.

What a child is handed (its job, then one task at a time with that task's case), the order it gets them in,
which diagnostic and advisory cases can matter, what a hidden case shows, the parent's never-blocking end of a
child's socket, the one-way keys, the folders no child may see, gradebooks and Markdown. tests/test_hostile.py
proves the same end to end with attack submissions (the memory oracle, every channel), tests/test_cluster.py
over Dask and tests/test_nbgrader_hostile.py under nbgrader's contained executor.
"""
from __future__ import annotations

import csv
import io
import pickle
import socket
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from autograder.config import SetupError, Settings
from autograder.course import assignment_by_id
from autograder.judge.cases import judge_case
from autograder.judge.hidden import every_hidden_message
from autograder.judge.plan import CasePlan
from autograder.load.discover import Found
from autograder.model.course import ADVISORY, DIAGNOSTIC, Case, case_key
from autograder.model.outcomes import ErrorInfo, RunRecord, RunStatus, TaskOutcome, Value
from autograder.pipeline.grading_run import GradingRun
from autograder.pipeline.references import student_tasks
from autograder.report import lms
from autograder.report.markdown import inline, points_table
from autograder.report.step_summary import step_summary
from autograder.run.channel import Channel, FrameTooLarge
from autograder.run.handing import CaseBook, run_order
from autograder.run.hidden import in_sight, require_out_of_sight
from autograder.run.wire.case_inputs import decode_args
from autograder.run.wire.messages import MAX_MESSAGE_BYTES, loads
from helpers import ROOT, secret_forms, under_load

SEED = 5_914_706_223_489_113_027


# --------------------------------------------------------------------------- what a child is handed

def test_a_childs_job_holds_no_seed_key_case_or_folder_and_each_task_one_case(tmp_path):
    """The job the fork server hands a child (pickled, as it travels), and each task's message: the job names
    no folder of the grader's and holds nothing of the secret or the cases; a task's message holds its own case's
    inputs and no other case's."""
    notebook = ROOT / "examples" / "submitted" / "dev" / "jacobians" / "jacobians.ipynb"
    run = GradingRun(Settings(seed=SEED, cache=tmp_path / "cache", solutions=ROOT / "solutions"))
    run.plan([Found(notebook, "dev.ipynb")])
    run.prepare_references()
    (student,) = run.schedule()
    forms = secret_forms("jacobians", SEED)
    forms.update({"solutions": str(ROOT / "solutions"), "cache": str(tmp_path / "cache"), "checkout": str(ROOT)})
    job = pickle.dumps(replace(student.job, workdir="/tmp/autograder-x"), protocol=pickle.HIGHEST_PROTOCOL)
    assert not [label for label, form in forms.items() if form.encode() in job]
    assert SEED.to_bytes(8, "little") not in job and b"seed" not in job and b"hidden" not in job
    for number, task in enumerate(student.tasks):
        message = student.book.task_message(number, task)
        order = loads(message)
        assert set(order) == {"event", "task", "exercise", "case", "implementation", "args"}  # one case, nothing else
        handed, case = decode_args(order["args"]), student.book.case(task)
        assert handed.keys() == case.args.keys() and all(
            np.array_equal(handed[k], case.args[k]) if isinstance(case.args[k], np.ndarray) else handed[k] == case.args[k]
            for k in case.args if not isinstance(case.args[k], (dict, list, tuple)))
        assert str(SEED).encode() not in message


def test_public_cases_come_first_then_each_exercises_graded_diagnostic_and_advisory_cases():
    assignment = assignment_by_id("jacobians")
    cases = {e.id: e.cases(SEED) for e in assignment.exercises}
    tasks = student_tasks(assignment, cases)
    book = CaseBook(cases)
    order = [book.case(tasks[n]) for n in run_order(tasks, book)]
    public = [case.public for case in order]
    assert public == sorted(public, reverse=True) and any(public) and not all(public)
    hidden = [(tasks[n].exercise, book.case(tasks[n]).kind) for n in run_order(tasks, book)
              if not book.case(tasks[n]).public]
    phases = {"graded": 0, DIAGNOSTIC: 1, ADVISORY: 2}
    exercises = [e.id for e in assignment.exercises]
    assert hidden == sorted(hidden, key=lambda item: (exercises.index(item[0]), phases[item[1]]))
    assert {kind for _, kind in hidden} == {"graded", DIAGNOSTIC, ADVISORY}


class _Reference:
    """A run's reference as CasePlan reads it: the assignment, the cases, each case's outcome (None: not known)."""

    def __init__(self, cases, outcome):
        self.assignment, self.cases, self.outcome = assignment_by_id("jacobians"), cases, outcome


def test_a_diagnostic_case_runs_after_a_graded_failure_and_an_advisory_one_only_once_the_graded_pass():
    right = TaskOutcome(RunStatus.OK, {"jacobian": Value(np.eye(2), "EagerTensor", "float32")})
    wrong = TaskOutcome(RunStatus.OK, {"jacobian": Value(np.ones((2, 2)), "EagerTensor", "float32")})
    cases = {"jacobian": [Case("g", "g", {}), Case("d", "d", {}, kind=DIAGNOSTIC), Case("a", "a", {}, kind=ADVISORY)]}
    tasks = student_tasks(type("Assignment", (), {"exercises": [assignment_by_id("jacobians").exercise("jacobian")]}),
                          cases)
    for graded, diagnostic, advisory in ((right, False, True), (wrong, True, False)):
        plan = CasePlan(_Reference(cases, lambda exercise, index: right), tasks)
        record = RunRecord(outcomes={0: graded})
        assert (plan.wanted(0, record), plan.wanted(1, record), plan.wanted(2, record)) == (True, diagnostic, advisory)
    unknown = CasePlan(_Reference(cases, lambda exercise, index: None), tasks)
    assert unknown.wanted(1, RunRecord(outcomes={0: right}))  # the reference is not known yet: every case runs


# --------------------------------------------------------------------------- what a hidden case shows



def _verdict_message(outcome: TaskOutcome, public: bool, expected=np.zeros((2, 3))) -> str:
    exercise = assignment_by_id("jacobians").exercise("jacobian")
    case = Case("c", "c", {}, public=public)
    reference = TaskOutcome(RunStatus.OK, {exercise.outputs[0].name: Value(expected, "EagerTensor", "float32")})
    return judge_case(exercise, case, outcome, reference, frozenset()).message


@pytest.mark.parametrize("outcome", [
    TaskOutcome(RunStatus.ERROR, error=ErrorInfo("LEAK_918273645Error", "LEAK 918273645", "builtins", False,
                                                 (("<cell 918273645>", 918273645, "f", "918273645"),))),
    TaskOutcome(RunStatus.ERROR, error=ErrorInfo("ValueError", "918273645", "", False, (("<cell [3]>", 2, "f", ""),))),
    TaskOutcome(RunStatus.ERROR, error=ErrorInfo("ContractError", "got a LEAK918273645 of shape (918273645,)", "",
                                                 True)),
    TaskOutcome(RunStatus.OK, {"jacobian": Value(np.full((9, 1, 8, 2, 7), 918273645.0), "LEAK918273645", "LEAK")}),
    TaskOutcome(RunStatus.OK, {"jacobian": Value(np.full((2, 3), 918273645.0), "LEAK918273645", "float32")}),
    TaskOutcome(RunStatus.OK, {"jacobian": Value(np.ones((2, 3)), "LEAK918273645", "LEAK918273645")}),
    TaskOutcome(RunStatus.CRASHED, message="the process exited with code 918273645 before grading finished"),
    TaskOutcome(RunStatus.NOT_RUN, message="not run: an earlier case stopped (918273645)"),
], ids=["own-type", "message", "contract", "shape", "values", "type-names", "exit-code", "not-run"])
def test_a_hidden_cases_message_carries_nothing_the_code_chose_its_public_twin_does(outcome):
    hidden = _verdict_message(outcome, public=False)
    assert hidden and "918273645" not in hidden and "LEAK" not in hidden, hidden
    assert hidden in every_hidden_message()  # round four: one of the fixed kinds, no type, line or shape
    if outcome.status == RunStatus.OK and outcome.outputs["jacobian"].array.shape != (2, 3):
        assert hidden.startswith("a wrong shape or dtype")
    assert _verdict_message(outcome, public=True) != hidden  # the public twin shows the rest


# --------------------------------------------------------------------------- the parent's end of a socket

def test_the_parents_end_never_blocks_on_a_child_that_neither_reads_nor_finishes_a_message():
    mine, theirs = socket.socketpair()
    channel = Channel(mine)
    try:
        started = time.monotonic()
        channel.send(b"x" * (8 * 2**20))  # 8 MiB to a child that never reads: queued, not waited for
        assert channel.pending and time.monotonic() - started < under_load(5)  # queued: no wait for the reader
        theirs.sendall((100).to_bytes(4, "big") + b"half a message")
        assert channel.receive(1000) == [] and not channel.at_end  # half a frame: nothing yet, no wait
        theirs.sendall(b"y" * 86 + (3).to_bytes(4, "big") + b"abc")
        assert channel.receive(1000) == [b"half a message" + b"y" * 86, b"abc"]
        theirs.sendall((2**30).to_bytes(4, "big"))  # a gigabyte announced: refused before a byte of it is kept
        with pytest.raises(FrameTooLarge):
            channel.receive(MAX_MESSAGE_BYTES)
        theirs.close()
        channel.receive(2**31 - 1)
        assert channel.at_end
    finally:
        channel.close()


# --------------------------------------------------------------------------- the secret, the folders

def test_each_exercises_key_is_one_way_from_the_secret_and_draws_the_same_cases():
    assignment = assignment_by_id("higher_order")
    keys = [case_key(SEED, e.id) for e in assignment.exercises]
    assert len(set(keys)) == len(keys) and all(len(key) == 32 for key in keys)
    assert case_key(SEED, "derivatives") != case_key(SEED + 1, "derivatives")
    exercise = assignment.exercise("derivatives")
    drawn = exercise.cases_from_key(case_key(SEED, "derivatives"))
    assert [c.args["x"].tobytes() for c in drawn] == [c.args["x"].tobytes() for c in exercise.cases(SEED)]
    assert GradingRun(Settings(seed=None, cache=None)).seed.bit_length() > 40  # a fresh seed: 63 random bits


def test_solutions_a_child_could_read_stop_the_run_and_the_checkouts_do_not(tmp_path):
    assert in_sight(ROOT / "solutions") is None and in_sight(tmp_path) is None
    inside = Path(sys.prefix) / "course-solutions"
    assert in_sight(inside) and in_sight("/usr/share/course/solutions") == "/usr"
    with pytest.raises(SetupError, match="lies inside"):
        require_out_of_sight(inside, "the reference solutions folder")


# --------------------------------------------------------------------------- gradebooks and Markdown

def test_no_gradebook_cell_is_a_formula_and_a_row_whose_identifier_would_be_one_is_left_out():
    from autograder.model.results import ExerciseResult, Status, SubmissionResult

    roster = ("First name,Last name,ID number,Institution,Department,Email address,Quiz\n"
              "Ada,Lovelace,1001,Uni,CS,ada@example.edu,\n"
              "=SUM(1+1),-Eve,1003,@Uni,+CS,\"=HYPERLINK(\"\"http://x\"\")@example.com\",\n")
    results = [SubmissionResult(f"{s}.py", s, "custom_gradients", [ExerciseResult("log1pexp", 2.0, 2.0, Status.PASSED)])
               for s in ("ada", "1003")]
    filled = lms.fill_roster(lms.MOODLE, roster, results)
    rows = list(csv.reader(io.StringIO(filled.text)))
    assert [row[:4] for row in rows] == [["First name", "Last name", "ID number", "Email address"],
                                         ["Ada", "Lovelace", "1001", "ada@example.edu"]]
    assert filled.matched == {"ada": "Email address"}  # 1003's row is not written: not matched either
    assert any("left out" in note and "Email address" in note and "'=SUM(1+1)" not in note for note in filled.notes)
    for row in rows:
        assert not [cell for cell in row if cell.startswith(("=", "+", "-", "@", "\t", "\r"))], row


def test_markdown_mentions_and_issue_links_are_inert_wherever_student_text_goes():
    from autograder.model.results import ExerciseResult, Status, SubmissionResult

    text = inline("@octocat see #1 and owner/repo#2")
    assert "@octocat" not in text and "#1" not in text and "#2" not in text
    assert text.replace("\u200b", "").replace("\\", "") == "@octocat see #1 and owner/repo#2"
    result = SubmissionResult("s.py", "@octocat", "custom_gradients",
                              [ExerciseResult("log1pexp", 2.0, 2.0, Status.PASSED, summary="fixes #12")])
    for rendered in (points_table([result]), step_summary([result])):
        assert "@octocat" not in rendered and "#12" not in rendered
    assert "&#x27;" in step_summary([replace(result, student="o'hara")])  # an escape stays whole
