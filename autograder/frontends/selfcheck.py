"""Students' self-check: the public check cells of the released notebooks.

A public check cell holds::

    from autograder.selfcheck import check
    check("derivatives")

It runs the student's function, in their own kernel, on the exercise's public
cases (the probe the grader's child runs), compares the results with the
reference's stored answers (``public_answers``: no solutions needed) and judges
them with the grader's own ``judge.evaluate``, so a student reads the same words
here as in their grade: which pitfall, where in their cells, how to fix it.
Public cases show their values; the hidden cases run only when the assignment
is graded.
"""
from __future__ import annotations

import html
import inspect
import sys
from textwrap import indent
from typing import Any

from autograder import supported
from autograder.config import variable
from autograder.course import find_exercise
from autograder.frontends.public_answers import public_cases, stored_outcomes
from autograder.judge import static
from autograder.judge.evaluate import evaluate_exercise, evaluate_exercises
from autograder.judge.evidence import ExerciseEvidence
from autograder.load.cells import Cell, SubmissionSource
from autograder.load.ipython import neutralise_ipython
from autograder.model.results import Status
from autograder.report.feedback_text import feedback_text
from autograder.run.probe import parameters, probe_outcome
from autograder.run.wire.records import decode_outcome

CHILD_MODULE = "autograder.run.child"  # imported in the grader's children only


class SelfCheckFailed(AssertionError):
    """A public check failed; the message is the grader's feedback on the public cases."""


def check(exercise_id: str, namespace: dict[str, Any] | None = None) -> None:
    """Check ``exercise_id`` as defined in the notebook's namespace on the public cases.

    A failure is displayed below the cell, so that "Run All" reaches the end (as otter's ``grader.check``
    displays its result). While nbgrader runs the notebook (``nbgrader validate``, ``autograde``: it sets
    ``NBGRADER_EXECUTION``), a failure raises instead, so that nbgrader records the cell as failed.
    """
    __tracebackhide__ = True  # IPython: show the message, not this module's frames
    if CHILD_MODULE in sys.modules:
        return  # a copy of this cell inside the grader's child: grading does its own checks
    assignment, exercise = find_exercise(exercise_id)
    if unsupported := supported.import_tensorflow()[1]:  # one line with the fix, never a traceback
        if variable("NBGRADER_EXECUTION"):
            raise supported.UnsupportedTensorFlow(unsupported)
        print(f"{exercise_id}: public checks not run: {unsupported}")
        return
    namespace = namespace if namespace is not None else vars(sys.modules["__main__"])
    source = session_source(namespace)
    evidence = public_evidence(assignment.id, exercise, namespace, source)
    result = evaluate_exercise(evidence)
    if result.status != Status.PASSED:
        # Another of the student's exercises that this one calls may be the cause: judged on its public cases too,
        # as grading judges them together.
        called = [e for e in assignment.exercises if e.id in {r.name for r in evidence.static.reaches}
                  and e.id != exercise_id and callable(namespace.get(e.id))]
        if called:
            results = evaluate_exercises([public_evidence(assignment.id, e, namespace, source) for e in called]
                                         + [evidence])
            result = results[-1]
    if result.status == Status.PASSED:
        print(f"{exercise_id}: public checks passed ({len(evidence.cases)} case{'s' if len(evidence.cases) != 1 else ''}; "
              "the hidden cases run when the assignment is graded)")
        return
    pitfalls = f" [{', '.join(result.pitfalls)}]" if result.pitfalls else ""
    text = f"{exercise_id}: public checks failed{pitfalls}\n" + indent(feedback_text(result), "    ")
    if not variable("NBGRADER_EXECUTION"):
        _display(FailedCheck(text))
        return
    if result.status == Status.NOT_IMPLEMENTED:
        raise NotImplementedError(text)
    raise SelfCheckFailed(text)


def public_evidence(assignment_id: str, exercise, namespace: dict[str, Any], source: SubmissionSource):
    """An exercise's function, as the namespace defines it, run on the public cases: the evidence to judge."""
    cases = public_cases(exercise)
    reference, mistakes = stored_outcomes(assignment_id, exercise, cases)
    function = namespace.get(exercise.id)
    cells = _cell_numbers()

    def student_file(filename: str) -> str | None:
        return f"<cell [{cells[filename]}]>" if filename in cells else None

    return ExerciseEvidence(
        exercise=exercise,
        cases=cases,
        student=[decode_outcome(probe_outcome(exercise, function, case.args, student_file, catch=Exception))
                 if callable(function) else None for case in cases],
        reference=reference,
        mistakes=mistakes,
        static=static.analyze(source, exercise.id),
        defined=parameters(function) if exercise.id in namespace else None,
        load_errors=[],
        source=source,
    )


class FailedCheck:
    """A failed public check as Jupyter displays it: the feedback in a red box (plain text elsewhere)."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text

    def _repr_html_(self) -> str:
        # Lines wrap between words: JupyterLab's output CSS (`.jp-OutputArea-output pre`) sets `word-break:
        # break-all`, which the box overrides; a word longer than the line (a path) may still break.
        return ('<pre style="white-space: pre-wrap; word-break: normal; overflow-wrap: break-word; '
                'border-left: 5px solid #c62828; background: #fdecea; '
                f'color: #1a1a1a; padding: 0.6em 0.9em">{html.escape(self.text)}</pre>')


def _display(value: FailedCheck) -> None:
    try:
        from IPython.display import display
    except ImportError:  # a plain Python session without IPython
        print(value.text)
        return
    display(value)  # outside a kernel, IPython's display prints the text


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
