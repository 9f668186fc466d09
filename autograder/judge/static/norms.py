"""nan-at-zero, unstable-value and unstable-gradient evidence: where a norm divides by zero or squares unscaled.

A row-wise norm goes wrong in three places that show in code: a sum of squares of unscaled entries (it
overflows float32 for entries near 1e30 and underflows for entries near 1e-30: in the value, or in a grad_fn
that recomputes the norm), a division by a norm or a scale that is 0 for an all-zero row (0 / 0 = NaN), and,
without ``@tf.custom_gradient``, the automatic gradient of ``tf.norm`` or ``tf.sqrt`` itself (NaN at a zero
row). These are evidence only: a correct solution may well contain such code (a ``tf.norm`` of rows already
scaled, a division kept out of a ``tf.where`` branch that is not taken), and the judge names the pitfall
only when the numbers do. A division counts as guarded when it sits inside ``tf.where`` or
``tf.math.divide_no_nan``, or when its denominator (or a name it is assigned from) comes from ``tf.where``,
``tf.maximum``, ``tf.clip_by_value`` or adds a constant.
"""
from __future__ import annotations

import ast
from typing import Iterator

from autograder.judge.static.findings import Finding
from autograder.judge.static.source import Definition, Submission, snippet
from autograder.judge.static.syntax import call_name

NORM_CALLS = frozenset({"norm", "reduce_euclidean_norm", "l2_normalize", "normalize", "global_norm"})
ROOT_CALLS = frozenset({"sqrt", "rsqrt"})
DIVIDE_CALLS = frozenset({"divide", "truediv", "realdiv", "true_divide", "div"})
GUARD_CALLS = frozenset({"where", "maximum", "clip_by_value", "divide_no_nan", "select", "clip"})
SUM_CALLS = frozenset({"reduce_sum", "sum", "einsum", "tensordot", "dot", "matmul"})
SQUARE_CALLS = frozenset({"square", "pow", "power"})

FunctionNode = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def norm_findings(submission: Submission, closure: list[Definition], custom_gradient: bool) -> list[Finding]:
    """The three kinds of evidence in every definition the exercise reaches."""
    found: list[Finding] = []
    for definition in closure:
        root = definition.value if definition.value is not None else definition.node
        reading = _Reading(submission, definition, root)
        for node in ast.walk(root):
            argument = _norm_argument(reading, node)
            if argument is not None and not any(_divides(n) for n in reading.sources(argument)):
                inside = id(node) in reading.grad_nodes
                found.append(reading.finding("unstable-gradient" if inside else "unstable-value", node, (
                    f"`{reading.text(node)}` on line {node.lineno} squares entries that are not scaled"
                    + (" inside grad_fn: x / inf = 0 for entries near 1e30, x / 0 = inf for entries near 1e-30"
                       if inside else ": the sum overflows float32 for entries near 1e30 (inf) and underflows "
                       "for entries near 1e-30 (0)"))))
            if argument is not None and not custom_gradient:
                found.append(reading.finding("nan-at-zero", node, (
                    f"the automatic gradient of `{reading.text(node)}` on line {node.lineno} divides by the "
                    "norm: 0 / 0 = NaN for an all-zero row")))
            denominator = _denominator(node)
            if denominator is not None and not reading.guarded(node, denominator):
                found.append(reading.finding("nan-at-zero", node, (
                    f"`{reading.text(node)}` on line {node.lineno} divides by `{reading.text(denominator)}`, which "
                    "is 0 for an all-zero row: 0 / 0 = NaN")))
    return found


class _Reading:
    """One definition read for the checks: its grad_fn bodies, its assignments by name, its parents."""

    def __init__(self, submission: Submission, definition: Definition, root: ast.AST):
        self.submission = submission
        self.definition = definition
        self.parent: dict[int, ast.AST] = {}
        self.assigned: dict[str, list[ast.expr]] = {}
        for node in ast.walk(root):
            for child in ast.iter_child_nodes(node):
                self.parent[id(child)] = node
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        self.assigned.setdefault(target.id, []).append(node.value)
        self.grad_nodes = {id(inner) for function in _custom_functions(submission, root)
                           for nested in ast.walk(function) if isinstance(nested, FunctionNode) and nested is not function
                           for inner in ast.walk(nested)}

    def text(self, node: ast.AST) -> str:
        return snippet(self.definition.parsed, node)

    def finding(self, pitfall: str, node: ast.AST, message: str) -> Finding:
        return self.submission.finding(pitfall, message, self.definition.parsed, node, (node.lineno,))

    def ancestors(self, node: ast.AST) -> Iterator[ast.AST]:
        up = self.parent.get(id(node))
        while up is not None:
            yield up
            up = self.parent.get(id(up))

    def sources(self, expr: ast.AST, depth: int = 1) -> Iterator[ast.AST]:
        """The expression's nodes, and those of what its names were assigned (``depth`` levels)."""
        for node in ast.walk(expr):
            yield node
            if depth and isinstance(node, ast.Name):
                for value in self.assigned.get(node.id, []):
                    yield from self.sources(value, depth - 1)

    def guarded(self, division: ast.AST, denominator: ast.expr) -> bool:
        if any(isinstance(up, ast.Call) and call_name(up) in ("where", "divide_no_nan", "select")
               for up in self.ancestors(division)):
            return True
        return any((isinstance(node, ast.Call) and (call_name(node) in GUARD_CALLS or self.guarding_helper(node)))
                   or (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add)
                       and (_constant(node.left) or _constant(node.right)))
                   for node in self.sources(denominator))

    def guarding_helper(self, call: ast.Call) -> bool:
        """A call of the submission's own function whose code guards (`_nonzero(n)` with a tf.where inside)."""
        helper = self.submission.lookup(call.func.id) if isinstance(call.func, ast.Name) else None
        return helper is not None and helper.value is None and any(
            isinstance(n, ast.Call) and call_name(n) in GUARD_CALLS for n in ast.walk(helper.node))


def _custom_functions(submission: Submission, root: ast.AST) -> list[ast.AST]:
    """Functions decorated with @tf.custom_gradient (any spelling), or passed to a custom_gradient(...) call."""
    found, passed = [], set()
    for node in ast.walk(root):
        if isinstance(node, ast.Call) and _is_custom_gradient(submission, node.func):
            passed |= {arg.id for arg in node.args if isinstance(arg, ast.Name)}
    for node in ast.walk(root):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                node.name in passed or any(_is_custom_gradient(submission, d.func if isinstance(d, ast.Call) else d)
                                           for d in node.decorator_list)):
            found.append(node)
    return found


def _is_custom_gradient(submission: Submission, func: ast.expr) -> bool:
    if isinstance(func, ast.Attribute):
        return func.attr == "custom_gradient"
    return isinstance(func, ast.Name) and submission.aliases.means(func.id, "custom_gradient")


def _denominator(node: ast.AST) -> ast.expr | None:
    """What a division divides by (`a / b`, `tf.math.divide(a, b)`), unless it is a literal."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        denominator = node.right
    elif isinstance(node, ast.Call) and call_name(node) in DIVIDE_CALLS and len(node.args) == 2:
        denominator = node.args[1]
    else:
        return None
    return None if _constant(denominator) or _shape_like(denominator) else denominator


def _divides(node: ast.AST) -> bool:
    """A division of any kind: the entries it produces are scaled."""
    return _denominator(node) is not None or (isinstance(node, ast.Call) and call_name(node) == "divide_no_nan")


def _norm_argument(reading: _Reading, node: ast.AST) -> ast.expr | None:
    """What a norm (`tf.norm(a)`, or a root of a sum of squares, `tf.sqrt(tf.reduce_sum(a ** 2))`) is taken of."""
    if not (isinstance(node, ast.Call) and node.args):
        return None
    name = call_name(node)
    if name in NORM_CALLS:
        return node.args[0]
    if name in ROOT_CALLS and any(_is_square_sum(n) for n in reading.sources(node.args[0])):
        return node.args[0]
    return None


def _is_square_sum(node: ast.AST) -> bool:
    if not (isinstance(node, ast.Call) and call_name(node) in SUM_CALLS):
        return False
    return any((isinstance(n, ast.Call) and call_name(n) in SQUARE_CALLS)
               or (isinstance(n, ast.BinOp) and isinstance(n.op, ast.Pow))
               or (isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult) and ast.dump(n.left) == ast.dump(n.right))
               for n in ast.walk(node))


def _constant(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp):
        return _constant(node.operand)
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float))


def _shape_like(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and call_name(node) in ("len", "size", "cast") and any(
        isinstance(n, ast.Attribute) and n.attr in ("shape", "size") for n in ast.walk(node))
