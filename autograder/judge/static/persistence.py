"""non-persistent-tape findings: a second gradient/jacobian call on one path through a non-persistent tape's
function, or a jacobian without pfor (which needs a persistent tape in eager mode).

The path analysis follows the structured control flow of the body (if, loops, try, match, with) and keeps,
for each way out of a block (falling through, return, break, continue), the longest sequence of calls on the
tape that can run along it. Two calls on one path is the RuntimeError TensorFlow raises.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from autograder.judge.static.findings import Finding
from autograder.judge.static.function import FunctionIndex, GradCall, Tape
from autograder.judge.static.source import Submission
from autograder.judge.static.syntax import keyword


@dataclass
class Paths:
    """The longest sequence of calls on one tape along each way out of a block of statements."""

    fall: tuple | None = ()
    ret: tuple | None = None
    brk: tuple | None = None
    cont: tuple | None = None


def longest(*paths: tuple | None) -> tuple | None:
    present = [p for p in paths if p is not None]
    return max(present, key=len) if present else None


def plus(path: tuple | None, extra: tuple | None) -> tuple | None:
    return None if path is None or extra is None else path + extra


def non_persistent_findings(submission: Submission, index: FunctionIndex, tape: Tape) -> list[Finding]:
    """The findings on one tape created with `persistent=False` (or without `persistent`)."""
    found: list[Finding] = []
    mine = [c for c in index.calls if c.tape is tape and not c.deferred]
    created = f"`{tape.header}` on line {tape.created.lineno}"

    def report(message: str, call: GradCall, related: tuple[int, ...]) -> None:
        found.append(submission.finding("non-persistent-tape", message, index.parsed, call.call, related))

    for call in mine:
        pfor = keyword(call.call, "experimental_use_pfor")
        if (call.method != "gradient" and isinstance(pfor, ast.Constant) and pfor.value is False):
            report(f"`{tape.name}.{call.method}(..., experimental_use_pfor=False)` on line {call.call.lineno} "
                   f"needs a persistent tape in eager mode, but {created} is not persistent: "
                   "TensorFlow raises a RuntimeError (\"GradientTape must be created with persistent=True ...\"); "
                   "create it with `persistent=True`",
                   call, (call.call.lineno, tape.created.lineno))
    if not mine:
        return found
    by_stmt: dict[int, list[GradCall]] = {}
    for call in mine:
        by_stmt.setdefault(id(call.stmt), []).append(call)
    ways = paths(index, index.fn.body, tape, by_stmt)
    calls = longest(ways.fall, ways.ret) or ()
    if len(calls) >= 2:
        first, second = calls[0], calls[1]
        if first is second:
            text = (f"`{tape.name}.{second.method}(...)` on line {second.call.lineno} runs more than once "
                    f"(in a loop) on `{tape.name}`, which is not persistent ({created})")
            related = (second.call.lineno, tape.created.lineno)
        else:
            text = (f"`{tape.name}.{second.method}(...)` on line {second.call.lineno} is the second call "
                    f"on `{tape.name}` (the first is on line {first.call.lineno}), which is not persistent "
                    f"({created})")
            related = (second.call.lineno, first.call.lineno, tape.created.lineno)
        report(f"{text}: TensorFlow raises a RuntimeError (\"A non-persistent GradientTape can only be used to "
               f"compute one set of gradients\"); create the tape with `persistent=True`", second, related)
    return found


def paths(index: FunctionIndex, body: list[ast.stmt], tape: Tape, by_stmt: dict[int, list[GradCall]]) -> Paths:
    """Longest call sequences on the tape through a block, by way out (fall through, return, break...)."""
    out = Paths(fall=(), ret=None)
    for stmt in body:
        current = out.fall
        if current is None:
            break
        own: tuple = ()
        for call in by_stmt.get(id(stmt), []):
            own += (call, call) if call.repeated else (call,)
        current = current + own
        if isinstance(stmt, (ast.Return, ast.Raise)):
            out.ret, out.fall = longest(out.ret, current), None
        elif isinstance(stmt, ast.Break):
            out.brk, out.fall = longest(out.brk, current), None
        elif isinstance(stmt, ast.Continue):
            out.cont, out.fall = longest(out.cont, current), None
        elif isinstance(stmt, ast.If):
            yes, no = paths(index, stmt.body, tape, by_stmt), paths(index, stmt.orelse, tape, by_stmt)
            out.fall = longest(plus(current, yes.fall), plus(current, no.fall))
            _merge_exits(out, current, yes, no)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            inner = paths(index, stmt.body, tape, by_stmt)
            out.fall = plus(current, inner.fall)
            _merge_exits(out, current, inner)
        elif isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
            inner = paths(index, stmt.body, tape, by_stmt)
            once = longest(inner.fall, inner.cont)
            repeats = not index.contains(stmt, tape.created)
            normal = current + (once or ()) + ((once or ()) if repeats else ())
            before_last = current + ((once or ()) if repeats else ())
            orelse = paths(index, stmt.orelse, tape, by_stmt)
            out.fall = longest(plus(normal, orelse.fall), plus(before_last, inner.brk))
            out.ret = longest(out.ret, plus(before_last, inner.ret), plus(normal, orelse.ret))
            out.brk = longest(out.brk, plus(normal, orelse.brk))
            out.cont = longest(out.cont, plus(normal, orelse.cont))
        elif isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
            body_paths = paths(index, stmt.body, tape, by_stmt)
            partial = current + (longest(body_paths.fall, body_paths.ret, body_paths.brk, body_paths.cont) or ())
            branches = [paths(index, h.body, tape, by_stmt) for h in stmt.handlers]
            orelse = paths(index, stmt.orelse, tape, by_stmt)
            final = paths(index, stmt.finalbody, tape, by_stmt).fall or ()
            fall = longest(plus(plus(current, body_paths.fall), orelse.fall),
                           *(plus(partial, b.fall) for b in branches))
            out.fall = plus(fall, final)
            _merge_exits(out, current, body_paths)
            for branch in branches:
                _merge_exits(out, partial, branch)
            _merge_exits(out, plus(current, body_paths.fall) or current, orelse)
        elif type(stmt).__name__ == "Match":
            cases = [paths(index, case.body, tape, by_stmt) for case in stmt.cases]
            out.fall = longest(current, *(plus(current, c.fall) for c in cases))
            _merge_exits(out, current, *cases)
        else:
            out.fall = current
    return out


def _merge_exits(out: Paths, current: tuple, *inners: Paths) -> None:
    for inner in inners:
        out.ret = longest(out.ret, plus(current, inner.ret))
        out.brk = longest(out.brk, plus(current, inner.brk))
        out.cont = longest(out.cont, plus(current, inner.cont))
