"""unwatched-tensor findings: `T.gradient(target, s)` with respect to a name `s` that tape `T` never watches.

A tape records operations on what it watches: tf.Variables by itself (unless created with
``watch_accessed_variables=False``), a tf.Tensor only after ``T.watch(...)``. A gradient with respect to a
tensor the tape never watched is None, and whatever uses it next raises or goes wrong. Only plain names are
read as sources (a list or tuple of them too); a name counts as watched when any ``T.watch(...)`` call on the
same tape names it (or a name it was plainly assigned from), and is skipped when it may hold a Variable (made
by ``tf.Variable(...)``, read from ``.trainable_variables``, ``.variables``, ``.weights``). Silence beats a
false accusation: the judge names the pitfall only when the numbers agree (a None gradient, an error on None).
"""
from __future__ import annotations

import ast

from autograder.judge.static.bodies import Bodies
from autograder.judge.static.findings import Finding
from autograder.judge.static.function import FunctionIndex, GradCall, Tape
from autograder.judge.static.syntax import tape_ref

VARIABLE_ATTRIBUTES = frozenset({"trainable_variables", "variables", "trainable_weights", "weights",
                                 "non_trainable_variables"})


def unwatched_findings(bodies: Bodies, index: FunctionIndex, grad: GradCall) -> list[Finding]:
    """The sources of a gradient call (plain names) that its tape never watches."""
    if grad.method not in ("gradient", "jacobian", "batch_jacobian"):
        return []
    sources = grad.sources
    if sources is None:
        return []
    names = [sources] if isinstance(sources, ast.Name) else (
        [e for e in sources.elts if isinstance(e, ast.Name)] if isinstance(sources, (ast.List, ast.Tuple)) else [])
    tape = grad.tape
    watched = _watched_names(index, tape)
    found = []
    for name in names:
        if _may_be_watched(index, name.id, grad.stmt, watched, set()):
            continue
        message = (f"{grad.label(index.parsed)} on line {grad.call.lineno} differentiates with respect to "
                   f"`{name.id}`, which `{tape.name}` never watches ({tape.header}, line {tape.created.lineno}): "
                   f"for a tf.Tensor it gives None; call `{tape.name}.watch({name.id})` first thing in the block")
        found.append(bodies.submission.finding(
            "unwatched-tensor", message, index.parsed, grad.call, (tape.created.lineno, grad.call.lineno),
            headline=(f"{grad.label(index.parsed)} differentiates with respect to `{name.id}`, which `{tape.name}` "
                      f"never watches: for a tf.Tensor `{name.id}` the gradient is None"),
            fix=(f"call `{tape.name}.watch({name.id})` first thing in the `{tape.header}` block (line "
                 f"{tape.created.lineno}), before anything is computed from `{name.id}`")))
    return found


def _watched_names(index: FunctionIndex, tape: Tape) -> set[str]:
    """Every name any `T.watch(...)` call on this tape mentions (anywhere in the body)."""
    names: set[str] = set()
    for stmt in index.stmts:
        for node in index.own_nodes(stmt):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "watch"
                    and tape_ref(node.func.value) is not None
                    and index.resolve_tape(tape_ref(node.func.value), stmt) is tape):
                names |= {n.id for arg in node.args for n in ast.walk(arg) if isinstance(n, ast.Name)}
    return names


def _a_parameter(index: FunctionIndex, name: str) -> bool:
    """Whether ``name`` is a parameter of this function, or of a function it is nested in that never rebinds it
    (a custom gradient's grad_fn reads the decorated function's `theta`): the caller's tensor either way."""
    own = True
    while index is not None:
        arguments = index.fn.args
        if name in {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}:
            return own or not index.assigns.get(name)
        if name in index.locals:
            return False
        index, own = index.outer, False
    return False


def _may_be_watched(index: FunctionIndex, name: str, stmt: ast.stmt, watched: set[str], seen: set[str]) -> bool:
    """Whether the tape may watch what ``name`` holds at ``stmt``: watched itself, a plain copy of a watched
    name, or possibly a Variable (which a tape watches by itself)."""
    if name in watched or name in seen:
        return True
    seen.add(name)
    reaching = index.reaching(name, stmt)
    if not reaching:  # a parameter is the caller's tensor; anything else (a match pattern, a global): unknown
        return not _a_parameter(index, name)
    for assign in reaching:
        value = assign.value
        if value is None:
            return True  # bound in a way not followed (a loop over unknown values...): stay silent
        if isinstance(value, ast.Name):
            if _may_be_watched(index, value.id, assign.stmt, watched, seen):
                return True
            continue
        if any((isinstance(n, ast.Attribute) and n.attr in VARIABLE_ATTRIBUTES | {"Variable"})
               or (isinstance(n, ast.Name) and n.id == "Variable") for n in ast.walk(value)):
            return True
    return False
