"""What an exercise function's value is made of, read back from its `return` along the paths a gradient can take
(through assignments, list unpacking and the helpers, lambdas and `functools.partial`s it calls).

Three findings come from it; like every finding, none costs anything unless the numbers say the same:
- `no-gradient`: an op without a gradient (`tf.round`, `tf.floor`, `tf.sign`...) on a live path to the value;
- `gradient-cut`, on the whole path: every path from the parameters to the value goes through
  `tf.stop_gradient` (`tf.stop_gradient(x + (tf.round(x) - x))`), so the cut is the cause, not an op;
- `clips-value`: the forward value a `@tf.custom_gradient` function returns is not its input unchanged.
"""
from __future__ import annotations

import ast
from typing import Iterator

from autograder.judge.static.delegated import resolve_helper
from autograder.judge.static.findings import Finding
from autograder.judge.static.function import FunctionIndex
from autograder.judge.static.scopes import arg_names
from autograder.judge.static.source import Parsed, snippet
from autograder.judge.static.syntax import attribute_chain, dep_names, is_stop_gradient_call, walk_live

# TensorFlow ops whose registered gradient is None (or that return integers): nothing flows back through them.
GRADIENTLESS = frozenset({"round", "floor", "ceil", "rint", "sign", "argmax", "argmin"})
MAX_DEPTH = 3  # helpers followed inside helpers


def path_findings(bodies, index: FunctionIndex) -> list[Finding]:
    """The three findings of one top-level function body (its nested helpers are read from it)."""
    if _is_custom_gradient(bodies, index.fn):
        return _forward_findings(bodies, index)
    found: list[Finding] = []
    returns = _returns(index)
    for stmt, value in returns:
        for node, parsed, where in _live_nodes(bodies, index, value, stmt, set(), 0):
            if isinstance(node, ast.Call):
                found.extend(_gradientless(bodies, parsed, node))
                helper = _custom_helper(bodies, where, node) if where is not None else None
                if helper is not None:
                    found.extend(_forward_findings(bodies, helper))
    found.extend(_whole_path_cuts(bodies, index, returns))
    return found


# --------------------------------------------------------------------------- the live paths

def _returns(index: FunctionIndex) -> list[tuple[ast.stmt, ast.expr]]:
    return [(stmt, stmt.value) for stmt in index.stmts if isinstance(stmt, ast.Return) and stmt.value is not None]


def _live_nodes(bodies, index: FunctionIndex, expr: ast.expr, stmt: ast.stmt, seen: set[int],
                depth: int) -> Iterator[tuple[ast.AST, Parsed, FunctionIndex | None]]:
    """Every node evaluated on a live path to ``expr``'s value (not under tf.stop_gradient), through the
    assignments that reach it and into the helpers and lambdas it calls, with its cell and its body (None in a
    lambda)."""
    for node in walk_live(expr):
        yield node, index.parsed, index
        if isinstance(node, ast.Call) and depth < MAX_DEPTH:
            helper_index = _helper_index(bodies, index, node, stmt)
            if helper_index is not None and id(helper_index.fn) not in seen:
                seen.add(id(helper_index.fn))
                if not _is_custom_gradient(bodies, helper_index.fn):
                    for inner_stmt, value in _returns(helper_index):
                        yield from _live_nodes(bodies, helper_index, value, inner_stmt, seen, depth + 1)
            elif helper_index is None:
                helper = resolve_helper(bodies, index, node.func, stmt)
                if helper is not None and isinstance(helper.fn, ast.Lambda) and id(helper.fn) not in seen:
                    seen.add(id(helper.fn))
                    parsed = helper.parsed or index.parsed
                    yield from ((n, parsed, None) for n in walk_live(helper.fn.body))
    for name in dep_names(expr, {}):
        for assign in index.reaching(name.id, stmt):
            if id(assign) in seen or assign.value is None:
                continue
            seen.add(id(assign))
            yield from _live_nodes(bodies, index, assign.value, assign.stmt, seen, depth)


def _helper_index(bodies, index: FunctionIndex, call: ast.Call, stmt: ast.stmt) -> FunctionIndex | None:
    """The body of the def a call runs (nested or top-level), indexed."""
    helper = resolve_helper(bodies, index, call.func, stmt)
    if helper is None or isinstance(helper.fn, ast.Lambda):
        return None
    if helper.fn in index.local_defs_all:
        return bodies.index(helper.fn, index.parsed, index)
    return bodies.index(helper.fn, helper.parsed, None) if helper.parsed is not None else None


# --------------------------------------------------------------------------- no-gradient

def _gradientless(bodies, parsed: Parsed, call: ast.Call) -> list[Finding]:
    func = call.func
    chain = attribute_chain(func) if isinstance(func, ast.Attribute) else []
    if not chain or chain[-1] not in GRADIENTLESS or chain[0] in bodies.submission.aliases.numpy or len(chain) < 2:
        return []
    text = snippet(parsed, call)
    argument = snippet(parsed, call.args[0]) if call.args else "x"
    message = (f"`{text}` on line {call.lineno} has no gradient: TensorFlow gives None for it, so nothing flows "
               f"back to `{argument}`")
    return [bodies.submission.finding(
        "no-gradient", message, parsed, call, (call.lineno,),
        headline=f"`{text}` (line {call.lineno}) has no gradient, so nothing flows back through it",
        fix=(f"pass the upstream gradient through it: `{argument} + tf.stop_gradient({text} - {argument})`, or a "
             "`@tf.custom_gradient` whose grad_fn returns the upstream gradient"))]


# --------------------------------------------------------------------------- gradient-cut on the whole path

def _whole_path_cuts(bodies, index: FunctionIndex, returns: list[tuple[ast.stmt, ast.expr]]) -> list[Finding]:
    """tf.stop_gradient calls that every path from the parameters to the returned value goes through."""
    params = arg_names(index.fn.args)
    found = []
    for stmt, value in returns:
        if _reads_params(index, value, stmt, params, live=True, seen=set()):
            continue
        for cut, where_stmt in _stop_gradients(index, value, stmt, set()):
            if not any(_reads_params(index, arg, where_stmt, params, live=False, seen=set()) for arg in cut.args):
                continue
            found.append(_whole_path_finding(bodies, index, cut, params))
    return found


def _reads_params(index: FunctionIndex, expr: ast.expr, stmt: ast.stmt, params: set[str], live: bool,
                  seen: set[int]) -> bool:
    """Whether an expression's value comes from a parameter (``live``: along paths a gradient can take)."""
    names = dep_names(expr, {}) if live else [n for n in ast.walk(expr)
                                               if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    for name in names:
        reaching = index.reaching(name.id, stmt)
        if not reaching and name.id in params:
            return True
        for assign in reaching:
            if id(assign) not in seen and assign.value is not None:
                seen.add(id(assign))
                if _reads_params(index, assign.value, assign.stmt, params, live, seen):
                    return True
    return False


def _stop_gradients(index: FunctionIndex, expr: ast.expr, stmt: ast.stmt,
                    seen: set[int]) -> Iterator[tuple[ast.Call, ast.stmt]]:
    """The outermost tf.stop_gradient calls on the way to a value (through assignments)."""
    for node in walk_live(expr):
        if is_stop_gradient_call(node) or (isinstance(node, ast.Call)
                                           and index.aliases.is_stop_gradient(node.func)):
            yield node, stmt
    for name in dep_names(expr, {}):
        for assign in index.reaching(name.id, stmt):
            if id(assign) not in seen and assign.value is not None:
                seen.add(id(assign))
                yield from _stop_gradients(index, assign.value, assign.stmt, seen)


def _whole_path_finding(bodies, index: FunctionIndex, cut: ast.Call, params: set[str]) -> Finding:
    text = snippet(index.parsed, cut)
    argument = cut.args[0] if cut.args else None
    inputs = sorted(n.id for n in ast.walk(argument) if isinstance(n, ast.Name) and n.id in params) \
        if argument is not None else []
    name = inputs[0] if inputs else next(iter(sorted(params)), "x")
    example = _kept_outside(index, argument, name)
    message = (f"`{text}` on line {cut.lineno} wraps every path from `{name}` to the value returned, so no "
               f"gradient reaches `{name}`")
    return bodies.submission.finding(
        "gradient-cut", message, index.parsed, cut, (cut.lineno,),
        headline=f"`{text}` (line {cut.lineno}) wraps every path from `{name}` to the value, so no gradient "
                 f"reaches `{name}`",
        fix=(f"keep `{name}` itself outside `tf.stop_gradient(...)` on line {cut.lineno} and put inside only what "
             f"must stay constant{example}"),
        whole_path=True)


def _kept_outside(index: FunctionIndex, argument: ast.expr | None, name: str) -> str:
    """`: x + tf.stop_gradient(<the rest>)` when the cut's argument is `x + <the rest>`, else ''."""
    if isinstance(argument, ast.BinOp) and isinstance(argument.op, ast.Add):
        for kept, rest in ((argument.left, argument.right), (argument.right, argument.left)):
            if isinstance(kept, ast.Name) and kept.id == name:
                return f": `{name} + tf.stop_gradient({snippet(index.parsed, rest)})`"
    return ""


# --------------------------------------------------------------------------- clips-value

def _is_custom_gradient(bodies, fn: ast.AST) -> bool:
    aliases = bodies.submission.aliases
    for decorator in getattr(fn, "decorator_list", []):
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if (isinstance(target, ast.Attribute) and target.attr == "custom_gradient") or (
                isinstance(target, ast.Name) and aliases.means(target.id, "custom_gradient")):
            return True
    return False


def _custom_helper(bodies, index: FunctionIndex, call: ast.Call) -> FunctionIndex | None:
    """The body of a @tf.custom_gradient def that a call runs."""
    stmt = index.stmt_of.get(id(call))
    if stmt is None:
        return None
    helper = _helper_index(bodies, index, call, stmt)
    return helper if helper is not None and _is_custom_gradient(bodies, helper.fn) else None


def _forward_findings(bodies, index: FunctionIndex) -> list[Finding]:
    """The forward value of a @tf.custom_gradient function, when it is not its input unchanged."""
    params = arg_names(index.fn.args)
    found = []
    for stmt, value in _returns(index):
        if not (isinstance(value, ast.Tuple) and len(value.elts) == 2):
            continue
        forward, node = value.elts[0], value.elts[0]
        if isinstance(forward, ast.Name) and forward.id not in params:
            reaching = index.reaching(forward.id, stmt)
            if len(reaching) != 1 or reaching[0].value is None:
                continue
            forward, node = reaching[0].value, reaching[0].stmt
        if _unchanged(forward, params):
            continue
        text = snippet(index.parsed, forward)
        own = next(iter(sorted(params)), "x") if len(params) != 1 else next(iter(params))
        message = (f"the forward value that `{index.fn.name}` returns (line {node.lineno}) is `{text}`, not its "
                   f"input `{own}` unchanged")
        found.append(bodies.submission.finding(
            "clips-value", message, index.parsed, node, (node.lineno, stmt.lineno),
            headline=(f"the forward value your `@tf.custom_gradient` function `{index.fn.name}` returns is `{text}` "
                      f"(line {node.lineno}), not its input `{own}`: the value changes where only the gradient "
                      "should"),
            fix=(f"return `{own}` itself (or `tf.identity({own})`) as the value instead of `{text}` (line "
                 f"{node.lineno}), and change only what grad_fn returns")))
    return found


def _unchanged(expr: ast.expr, params: set[str]) -> bool:
    """A parameter itself, or an identity of one (tf.identity, tf.convert_to_tensor, keras.ops.copy...)."""
    if isinstance(expr, ast.Name):
        return expr.id in params
    if isinstance(expr, ast.Call) and expr.args and isinstance(expr.func, (ast.Attribute, ast.Name)):
        name = expr.func.attr if isinstance(expr.func, ast.Attribute) else expr.func.id
        return name in ("identity", "convert_to_tensor", "copy", "stop_gradient") and _unchanged(expr.args[0], params)
    return False
