"""Students' self-check: the public check cells of the released notebooks.

A public check cell holds::

    from autograder.selfcheck import check
    check("derivatives")

It runs the student's function, in their own kernel, on the exercise's public
cases, compares the results with the reference's stored answers
(``autograder.public_cases``: no solutions needed) and diagnoses them with the
grader's own code, so a student reads the same words here as in their grade:
which pitfall, where in their cells, how to fix it. Public cases show their
values; the hidden cases run only when the assignment is graded.
"""
from __future__ import annotations

import html
import inspect
import os
import sys
import traceback
from textwrap import indent
from typing import Any, Callable

from autograder import static_checks
from autograder.diagnose import ExerciseEvidence, evaluate_exercise
from autograder.exercises import all_assignments
from autograder.loader import Cell, SubmissionSource, neutralise_ipython
from autograder.probing import encoded_outputs, parameters
from autograder.public_cases import load, outcome_from_json, public_cases
from autograder.sandbox import ErrorInfo, TaskOutcome
from autograder.spec import ContractError, Exercise
from autograder.wire import decode_value


class SelfCheckFailed(AssertionError):
    """A public check failed; the message is the grader's feedback on the public cases."""


def check(exercise_id: str, namespace: dict[str, Any] | None = None) -> None:
    """Check ``exercise_id`` as defined in the notebook's namespace on the public cases.

    A failure is displayed below the cell, so that "Run All" reaches the end (as otter's ``grader.check``
    displays its result). While nbgrader runs the notebook (``nbgrader validate``, ``autograde``: it sets
    ``NBGRADER_EXECUTION``), a failure raises instead, so that nbgrader records the cell as failed.
    """
    __tracebackhide__ = True  # IPython: show the message, not this module's frames
    if "autograder.child" in sys.modules:
        return  # a copy of this cell inside the grader's child: grading does its own checks
    assignment, exercise = _exercise(exercise_id)
    namespace = namespace if namespace is not None else vars(sys.modules["__main__"])
    cases = public_cases(exercise)
    stored = load(assignment)[exercise_id]
    if sorted(case.id for case in cases) != sorted(stored):
        raise RuntimeError(f"the kit's stored public answers for {exercise_id} are out of date: "
                           "reinstall the kit (instructors: python -m autograder.public_cases)")
    function = namespace.get(exercise_id)
    source = session_source(namespace)
    evidence = ExerciseEvidence(
        exercise=exercise,
        cases=cases,
        student=[_run(exercise, function, case.args) if callable(function) else None for case in cases],
        reference=[outcome_from_json(stored[case.id]["reference"]) for case in cases],
        mistakes=[[outcome_from_json(stored[case.id]["mistakes"][k]) for case in cases]
                  for k in range(len(exercise.mistakes))],
        static=static_checks.analyze(source, exercise_id),
        defined=parameters(function) if exercise_id in namespace else None,
        load_errors=[],
        source=source,
    )
    result = evaluate_exercise(evidence)
    if result.status == "passed":
        print(f"{exercise_id}: public checks passed ({len(cases)} case{'s' if len(cases) != 1 else ''}; "
              "the hidden cases run when the assignment is graded)")
        return
    pitfalls = f" [{', '.join(result.pitfalls)}]" if result.pitfalls else ""
    text = f"{exercise_id}: public checks failed{pitfalls}\n" + indent(result.feedback, "    ")
    if not os.environ.get("NBGRADER_EXECUTION"):
        _display(FailedCheck(text))
        return
    if result.status == "not-implemented":
        raise NotImplementedError(text)
    raise SelfCheckFailed(text)


class FailedCheck:
    """A failed public check as Jupyter displays it: the feedback in a red box (plain text elsewhere)."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text

    def _repr_html_(self) -> str:
        return ('<pre style="white-space: pre-wrap; border-left: 5px solid #c62828; background: #fdecea; '
                f'color: #1a1a1a; padding: 0.6em 0.9em">{html.escape(self.text)}</pre>')


def _display(value: FailedCheck) -> None:
    try:
        from IPython.display import display
    except ImportError:  # a plain Python session without IPython
        print(value.text)
        return
    display(value)  # outside a kernel, IPython's display prints the text


def _exercise(exercise_id: str) -> tuple[str, Exercise]:
    for assignment in all_assignments():
        for exercise in assignment.exercises:
            if exercise.id == exercise_id:
                return assignment.id, exercise
    raise ValueError(f"no exercise {exercise_id!r} in the course")


def _run(exercise: Exercise, function: Callable, args) -> TaskOutcome:
    """The probe, as the grader's child runs it, and its outputs as the grader's parent receives them."""
    try:
        encoded = encoded_outputs(exercise, function, args)
        return TaskOutcome("ok", outputs={name: decode_value(value) for name, value in encoded.items()})
    except Exception as error:  # noqa: BLE001  (the student's error is the finding)
        return TaskOutcome("error", error=_error_info(error))


def _error_info(error: BaseException) -> ErrorInfo:
    frames = []
    cells = _cell_numbers()
    for frame in traceback.extract_tb(error.__traceback__):
        if frame.filename in cells:
            frames.append((f"<cell [{cells[frame.filename]}]>", frame.lineno or 0, frame.name, frame.line or ""))
    return ErrorInfo(type(error).__name__, str(error), type(error).__module__ or "",
                     isinstance(error, ContractError), tuple(frames[-5:]))


def _cell_numbers() -> dict[str, int]:
    """IPython's file name of each executed cell -> its execution count ("In [7]")."""
    shell = _shell()
    mapping = getattr(getattr(shell, "compile", None), "_filename_map", None)
    return dict(mapping) if isinstance(mapping, dict) else {}


def _shell():
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()


def session_source(namespace: dict[str, Any]) -> SubmissionSource:
    """The code the kernel ran, one cell per execution ("cell 7" is In [7]), for the static checks."""
    history = namespace.get("In")
    cells = []
    if isinstance(history, list):
        for number, text in enumerate(history):
            if number and isinstance(text, str) and text.strip():
                code, _ = neutralise_ipython(text)
                cells.append(Cell(index=number, source=text, code=code))
    else:  # a plain Python session: the source of the functions themselves
        for number, value in enumerate(v for v in namespace.values() if inspect.isfunction(v)):
            try:
                text = inspect.getsource(value)
            except (OSError, TypeError):
                continue
            cells.append(Cell(index=number + 1, source=text, code=text))
    return SubmissionSource(path=None, kind="notebook", cells=cells, cell_label="cell [{}]")

