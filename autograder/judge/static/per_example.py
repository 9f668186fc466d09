"""per-example-loop findings: the model called inside a loop, so that it runs once per iteration.

The model is the function's first parameter (`per_example_gradients(model, loss_fn, x, y)`). A call runs
per iteration when it sits in the body of a `for` or `while` loop, in a comprehension (not in its first
iterable, which runs once), or in the function that `tf.map_fn`, `tf.while_loop`, `tf.scan`, `tf.foldl` or
`map` calls once per element. The model "is called" by `model(...)`, `model.call(...)`, `model.predict(...)`,
by a nested function or lambda that calls it, or by a function of the submission that is handed the model.
`tf.vectorized_map` is no loop: it traces its function once for the whole batch. Whether the loop goes over
the examples is for the numbers to say (the probe counts the model's calls): this only says where.
"""
from __future__ import annotations

import ast

from autograder.judge.static.findings import Finding
from autograder.judge.static.source import Definition, Parsed, Submission, snippet
from autograder.judge.static.syntax import COMPREHENSIONS, call_name

# Functions that call their function argument once per element, and the position of that argument.
PER_ELEMENT = {"map_fn": 0, "map": 0, "scan": 0, "foldl": 0, "foldr": 0, "while_loop": 1}
MODEL_METHODS = frozenset({"call", "__call__", "predict", "predict_on_batch", "predict_step"})
FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


PER_EXAMPLE_EXERCISES = frozenset({"per_example_gradients"})  # whose first parameter is the model read here


def first_parameter(definition: Definition) -> str | None:
    node = definition.node
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    parameters = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
    return parameters[0] if parameters else None


def per_example_findings(submission: Submission, definition: Definition, model: str | None) -> list[Finding]:
    """Where ``model`` (the exercise function's first parameter, also the first parameter of a helper it
    calls) is called once per iteration of a loop in ``definition``."""
    if model is None or first_parameter(definition) != model:
        return []
    node = definition.node
    reader = _Reader(submission, definition.parsed, node, model)
    found = []
    for loop, body, where in _loops(node):
        call = next((c for part in body for c in [reader.model_call(part)] if c is not None), None)
        if call is not None:
            found.append(reader.finding(call, loop, where))
    return found


def _loops(fn: FunctionNode):
    """(node, the parts that run per iteration, how to say where) for every loop in the function."""
    for node in ast.walk(fn):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            kind = "`while` loop" if isinstance(node, ast.While) else "`for` loop"
            yield node, node.body, f"inside the {kind} on line {node.lineno}"
        elif isinstance(node, COMPREHENSIONS):
            parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            parts += [condition for generator in node.generators for condition in generator.ifs]
            parts += [generator.iter for generator in node.generators[1:]]
            yield node, parts, f"inside the comprehension on line {node.lineno}, once per element"
        elif isinstance(node, ast.Call) and call_name(node) in PER_ELEMENT:
            position = PER_ELEMENT[call_name(node)]
            if len(node.args) > position:
                yield node, [node.args[position]], (f"in the function that `{call_name(node)}` calls once per element "
                                                    f"(line {node.lineno})")


class _Reader:
    """Answers "does this code call the model?" within one exercise function."""

    def __init__(self, submission: Submission, parsed: Parsed, fn: FunctionNode, model: str):
        self.submission = submission
        self.parsed = parsed
        self.model = model
        self.local = {n.name: n for n in ast.walk(fn) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                      and n is not fn}
        self.local.update({t.id: n.value for n in ast.walk(fn) if isinstance(n, ast.Assign)
                           and isinstance(n.value, ast.Lambda) for t in n.targets if isinstance(t, ast.Name)})

    def model_call(self, tree: ast.AST, seen: frozenset[int] = frozenset()) -> ast.Call | None:
        """The first call in ``tree`` that runs the model: directly, in a nested function or lambda named there
        (called there, or handed to map_fn), or the model handed to a function of the submission."""
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id in self.local and id(self.local[node.id]) not in seen:
                inner = self.local[node.id]
                call = self.model_call(inner, seen | {id(inner)})
                if call is not None:
                    return call
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Name) and func.id == self.model:
                return node
            if isinstance(func, ast.Attribute) and func.attr in MODEL_METHODS and isinstance(func.value, ast.Name) \
                    and func.value.id == self.model:
                return node
            if isinstance(func, ast.Name) and func.id not in self.local and self.submission.lookup(func.id) \
                    is not None and any(isinstance(arg, ast.Name) and arg.id == self.model for arg in node.args):
                return node
        return None

    def finding(self, call: ast.Call, loop: ast.AST, where: str) -> Finding:
        message = (f"`{snippet(self.parsed, call)}` on line {call.lineno} runs {where}: the model runs once per "
                   "iteration, batch-size times when the loop goes over the examples; run it once on the whole "
                   f"batch under one tape (`losses = loss_fn(y, {self.model}(x))`) and take "
                   f"`tape.jacobian(losses, {self.model}.trainable_variables)`, or use `tf.vectorized_map`")
        return self.submission.finding("per-example-loop", message, self.parsed, call,
                                       tuple(sorted({loop.lineno, call.lineno})))

