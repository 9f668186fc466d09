"""Static evidence about one exercise function: where a mistake happened.

The grader learns *that* an answer is wrong from numbers; this package tells it *where*, by reading the
student's source with ``ast`` (it never runs it and never imports TensorFlow). A finding costs no points
by itself: the grader combines it with a numeric signal. Precision therefore matters more than recall: a
correct solution, in any reasonable style, must produce no ``tape-outside-context`` or
``non-persistent-tape`` finding. Checks that cannot be sure stay silent; checks that crash are listed in
the report (``guard``).

What is read: the LAST top-level definition of the function across the runnable cells (as when the cells
run in order), the functions nested in it, and the top-level functions and objects of the submission that
it calls or references, transitively. Each finding points at the cell and line where the code is, which
may be a helper in another cell.

What it holds: ``findings`` (what is reported), ``source`` (the parsed cells, top-level definitions,
aliases, closure), ``scopes`` and ``syntax`` (Python's scoping, expression helpers), ``function`` (one
body indexed), ``bodies`` (the indexes of one reading; which calls compute a gradient), ``delegated`` (gradient
calls a helper, lambda or partial makes on a tape it is given or closes over), the checks ``cuts``,
``tape_context``, ``watching``, ``summing``, ``persistence``, ``per_example`` (the model called once per
example), ``norm_axes`` (a gradient's norm over fixed axes), ``implicit`` (unrolled solvers, untransposed
adjoints, where a custom gradient's grad_fn returns),
``norms`` (a row norm that divides by zero or squares unscaled) and ``paths`` (what the returned value is made
of), and ``guard`` (crashes, strict mode). A finding that knows its cause carries its headline and fix; the
report also lists the top-level functions the exercise calls (``reaches``: another exercise may be a cause).

May import: autograder.load, autograder.model, autograder.config (AUTOGRADER_STRICT_STATIC only), the
standard library.
"""
from __future__ import annotations

import ast
from functools import partial

from autograder.judge.static.bodies import Bodies
from autograder.judge.static.cuts import cut_findings
from autograder.judge.static.findings import Finding, FunctionReport, Reached, dedupe
from autograder.judge.static.function import FunctionIndex
from autograder.judge.static.guard import Guard, StaticCheckCrash, strict_by_default
from autograder.judge.static.implicit import IMPLICIT_EXERCISES, implicit_findings
from autograder.judge.static.norm_axes import norm_axis_findings
from autograder.judge.static.paths import path_findings
from autograder.judge.static.norms import norm_findings
from autograder.judge.static.per_example import PER_EXAMPLE_EXERCISES, first_parameter, per_example_findings
from autograder.judge.static.persistence import non_persistent_findings
from autograder.judge.static.scopes import free_names
from autograder.judge.static.source import Definition, Submission
from autograder.judge.static.summing import summed_findings
from autograder.judge.static.tape_context import outside_context_findings
from autograder.judge.static.watching import unwatched_findings
from autograder.load.cells import SubmissionSource

__all__ = ["Finding", "FunctionReport", "Reached", "StaticCheckCrash", "analyze"]


def analyze(source: SubmissionSource, function_name: str, *, strict: bool | None = None) -> FunctionReport:
    """Read the submission's source and report static evidence about ``function_name``.

    ``strict``: raise ``StaticCheckCrash`` when a check crashes, instead of listing the crash in the report
    and going on without its evidence (None: strict when AUTOGRADER_STRICT_STATIC is set).
    """
    guard = Guard(strict_by_default() if strict is None else strict)
    submission = Submission(source)
    target = submission.lookup(function_name)
    if target is None:
        return FunctionReport(function_name, False, None, None, False, False, False, ())
    bodies = Bodies(submission)
    closure = guard.run(f"closure of `{function_name}`", lambda: submission.closure(target), [target])
    flags = {"custom_gradient": False, "recompute_grad": False, "stop_gradient": False}
    # The model of per_example_gradients, which its line asks to run once on the batch; other exercises may well
    # call their first parameter (a critic, an f) once per item of a list, and rightly.
    model = first_parameter(target) if function_name in PER_EXAMPLE_EXERCISES else None
    findings: list[Finding] = []
    for definition in closure:
        name = definition.name
        for flag in flags:
            flags[flag] = flags[flag] or guard.run(f"uses of {flag} in `{name}`",
                                                   lambda: submission.uses(definition, flag), False)
        findings.extend(guard.run(f"gradient cuts in `{name}`", lambda: cut_findings(submission, definition), []))
        findings.extend(guard.run(f"per-example loops in `{name}`",
                                  lambda: per_example_findings(submission, definition, model), []))
        for index in guard.run(f"function bodies in `{name}`", lambda: bodies.of(definition), []):
            findings.extend(guard.run(f"tape checks in `{index.fn.name}` (line {index.fn.lineno})",
                                      partial(_tape_findings, bodies, index), []))
            findings.extend(guard.run(f"gradient norms in `{index.fn.name}` (line {index.fn.lineno})",
                                      partial(norm_axis_findings, submission, index), []))
    if isinstance(target.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        findings.extend(guard.run(f"the value `{function_name}` returns",
                                  partial(path_findings, bodies, bodies.index(target.node, target.parsed, None)), []))
    findings.extend(guard.run(f"norms in `{function_name}`",
                              lambda: norm_findings(submission, closure, flags["custom_gradient"]), []))
    if function_name in IMPLICIT_EXERCISES:
        findings.extend(guard.run(f"solvers and adjoints in `{function_name}`",
                                  lambda: implicit_findings(submission, closure, function_name), []))
    return FunctionReport(
        name=function_name,
        defined=True,
        cell=submission.cell_number(target.parsed),
        line=target.node.lineno,
        uses_custom_gradient=flags["custom_gradient"],
        uses_recompute_grad=flags["recompute_grad"],
        uses_stop_gradient=flags["stop_gradient"],
        findings=dedupe(findings, submission.cell_order()),
        crashes=tuple(guard.crashes),
        reaches=tuple(guard.run(f"functions `{function_name}` calls", lambda: _reached(submission, closure), [])),
    )


def _reached(submission: Submission, closure: list[Definition]) -> list[Reached]:
    """The top-level functions in a closure (but its first, the target), each with where it is first called."""
    reached = []
    for definition in closure[1:]:
        if not isinstance(definition.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for caller in closure:
            root = caller.value if caller.value is not None else caller.node
            use = next((n for n in free_names(root, frozenset()) if n.id == definition.name), None)
            if use is not None:
                found = submission.finding("", "", caller.parsed, use, ())
                reached.append(Reached(definition.name, found.cell, found.line, found.code,
                                       submission.cell_number(definition.parsed), definition.node.lineno,
                                       definition.node.end_lineno or definition.node.lineno))
                break
    return reached


def _tape_findings(bodies: Bodies, index: FunctionIndex) -> list[Finding]:
    """The tape checks of one body: each gradient call's target, then each non-persistent tape."""
    found: list[Finding] = []
    for call in [*index.calls, *bodies.delegated(index)]:
        if call.tape is not None and call.tape.blocks and not call.deferred:
            found.extend(outside_context_findings(bodies, index, call))
            found.extend(unwatched_findings(bodies, index, call))
            found.extend(summed_findings(bodies, index, call))
    for tape in index.tapes:
        if tape.persistent is False:
            found.extend(non_persistent_findings(bodies.submission, index, tape))
    return found
