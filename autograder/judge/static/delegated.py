"""Gradient calls made by a helper on a tape it is given: `_grad(outer, first, x)`, whose body (a def, a lambda,
a `functools.partial` of one, nested or top-level) calls `tape.gradient(target, source)` on a parameter.

The call is read where the caller makes it: the tape is the caller's, the target and sources the arguments it
passes, so the tape checks (recorded outside the block, unwatched, summed) see through the helper. Only a
target or source that is itself one of the helper's parameters is mapped; anything else stays unknown.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from autograder.judge.static.function import FunctionIndex, GradCall
from autograder.judge.static.scopes import arg_names
from autograder.judge.static.syntax import TAPE_METHODS, attribute_chain, keyword

Callable_ = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda


@dataclass(frozen=True)
class Helper:
    """What a call runs: a def or a lambda, with the arguments a `functools.partial` already bound."""

    name: str
    fn: Callable_
    bound_args: tuple[ast.expr, ...] = ()
    bound_keywords: tuple[ast.keyword, ...] = ()
    parsed: object = None  # the cell it is written in, for a top-level one (a local one is in the caller's)


# TensorFlow calls that run a function they are given right there (a loop's body, a map's function): a helper of
# the body passed to them runs at that statement, on values they choose (its parameters are unknown).
CALLBACK_RUNNERS = frozenset({"while_loop", "map_fn", "vectorized_map", "scan", "foldl", "foldr"})


def delegated_calls(bodies, index: FunctionIndex) -> list[GradCall]:
    """The calls in a body of helpers that take a tape and compute its gradient, as gradient calls on it."""
    found: list[GradCall] = []
    for stmt in index.stmts:
        for node in index.own_nodes(stmt):
            if not isinstance(node, ast.Call):
                continue
            found.extend(_callback_calls(bodies, index, node, stmt))
            helper = resolve_helper(bodies, index, node.func, stmt)
            if helper is None:
                continue
            # A helper of this body (a nested def, a local lambda) sees the body's names: a tape it closes over
            # is the body's tape, and what it differentiates is read when it is called.
            local = helper.fn in index.local_defs_all or _bound_here(index, helper.fn)
            params = arg_names(helper.fn.args)
            arguments = _arguments(helper, node)
            for method, receiver, target, sources in _tape_uses(helper.fn):
                if receiver in params:
                    tape_arg = arguments.get(receiver)
                    tape = index.resolve_tape(tape_arg.id, stmt) if isinstance(tape_arg, ast.Name) else None
                else:
                    tape = index.resolve_tape(receiver, stmt) if local else None
                if tape is None:
                    continue
                repeated, deferred = index.around(node, stmt)
                found.append(GradCall(node, tape, method, stmt, repeated, deferred,
                                      target=_mapped(target, arguments, params, local),
                                      sources=_mapped(sources, arguments, params, local), via=helper.name))
    return found


def _callback_calls(bodies, index: FunctionIndex, call: ast.Call, stmt: ast.stmt) -> list[GradCall]:
    """Gradients that a helper of this body, run by `tf.while_loop` (or a map) at this statement, takes on a tape
    of this body: read as taken at this statement, what they differentiate read as written."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else (func.id if isinstance(func, ast.Name) else "")
    if name not in CALLBACK_RUNNERS:
        return []
    found = []
    for argument in [*call.args, *(k.value for k in call.keywords)]:
        helper = resolve_helper(bodies, index, argument, stmt) if isinstance(argument, (ast.Name, ast.Lambda)) \
            else None
        if helper is None or not (helper.fn in index.local_defs_all or _bound_here(index, helper.fn)):
            continue
        for method, receiver, target, sources in _tape_uses(helper.fn):
            tape = index.resolve_tape(receiver, stmt)
            if tape is not None and target is not None:
                repeated, deferred = index.around(call, stmt)
                found.append(GradCall(call, tape, method, stmt, repeated, deferred, target=target, sources=sources,
                                      via=helper.name, run_by=name))
    return found


def _bound_here(index: FunctionIndex, fn: Callable_) -> bool:
    """Whether a lambda is written in this body (assigned to a local name, or called where it is written)."""
    return isinstance(fn, ast.Lambda) and id(fn) in index.stmt_of


def helper_watches(helper_fn: Callable_) -> bool:
    """Whether a helper calls `.watch(...)` on something itself (then its caller's watches are not all)."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "watch"
               for n in ast.walk(helper_fn))


def resolve_helper(bodies, index: FunctionIndex, func: ast.expr, stmt: ast.stmt, depth: int = 0) -> Helper | None:
    """The def or lambda a call's function means: a name (nested def, local lambda or partial, top-level def
    or lambda), or `functools.partial(name, ...)` itself."""
    if depth > 3:
        return None
    if isinstance(func, ast.Call) and _is_partial(func) and func.args:
        inner = resolve_helper(bodies, index, func.args[0], stmt, depth + 1)
        if inner is None:
            return None
        return Helper(inner.name, inner.fn, inner.bound_args + tuple(func.args[1:]),
                      inner.bound_keywords + tuple(func.keywords), inner.parsed)
    if isinstance(func, ast.Lambda):
        return Helper("lambda", func)
    if not isinstance(func, ast.Name):
        return None
    resolved = bodies.resolve_function(index, func.id)
    if resolved is not None:
        kind, what = resolved
        if kind == "local":
            return Helper(func.id, what[0])
        node = what.node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return Helper(func.id, node, parsed=what.parsed)
        if what.value is not None and isinstance(what.value, (ast.Lambda, ast.Call)):
            found = resolve_helper(bodies, index, what.value, stmt, depth + 1)
            return None if found is None else Helper(func.id, found.fn, found.bound_args, found.bound_keywords,
                                                     found.parsed or what.parsed)
        return None
    reaching = index.reaching(func.id, stmt)
    if len(reaching) == 1 and isinstance(reaching[0].value, (ast.Lambda, ast.Call)) and reaching[0].kills:
        found = resolve_helper(bodies, index, reaching[0].value, reaching[0].stmt, depth + 1)
        return None if found is None else Helper(func.id, found.fn, found.bound_args, found.bound_keywords,
                                                 found.parsed)
    return None


def _is_partial(call: ast.Call) -> bool:
    chain = attribute_chain(call.func) if isinstance(call.func, ast.Attribute) else (
        [call.func.id] if isinstance(call.func, ast.Name) else [])
    return bool(chain) and chain[-1] == "partial"


def _tape_uses(fn: Callable_) -> list[tuple[str, str, ast.expr | None, ast.expr | None]]:
    """(method, receiver, target, sources) of each `name.gradient(...)` in a helper's own code."""
    body = [fn.body] if isinstance(fn, ast.Lambda) else fn.body
    uses = []
    for root in body:
        for node in _own_walk(root):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in TAPE_METHODS
                    and isinstance(node.func.value, ast.Name)):
                args = node.args
                target = args[0] if args else keyword(node, "target")
                sources = args[1] if len(args) > 1 else keyword(node, "sources")
                uses.append((node.func.attr, node.func.value.id, target, sources))
    return uses


def _own_walk(node: ast.AST):
    """The nodes of a helper's own code (not those of functions nested in it)."""
    yield node
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            yield from _own_walk(child)


def _arguments(helper: Helper, call: ast.Call) -> dict[str, ast.expr]:
    """The helper's parameters -> the expressions the call (and the partial before it) passes for them."""
    args = helper.fn.args
    positional = [a.arg for a in [*args.posonlyargs, *args.args]]
    passed: dict[str, ast.expr] = {}
    values = [*helper.bound_args, *call.args]
    if any(isinstance(v, ast.Starred) for v in values):
        return {}
    for name, value in zip(positional, values):
        passed[name] = value
    for keyword_ in [*helper.bound_keywords, *call.keywords]:
        if keyword_.arg is not None:
            passed[keyword_.arg] = keyword_.value
    return passed


def _mapped(expr: ast.expr | None, arguments: dict[str, ast.expr], params: set[str], local: bool) -> ast.expr | None:
    """A helper's expression as the caller passes it: a parameter's name becomes the argument; code that reads
    no parameter is itself for a helper of the body (it is evaluated in the body's scope); else unknown."""
    if expr is None:
        return None
    if isinstance(expr, ast.Name) and expr.id in params:
        return arguments.get(expr.id)
    if isinstance(expr, (ast.List, ast.Tuple)):
        elements = [_mapped(e, arguments, params, local) for e in expr.elts]
        if all(e is not None for e in elements):
            return ast.copy_location(type(expr)(elts=elements, ctx=ast.Load()), expr)
        return None
    reads_params = any(isinstance(n, ast.Name) and n.id in params for n in ast.walk(expr))
    return expr if local and not reads_params else None
