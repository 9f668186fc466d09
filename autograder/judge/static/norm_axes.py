"""wrong-norm-axis findings: the norm of a gradient taken over fixed axes (`tf.norm(g, axis=-1)`,
`tf.reduce_sum(tf.square(g), axis=[1, 2, 3])`, `tf.norm(g)`), which is one norm per example for inputs of one
rank only. One norm per example is over every axis but the first, whatever the rank: over `tf.range(1,
tf.rank(g))`, or over axis 1 of `tf.reshape(g, [batch, -1])`. Evidence only: the judge names the pitfall when
the numbers match a wrong set of axes, or when a case raises on this very line.
"""
from __future__ import annotations

import ast

from autograder.judge.static.findings import Finding
from autograder.judge.static.function import FunctionIndex
from autograder.judge.static.source import snippet
from autograder.judge.static.syntax import is_tape_call, keyword

NORMS = frozenset({"norm", "euclidean_norm"})  # tf.norm, tf.linalg.norm, tf.math.reduce_euclidean_norm...
SUMS = frozenset({"reduce_sum", "sum"})  # of the squared gradient, then a square root


def norm_axis_findings(submission, index: FunctionIndex) -> list[Finding]:
    found = []
    for stmt in index.stmts:
        for node in index.own_nodes(stmt):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args):
                continue
            name = node.func.attr
            of = node.args[0] if name in NORMS or name.endswith("euclidean_norm") else (
                _squared(node.args[0]) if name in SUMS else None)
            if not (isinstance(of, ast.Name) and _is_gradient(index, of.id, stmt)):
                continue
            axis = keyword(node, "axis") if keyword(node, "axis") is not None else (
                node.args[1] if len(node.args) > 1 and name not in NORMS else None)
            if name in NORMS and axis is None and len(node.args) > 2:
                axis = node.args[2]
            fixed = _fixed_axes(axis)
            if fixed is None:
                continue
            found.append(_finding(submission, index, node, of.id, fixed))
    return found


def _squared(node: ast.expr) -> ast.expr | None:
    """g in `tf.square(g)`, `g ** 2`, `g * g`."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "square" \
            and node.args:
        return node.args[0]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        return node.left
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult) and ast.dump(node.left) == ast.dump(node.right):
        return node.left
    return None


def _is_gradient(index: FunctionIndex, name: str, stmt: ast.stmt) -> bool:
    """Whether every value a name may hold here is straight from a tape's gradient (maybe indexed)."""
    reaching = index.reaching(name, stmt)
    return bool(reaching) and all(_from_tape(assign.value) for assign in reaching)


def _from_tape(value: ast.expr | None) -> bool:
    while isinstance(value, ast.Subscript):
        value = value.value
    return is_tape_call(value)


def _fixed_axes(axis: ast.expr | None) -> str | None:
    """The axes as written when they are fixed numbers (or absent: all axes), else None (computed axes)."""
    if axis is None:
        return "all"
    if isinstance(axis, ast.Constant) and isinstance(axis.value, int):
        return str(axis.value)
    if isinstance(axis, ast.UnaryOp) and isinstance(axis.operand, ast.Constant):
        return ast.unparse(axis)
    if isinstance(axis, (ast.List, ast.Tuple)) and axis.elts and all(_fixed_axes(e) not in (None, "all")
                                                                       for e in axis.elts):
        return ast.unparse(axis)
    return None


def _finding(submission, index: FunctionIndex, call: ast.Call, gradient: str, axes: str) -> Finding:
    text = snippet(index.parsed, call)
    over = ("the whole tensor, batch included" if axes == "all" else
            f"the fixed axes {axes}" if axes.startswith(("[", "(")) else f"axis {axes} only")
    result = ("one number for the whole batch, not one norm per example" if axes == "all"
              else "one norm per example only for inputs of one rank")
    return submission.finding(
        "wrong-norm-axis",
        f"`{text}` on line {call.lineno} takes the norm of the gradient `{gradient}` over {over}: {result}",
        index.parsed, call, (call.lineno,),
        headline=(f"`{text}` (line {call.lineno}) takes the norm of the gradient over {over}, where one norm per "
                  "example is over every axis but the first, for vectors and images alike"),
        fix=(f"on line {call.lineno}, take one norm per example over every axis but the first: "
             f"`tf.norm(tf.reshape({gradient}, [tf.shape({gradient})[0], -1]), axis=1)`"))
