"""tape-outside-context findings: the target of `T.gradient(target, ...)` flows from work `T` never recorded.

The target is followed back through the assignments that may reach it; a value computed outside every one
of the tape's `with` blocks is reported when it is an operation on recorded values after a block ends, or a
gradient taken by another tape (or by a function that takes one) outside the block.
"""
from __future__ import annotations

import ast

from autograder.judge.static.bodies import Bodies
from autograder.judge.static.findings import Finding
from autograder.judge.static.function import FunctionIndex, GradCall, Tape
from autograder.judge.static.source import snippet
from autograder.judge.static.syntax import TAPE_METHODS, dep_names, is_tape_call, tape_ref, walk_live

# Python builtins that only regroup values: applying them after a tape block records nothing, but loses nothing.
NO_OP_BUILTINS = frozenset({"list", "tuple", "dict", "set", "zip", "enumerate", "range", "len", "print",
                            "isinstance", "reversed", "sorted", "iter", "next", "type", "id", "repr", "str"})


def outside_context_findings(bodies: Bodies, index: FunctionIndex, grad: GradCall) -> list[Finding]:
    """What a gradient call's target depends on that its tape never recorded (a tape with blocks only)."""
    tape = grad.tape
    target = grad.target
    if target is None:
        return []
    used = f"{grad.label(index.parsed)} on line {grad.call.lineno}"
    found: list[Finding] = []
    seen: set[int] = set()
    comprehension_names = index.enclosing_comprehension_names(grad.call, grad.stmt)
    delegated = {id(c.call): c for c in bodies.delegated(index)}

    def report(what: str, consequence: str, node: ast.AST, stmt: ast.stmt, expr: ast.expr, block: ast.AST,
               after: bool, related: tuple[int, ...]) -> None:
        """One finding: what the static reading saw (the message), and the cause and fix of that one line."""
        code = snippet(index.parsed, stmt if node is stmt else expr)
        side = "after" if after else "before"
        block_text = (f"the `{tape.header}` block {'ends' if after else 'begins'} "
                      f"(lines {block.lineno}-{block.end_lineno})")
        headline = (f"`{code}` is computed {side} the `with` block of `{tape.name}`, the tape that must "
                    f"differentiate it, so `{tape.name}` never records it")
        fix = (f"move `{code}` (line {node.lineno}) into the `{tape.header}` block (indented under it"
               f"{_after_watch(index, tape)})"
               + (f"; keep {grad.label(index.parsed)} after the block" if grad.stmt is not stmt else "")
               if node is stmt else
               f"compute `{code}` inside the `{tape.header}` block (assign it to a name there) and differentiate "
               "that name after the block")
        message = f"{what} {side} {block_text}, so `{tape.name}` never records it and {used} {consequence}"
        found.append(bodies.submission.finding("tape-outside-context", message, index.parsed, node, related,
                                               headline=headline, fix=fix))

    def check(expr: ast.expr, stmt: ast.stmt, node: ast.AST, bindings: dict, depth: int = 0) -> None:
        if not index.inside(stmt, tape):
            block, after = _block_near(tape, stmt)
            lines = (block.lineno, block.end_lineno, grad.call.lineno)
            source = _gradient_source(bodies, index, expr, stmt, tape, delegated)
            if source is not None:
                kind, call, other = source
                whole = call is expr and depth <= 1
                if kind == "tape":
                    named_alike = other.name == tape.name
                    whose = (f" on the other tape named `{other.name}` (line {other.created.lineno})"
                             if named_alike else "")
                    shown = (f"`{tape_ref(call.func.value)}.{call.func.attr}(...)`" if id(call) not in delegated
                             else f"`{snippet(index.parsed, call)}` (a gradient on `{other.name}`)")
                    what = f"{shown}{whose} is called"
                    if named_alike:
                        lines = (other.created.lineno, *lines)
                else:
                    what = f"`{call.func.id}(...)` computes a gradient"
                consequence = ("cannot differentiate through it" if kind == "tape" or whole
                               else "silently misses that term")
                report(what, consequence, node, stmt, expr, block, after, lines)
                return
            if after and _has_op(index, expr, stmt) and _reads_recorded(index, expr, stmt, tape, bindings):
                report(f"`{snippet(index.parsed, stmt if node is stmt else expr)}` is computed",
                       "cannot differentiate through it", node, stmt, expr, block, after, lines)
                return
            # The target itself (or what it is directly assigned) computed outside the block from the sources:
            # never recorded (before the block; or after it, `y = f(x)` once the block has ended); or, before the
            # block and at any depth, the forward pass of the model whose variables are the sources.
            if (depth <= 1 and _has_op(index, expr, stmt) and _reads_sources(expr, grad, bindings)) or (
                    not after and _runs_source_owner(expr, grad)):
                report(f"`{snippet(index.parsed, stmt if node is stmt else expr)}` is computed",
                       "cannot differentiate through it", node, stmt, expr, block, after, lines)
                return
        vectors = _hvp_vectors(index, expr, stmt, tape) if index.inside(stmt, tape) else set()
        for name in dep_names(expr, bindings):
            if name.id in vectors:
                continue  # the vector of a Hessian-vector product: a constant for the tape, by design
            for assign in index.reaching(name.id, stmt):
                if id(assign) in seen or assign.value is None:
                    continue
                seen.add(id(assign))
                check(assign.value, assign.stmt, assign.stmt, {}, depth + 1)

    # A target written in a helper that `tf.while_loop` (or a map) runs is shown where it is written.
    anchor = target if grad.run_by and getattr(target, "lineno", None) else grad.call
    check(target, grad.stmt, anchor, comprehension_names)
    return found


def _after_watch(index: FunctionIndex, tape: Tape) -> str:
    """', after `tape.watch(x)`' when the tape's block watches something: what it computes must come after."""
    for block in tape.blocks:
        for stmt in block.body:
            for node in ast.walk(stmt):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "watch"
                        and tape_ref(node.func.value) == tape.name):
                    return f", after `{snippet(index.parsed, node)}`"
    return ""


def _block_near(tape: Tape, stmt: ast.stmt) -> tuple[ast.AST, bool]:
    """The tape's block a statement outside it is closest to, and whether the statement comes after it."""
    ended = [b for b in tape.blocks if b.end_lineno < stmt.lineno]
    if ended:
        return max(ended, key=lambda b: b.end_lineno), True
    return min(tape.blocks, key=lambda b: b.lineno), False


def _gradient_source(bodies: Bodies, index: FunctionIndex, expr: ast.expr, stmt: ast.stmt, tape: Tape,
                     delegated: dict[int, GradCall]) -> tuple[str, ast.Call, Tape | None] | None:
    """A gradient computed by another tape (itself, or through a helper given that tape), or by a function
    that computes one, in an expression."""
    for node in walk_live(expr):
        if not isinstance(node, ast.Call):
            continue
        if id(node) in delegated and delegated[id(node)].tape is not tape:
            return ("tape", node, delegated[id(node)].tape)
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in TAPE_METHODS and tape_ref(func.value) is not None:
            other = index.resolve_tape(tape_ref(func.value), stmt)
            if other is not None and other is not tape:
                return ("tape", node, other)
        elif isinstance(func, ast.Name) and bodies.call_computes_gradient(index, node, at=stmt):
            return ("function", node, None)
    return None


def _reads_recorded(index: FunctionIndex, expr: ast.expr, stmt: ast.stmt, tape: Tape, bindings: dict) -> bool:
    """Whether an expression reads a value assigned inside the tape's blocks."""
    return any(index.inside(assign.stmt, tape)
               for name in dep_names(expr, bindings)
               for assign in index.reaching(name.id, stmt))


def _reads_sources(expr: ast.expr, grad: GradCall, bindings: dict) -> bool:
    """Whether an expression reads one of the names the gradient call differentiates with respect to."""
    sources = grad.sources
    names = {n.id for n in ast.walk(sources) if isinstance(n, ast.Name)} if sources is not None else set()
    return any(name.id in names for name in dep_names(expr, bindings))


def _runs_source_owner(expr: ast.expr, grad: GradCall) -> bool:
    """Whether an expression calls the object whose variables the gradient call differentiates with respect to
    (`model(x)` or `model.call(x)` for sources `model.trainable_variables`): its forward pass."""
    sources = grad.call.args[1] if len(grad.call.args) > 1 else keyword(grad.call, "sources")
    owners = {node.value.id for node in ast.walk(sources) if isinstance(node, ast.Attribute)
              and node.attr in OWNED_VARIABLES and isinstance(node.value, ast.Name)} if sources is not None else set()
    for node in walk_live(expr):
        if isinstance(node, ast.Call):
            func = node.func.value if isinstance(node.func, ast.Attribute) and node.func.attr in ("call", "__call__") \
                else node.func
            if isinstance(func, ast.Name) and func.id in owners:
                return True
    return False


OWNED_VARIABLES = frozenset({"trainable_variables", "trainable_weights", "variables", "weights"})
CONTAINERS = (ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)


def _has_op(index: FunctionIndex, expr: ast.expr, stmt: ast.stmt) -> bool:
    """Whether evaluating an expression runs an operation (that a tape would have to record): arithmetic, a
    call, or indexing a tensor (`y[i]` is a strided slice; indexing a Python list or tuple is not)."""
    for node in walk_live(expr):
        if isinstance(node, ast.BinOp) or (isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not)):
            return True
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            values = [a.value for a in index.reaching(node.value.id, stmt)]
            if values and not any(isinstance(v, CONTAINERS) or v is None for v in values):
                return True
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in NO_OP_BUILTINS):
            return True
    return False


def _hvp_vectors(index: FunctionIndex, expr: ast.expr, stmt: ast.stmt, tape: Tape) -> set[str]:
    """Names multiplied, in a statement inside the tape's block, by a gradient taken inside that block: `g * d`
    in `tf.reduce_sum(g * d)` (Newton-CG's direction, an HVP's vector). The tape differentiates the product as
    a function of g; that d is not recorded is the method, not the pitfall."""
    found: set[str] = set()
    for node in ast.walk(expr):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            pair = (node.left, node.right)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in ("multiply", "tensordot", "vdot", "dot") and len(node.args) >= 2):
            pair = (node.args[0], node.args[1])
        else:
            continue
        for mine, other in (pair, pair[::-1]):
            if isinstance(mine, ast.Name) and isinstance(other, ast.Name) and _gradient_inside(index, mine.id, stmt,
                                                                                                tape):
                found.add(other.id)
    return found


def _gradient_inside(index: FunctionIndex, name: str, stmt: ast.stmt, tape: Tape) -> bool:
    """Whether every value ``name`` may hold at ``stmt`` is a tape's gradient taken inside ``tape``'s block."""
    reaching = index.reaching(name, stmt)
    return bool(reaching) and all(
        index.inside(assign.stmt, tape) and is_tape_call(assign.value) for assign in reaching)
