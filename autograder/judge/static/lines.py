"""The line a named mistake sits on, found by what it looks like (``model.pitfalls.Look``).

The judge names a mistake from numbers; when no check of the static reading located it, this finds its line by
the mistake's look: a regular expression over the lines of the exercise's function and of the functions it
calls (comments and docstrings left out), or a place by its role (the `def`, the last `return`, the line that
computes the returned value, what a custom gradient's grad_fn returns). A look points at a line only when it
names exactly one: a pattern that several lines match gives no place, but the lines to look at.
"""
from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass

from autograder.judge.static.source import Definition, Parsed, Submission
from autograder.load.cells import SubmissionSource

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
ROLES = ("@def", "@return", "@value", "@grad_fn", "@unwatched_tape")
IN_LOOPS = "@loop "  # a pattern after this prefix is searched only in the bodies of `for` and `while` loops


@dataclass(frozen=True)
class Line:
    """One line of the student's code: its cell (None in a .py file), number and text."""

    cell: int | None
    line: int
    code: str


@dataclass(frozen=True)
class Located:
    """What a look found: the one line it names, or the lines it could be (several matched)."""

    line: Line | None = None
    candidates: tuple[Line, ...] = ()


def locate(source: SubmissionSource, function_name: str, patterns: tuple[str, ...]) -> Located:
    """The first of ``patterns`` that names exactly one line of ``function_name`` and what it calls; else the
    lines the first pattern that matched several found."""
    if not patterns or source.problem is not None:
        return Located()
    submission = Submission(source)
    target = submission.lookup(function_name)
    if target is None or not isinstance(target.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return Located()
    closure = [d for d in submission.closure(target) if isinstance(d.node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                             ast.ClassDef))]
    several: tuple[Line, ...] = ()
    for pattern in patterns:
        if pattern == "@unwatched_tape":
            found = _unwatched_tapes(submission, closure)
        elif pattern in ROLES:
            found = _role(submission, target, pattern)
        else:
            found = _matching(submission, closure, pattern)
        if len(found) == 1:
            return Located(found[0])
        if found and not several:
            several = tuple(found[:5])
    return Located(None, several)


# --------------------------------------------------------------------------- regular expressions

def _matching(submission: Submission, closure: list[Definition], pattern: str) -> list[Line]:
    """Every line of the closure's definitions (the target's first) whose code matches ``pattern`` (with the
    ``IN_LOOPS`` prefix: only the lines inside a loop's body)."""
    in_loops = pattern.startswith(IN_LOOPS)
    try:
        expression = re.compile(pattern[len(IN_LOOPS):] if in_loops else pattern)
    except re.error:
        return []
    found: list[Line] = []
    for definition in closure:
        code = _code_lines(definition.parsed)
        first = min([definition.node.lineno, *(d.lineno for d in getattr(definition.node, "decorator_list", []))])
        last = definition.node.end_lineno or definition.node.lineno
        numbers = _loop_lines(definition.node) if in_loops else range(first, last + 1)
        for number in numbers:
            text = code.get(number, "")
            if text.strip() and expression.search(text):
                found.append(_line(submission, definition.parsed, number))
    return found


def _loop_lines(node: ast.AST) -> list[int]:
    """The lines of the bodies of the `for` and `while` loops in ``node``, in order."""
    lines: set[int] = set()
    for loop in ast.walk(node):
        if isinstance(loop, (ast.For, ast.AsyncFor, ast.While)) and loop.body:
            lines.update(range(loop.body[0].lineno, (loop.body[-1].end_lineno or loop.body[-1].lineno) + 1))
    return sorted(lines)


def _unwatched_tapes(submission: Submission, closure: list[Definition]) -> list[Line]:
    """The `with tf.GradientTape() as T:` lines whose function never calls `T.watch(...)`."""
    found: list[Line] = []
    for definition in closure:
        functions = [n for n in ast.walk(definition.node) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        for fn in functions:
            watched = {n.func.value.id for n in ast.walk(fn) if isinstance(n, ast.Call)
                       and isinstance(n.func, ast.Attribute) and n.func.attr == "watch"
                       and isinstance(n.func.value, ast.Name)}
            for node in _own_nodes(fn):
                if not isinstance(node, (ast.With, ast.AsyncWith)):
                    continue
                for item in node.items:
                    context, name = item.context_expr, item.optional_vars
                    if submission.aliases.is_tape_constructor(context) and isinstance(name, ast.Name) \
                            and name.id not in watched:
                        found.append(_line(submission, definition.parsed, node.lineno))
    return sorted(set(found), key=lambda line: found.index(line))


def _own_nodes(fn: FunctionNode):
    """The nodes of ``fn``'s body, not those of the functions nested in it."""
    stack = list(fn.body)
    while stack:
        node = stack.pop()
        yield node
        stack.extend(child for child in ast.iter_child_nodes(node)
                     if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)))


def _code_lines(parsed: Parsed) -> dict[int, str]:
    """A cell's lines without comments, docstrings and the text of strings (a pattern means code)."""
    lines = parsed.cell.code.splitlines()
    kept = {n: list(text) for n, text in enumerate(lines, start=1)}
    try:
        for token in tokenize.generate_tokens(io.StringIO(parsed.cell.code).readline):
            if token.type in (tokenize.COMMENT, tokenize.STRING):
                (row, col), (end_row, end_col) = token.start, token.end
                for number in range(row, end_row + 1):
                    chars = kept.get(number)
                    if chars is None:
                        continue
                    start = col if number == row else 0
                    stop = end_col if number == end_row else len(chars)
                    keep = 1 if token.type == tokenize.STRING and number == row else 0  # '' stays an operand
                    for k in range(start + keep, min(stop, len(chars)) - keep):
                        chars[k] = " "
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return {n: "".join(chars) for n, chars in kept.items()}


def _line(submission: Submission, parsed: Parsed, number: int) -> Line:
    lines = parsed.lines
    code = lines[number - 1].strip() if 0 < number <= len(lines) else ""
    return Line(submission.cell_number(parsed), number, code)


# --------------------------------------------------------------------------- places by their role

def _role(submission: Submission, target: Definition, role: str) -> list[Line]:
    fn = target.node
    parsed = target.parsed
    if role == "@def":
        return [_line(submission, parsed, fn.lineno)]
    if role == "@return":
        returns = _own_returns(fn)
        return [_line(submission, parsed, returns[-1].lineno)] if returns else []
    custom = _custom_gradient_function(fn)
    if role == "@grad_fn":
        if custom is None:
            return []
        body, grad = custom
        if isinstance(grad, ast.Lambda):
            return [_line(submission, parsed, grad.body.lineno)]
        returns = _own_returns(grad)
        return [_line(submission, parsed, returns[-1].lineno)] if returns else []
    if role == "@value":
        function, value = (custom[0], _returned(custom[0])[0]) if custom is not None else (fn, _last_value(fn))
        if value is None:
            return []
        return [_line(submission, parsed, _assigned_at(function, value))]
    return []


def _own_returns(fn: FunctionNode) -> list[ast.Return]:
    """The `return` statements of ``fn`` itself (not of the functions nested in it), in order."""
    found: list[ast.Return] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                continue
            if isinstance(child, ast.Return):
                found.append(child)
            visit(child)

    visit(fn)
    return sorted(found, key=lambda r: r.lineno)


def _returned(fn: FunctionNode) -> list[ast.expr | None]:
    """The elements of the last `return a, b` of ``fn``, or [value] for a plain return."""
    returns = _own_returns(fn)
    value = returns[-1].value if returns else None
    if isinstance(value, ast.Tuple):
        return list(value.elts)
    return [value]


def _custom_gradient_function(fn: FunctionNode) -> tuple[FunctionNode, FunctionNode | ast.Lambda] | None:
    """The function (``fn`` or one nested in it) that returns ``(value, grad_fn)``, and its grad_fn."""
    for node in ast.walk(fn):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        returned = _returned(node)
        if len(returned) != 2:
            continue
        grad = returned[1]
        if isinstance(grad, ast.Lambda):
            return node, grad
        if isinstance(grad, ast.Name):
            nested = next((n for n in ast.walk(node) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                           and n is not node and n.name == grad.id), None)
            if nested is not None:
                return node, nested
    return None


def _last_value(fn: FunctionNode) -> ast.expr | None:
    returned = _returned(fn)
    return returned[0] if len(returned) == 1 else None


def _assigned_at(fn: FunctionNode, value: ast.expr) -> int:
    """The line that computes ``value``: a name's last plain assignment in ``fn`` before it is returned (one step
    back), else the expression's own line."""
    if isinstance(value, ast.Name):
        assigns = [node for node in ast.walk(fn) if isinstance(node, ast.Assign) and node.lineno <= value.lineno
                   and any(isinstance(t, ast.Name) and t.id == value.id for t in node.targets)]
        if assigns:
            return max(assigns, key=lambda a: a.lineno).lineno
    return value.lineno
