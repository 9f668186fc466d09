"""gradient-cut findings: `.numpy()`, float()/int(), integer casts, NumPy calls and stop_gradient in the code.

A cut is reported wherever it is written (prints, logging and asserts aside); whether it matters is for the
numbers to say.
"""
from __future__ import annotations

import ast

from autograder.judge.static.findings import Finding
from autograder.judge.static.source import Definition, Parsed, Submission, snippet
from autograder.judge.static.syntax import attribute_chain, call_name, keyword

INT_DTYPES = frozenset({"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"})
# Attributes and calls that mark an expression as shape arithmetic (Python ints, never differentiated).
SHAPE_ATTRS = frozenset({"shape", "ndim", "rank", "size", "dtype", "get_shape", "num_elements", "__len__"})
SHAPE_CALLS = frozenset({"len", "range"})
# NumPy functions that build arrays from shapes or scalars, not from tensor data.
NP_SKIPPED = frozenset({
    "zeros", "ones", "empty", "full", "arange", "linspace", "logspace", "eye", "identity", "random",
    "testing", "dtype", "finfo", "iinfo", "seterr", "errstate", "set_printoptions", "printoptions",
    "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool_", "complex64",
    "complex128", "result_type", "promote_types", "issubdtype",
})
# Calls whose arguments are only shown, never differentiated (prints, logging, asserts).
QUIET_CALLS = frozenset({"print", "debug", "info", "warning", "warn"})


def cut_findings(submission: Submission, definition: Definition) -> list[Finding]:
    """The cuts in a definition's code (for module-level objects: in their lambdas, the code that runs later)."""
    if definition.value is not None:
        roots = [n for n in ast.walk(definition.value) if isinstance(n, ast.Lambda)]
    else:
        roots = [definition.node]
    found: list[Finding] = []
    for root in roots:
        _scan(submission, root, definition.parsed, False, found)
    return found


def _scan(submission: Submission, node: ast.AST, parsed: Parsed, quiet: bool, found: list[Finding]) -> None:
    if isinstance(node, (ast.Assert, ast.JoinedStr)):
        quiet = True
    if isinstance(node, ast.Call):
        if not quiet:
            message = _message(submission, node, parsed)
            if message:
                headline, fix = _cause_and_fix(submission, node, parsed)
                found.append(submission.finding("gradient-cut", message, parsed, node, (node.lineno,),
                                                headline=headline, fix=fix))
        name = call_name(node)
        if name in QUIET_CALLS:
            quiet = True
    for child in ast.iter_child_nodes(node):
        _scan(submission, child, parsed, quiet, found)


def _message(submission: Submission, call: ast.Call, parsed: Parsed) -> str | None:
    """The message of a cut (which names the call's line, only), or None when the call is no cut."""
    func = call.func
    line = call.lineno
    text = _Lazy(lambda: snippet(parsed, call))
    if isinstance(func, ast.Attribute) and func.attr == "numpy" and not call.args and not call.keywords:
        return (f"`{text}` on line {line} turns the tensor into a NumPy array: "
                "the tape cannot see through it")
    if isinstance(func, ast.Attribute) and func.attr in ("predict", "predict_on_batch") and call.args:
        return (f"`{text}` on line {line} runs the Keras model outside the tape and returns a NumPy array: the "
                "tape cannot see through it; call the model itself, `model(x)`")
    if (isinstance(func, ast.Name) and func.id in ("float", "int") and len(call.args) == 1
            and not _is_literal(call.args[0]) and not _is_shape_like(call.args[0])):
        return (f"`{text}` on line {line} turns the value into a Python number: "
                "the tape cannot see through it")
    if isinstance(func, ast.Attribute) and func.attr == "cast":
        dtype = call.args[1] if len(call.args) > 1 else keyword(call, "dtype")
        if dtype is not None and _is_int_dtype(dtype):
            return (f"`{text}` on line {line} casts to an integer type: "
                    "integer tensors carry no gradient")
    if isinstance(func, ast.Attribute):
        chain = attribute_chain(func)
        if (chain and chain[0] in submission.aliases.numpy and len(chain) > 1
                and not any(part in NP_SKIPPED for part in chain[1:])
                and any(not _is_literal(a) and not _is_shape_like(a) for a in call.args)):
            return (f"`{text}` on line {line} computes with NumPy, outside TensorFlow: "
                    "the tape cannot see through it")
    if submission.aliases.is_stop_gradient(func):
        return (f"`{text}` on line {line} blocks the gradient through its argument: "
                "right only where that value must stay constant")
    return None


def _cause_and_fix(submission: Submission, call: ast.Call, parsed: Parsed) -> tuple[str, str]:
    """The headline and the fix of a cut ``_message`` reported, about its own line."""
    func = call.func
    text = snippet(parsed, call)
    line = call.lineno
    if isinstance(func, ast.Attribute) and func.attr == "numpy":
        return (f"`{text}` (line {line}) turns a tensor into a NumPy array, so the gradient stops there",
                f"drop `.numpy()` on line {line} and keep TensorFlow ops on the tensor (turn it into NumPy only "
                "after the last gradient is taken)")
    if isinstance(func, ast.Name) and func.id in ("float", "int"):
        return (f"`{text}` (line {line}) turns the value into a Python number, so the gradient stops there",
                f"drop `{func.id}(...)` on line {line} and keep the value a tensor")
    if submission.aliases.is_stop_gradient(func):
        return (f"`{text}` (line {line}) blocks the gradient through its argument",
                f"keep inside `tf.stop_gradient(...)` on line {line} only the value that must stay constant")
    chain = attribute_chain(func) if isinstance(func, ast.Attribute) else []
    if chain and chain[0] in submission.aliases.numpy:
        return (f"`{text}` (line {line}) computes with NumPy, outside TensorFlow, so the gradient stops there",
                f"use TensorFlow's op on line {line} instead of `{'.'.join(chain)}` "
                f"(`tf.experimental.numpy.{chain[-1]}` takes the same arguments)")
    return (f"`{text}` (line {line}) casts to an integer type, which carries no gradient",
            f"keep a floating dtype on line {line}: cast to `x.dtype` (or drop the cast)")


class _Lazy:
    """A message part computed only when a message is actually made."""

    def __init__(self, make):
        self._make = make

    def __format__(self, spec: str) -> str:
        return format(self._make(), spec)


def _is_literal(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp):
        return _is_literal(node.operand)
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_is_literal(e) for e in node.elts)
    return False


def _is_shape_like(node: ast.expr) -> bool:
    """Shape arithmetic (`x.shape[0]`, `len(xs) - 1`): Python integers that never carry a gradient.

    The whole expression must be built from shapes, sizes and literals: a tensor computation that
    merely *uses* a shape inside (`tf.reduce_mean(tf.reshape(g, [g.shape[0], -1]))`) is not shape-like.
    """
    if _is_literal(node):
        return True
    if isinstance(node, ast.Attribute):
        return node.attr in SHAPE_ATTRS
    if isinstance(node, ast.Subscript):
        return _is_shape_like(node.value)
    if isinstance(node, ast.Call):
        func = node.func
        return ((isinstance(func, ast.Name) and func.id in SHAPE_CALLS)
                or (isinstance(func, ast.Attribute) and func.attr in SHAPE_ATTRS))
    if isinstance(node, ast.BinOp):
        return _is_shape_like(node.left) and _is_shape_like(node.right)
    if isinstance(node, ast.UnaryOp):
        return _is_shape_like(node.operand)
    return False


def _is_int_dtype(node: ast.expr) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr in INT_DTYPES
    if isinstance(node, ast.Name):
        return node.id in INT_DTYPES or node.id == "int"
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value in INT_DTYPES
    return False
