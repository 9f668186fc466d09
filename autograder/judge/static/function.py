"""One function body indexed for the tape checks: its statements (not those of the functions nested in it),
the `with` blocks around each, the tapes it creates, the gradient calls on them and the assignments."""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Iterator

from autograder.judge.static.scopes import local_names
from autograder.judge.static.source import Aliases, Parsed, snippet
from autograder.judge.static.syntax import COMPREHENSIONS, TAPE_METHODS, base_name, dep_names, keyword, \
    own_children, pos, tape_ref, target_names

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(eq=False)
class Tape:
    """A GradientTape created in the function, with the `with` blocks where it records."""

    name: str
    header: str  # `with tf.GradientTape() as tape:` or `tape = tf.GradientTape()`
    created: ast.stmt
    persistent: bool | None  # None: not a literal, so unknown
    blocks: list[ast.With | ast.AsyncWith] = field(default_factory=list)


@dataclass(eq=False)
class GradCall:
    call: ast.Call
    tape: Tape | None
    method: str
    stmt: ast.stmt
    repeated: bool  # inside a comprehension: runs once per element
    deferred: bool  # inside a lambda: may never run here
    # What is differentiated, and with respect to what, as the caller writes them; a helper's call
    # (`_grad(outer, first, x)`, whose body calls `tape.gradient(target, source)`) passes them as arguments.
    target: ast.expr | None = None
    sources: ast.expr | None = None
    via: str = ""  # the helper whose body calls the tape's method, or "" for `tape.gradient(...)` itself
    run_by: str = ""  # the TensorFlow call that runs the helper (`tf.while_loop`), when it is not called by name

    def __post_init__(self):
        if not self.via:
            args = self.call.args
            self.target = args[0] if args else keyword(self.call, "target")
            self.sources = args[1] if len(args) > 1 else keyword(self.call, "sources")

    def label(self, parsed: Parsed) -> str:
        """How a message names the call: `tape.gradient(...)`, or the helper call that makes it."""
        name = self.tape.name if self.tape is not None else "the tape"
        if self.run_by:
            return f"`{name}.{self.method}(...)` in `{self.via}` (run by `{self.run_by}`)"
        return f"`{snippet(parsed, self.call)}`" if self.via else f"`{name}.{self.method}(...)`"


@dataclass(eq=False)
class Assign:
    name: str
    stmt: ast.stmt
    value: ast.expr | None
    kills: bool  # rebinds the whole name (a plain assignment), so earlier values no longer reach


class FunctionIndex:
    """One function body (not the functions nested in it), indexed; ``outer``: the body it is nested in."""

    def __init__(self, fn: FunctionNode, parsed: Parsed, aliases: Aliases, outer: FunctionIndex | None):
        self.fn = fn
        self.parsed = parsed
        self.aliases = aliases
        self.outer = outer
        self.locals = local_names(fn)
        self.chain: dict[int, tuple] = {}
        self.withs: dict[int, frozenset[int]] = {}
        self.own: dict[int, list[ast.AST]] = {}
        self.stmt_of: dict[int, ast.stmt] = {}
        self.parent: dict[int, ast.AST] = {}
        self.stmts: list[ast.stmt] = []
        self.local_defs: dict[str, FunctionNode] = {}
        self.local_defs_all: list[FunctionNode] = []
        self._index(fn.body, (), id(fn.body), (), frozenset())
        self.stmts.sort(key=pos)
        self.tapes: list[Tape] = []
        self.bindings: list[tuple[str, tuple[int, int], Tape]] = []
        self._find_tapes()
        self.calls = self._find_calls()
        self.assigns = self._find_assigns()

    # -- indexing -----------------------------------------------------------

    def _index(self, body: list[ast.stmt], chain: tuple, key: int, prefix: tuple, withs: frozenset[int]) -> None:
        for number, stmt in enumerate(body):
            here = chain + ((key, prefix + (number,)),)
            self.chain[id(stmt)] = here
            self.withs[id(stmt)] = withs
            self.stmts.append(stmt)
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.local_defs[stmt.name] = stmt
                self.local_defs_all.append(stmt)
                args = stmt.args
                self._own(stmt, [*stmt.decorator_list, *args.defaults, *[d for d in args.kw_defaults if d]])
                continue
            if isinstance(stmt, ast.ClassDef):
                self._own(stmt, [*stmt.decorator_list, *stmt.bases])
                continue
            self._own(stmt, [v for v in own_children(stmt)])
            if isinstance(stmt, (ast.With, ast.AsyncWith)):
                # A with body always runs: index it as part of the enclosing block, so dominance sees through it.
                self._index(stmt.body, chain, key, prefix + (number,), withs | {id(stmt)})
                continue
            for name in ("body", "orelse", "finalbody"):
                block = getattr(stmt, name, None)
                if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                    self._index(block, here, id(block), (), withs)
            for handler in getattr(stmt, "handlers", []) or []:
                self._index(handler.body, here, id(handler.body), (), withs)
            for case in getattr(stmt, "cases", []) or []:
                self._index(case.body, here, id(case.body), (), withs)

    def _own(self, stmt: ast.stmt, roots: list[ast.AST]) -> None:
        self.own[id(stmt)] = roots
        for root in roots:
            self.parent[id(root)] = stmt
            for node in ast.walk(root):
                self.stmt_of[id(node)] = stmt
                for child in ast.iter_child_nodes(node):
                    self.parent[id(child)] = node

    def own_nodes(self, stmt: ast.stmt) -> Iterator[ast.AST]:
        """Every node a statement evaluates itself (not those of the statements nested in it)."""
        for root in self.own.get(id(stmt), []):
            yield from ast.walk(root)

    def _find_tapes(self) -> None:
        for stmt in self.stmts:
            if isinstance(stmt, (ast.With, ast.AsyncWith)):
                for item in stmt.items:
                    var = tape_ref(item.optional_vars)
                    context = item.context_expr
                    if self.aliases.is_tape_constructor(context):
                        text = snippet(self.parsed, context)
                        tape = Tape(var or "the tape", f"with {text} as {var}:" if var else f"with {text}:",
                                    stmt, _persistent(context), [stmt])
                        self.tapes.append(tape)
                        if var:
                            self.bindings.append((var, pos(stmt), tape))
                    elif tape_ref(context) is not None:
                        tape = self.resolve_tape(tape_ref(context), stmt)
                        if tape is not None:
                            tape.blocks.append(stmt)
                            if var:
                                self.bindings.append((var, pos(stmt), tape))
            elif (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and tape_ref(stmt.targets[0]) is not None
                  and self.aliases.is_tape_constructor(stmt.value)):
                name = tape_ref(stmt.targets[0])
                tape = Tape(name, f"{name} = {snippet(self.parsed, stmt.value)}", stmt, _persistent(stmt.value))
                self.tapes.append(tape)
                self.bindings.append((name, pos(stmt), tape))

    def _find_calls(self) -> list[GradCall]:
        calls = []
        for stmt in self.stmts:
            for node in self.own_nodes(stmt):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                        and node.func.attr in TAPE_METHODS and tape_ref(node.func.value) is not None):
                    tape = self.resolve_tape(tape_ref(node.func.value), stmt)
                    calls.append(GradCall(node, tape, node.func.attr, stmt, *self.around(node, stmt)))
        calls.sort(key=lambda c: pos(c.call))
        return calls

    def around(self, node: ast.AST, stmt: ast.stmt) -> tuple[bool, bool]:
        """(inside a comprehension: runs once per element, inside a lambda: may never run here) for a node."""
        repeated = deferred = False
        below, up, iterable = node, self.parent.get(id(node)), False
        while up is not None and up is not stmt:
            # A comprehension repeats its element and conditions; its first iterable runs once.
            if isinstance(up, COMPREHENSIONS):
                repeated = repeated or not (iterable and below is up.generators[0])
            iterable = isinstance(up, ast.comprehension) and below is up.iter
            deferred = deferred or isinstance(up, ast.Lambda)
            below, up = up, self.parent.get(id(up))
        return repeated, deferred

    def _find_assigns(self) -> dict[str, list[Assign]]:
        found: dict[str, list[Assign]] = {}

        def add(name: str, stmt: ast.stmt, value: ast.expr | None, kills: bool) -> None:
            found.setdefault(name, []).append(Assign(name, stmt, value, kills))

        for stmt in self.stmts:
            if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                if stmt.value is None:
                    continue
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                for target in targets:
                    for name in target_names(target):
                        add(name.id, stmt, stmt.value, True)
                    if isinstance(target, (ast.Subscript, ast.Attribute)):
                        base = base_name(target)
                        if base:
                            add(base, stmt, stmt.value, False)
            elif isinstance(stmt, ast.AugAssign):
                base = base_name(stmt.target)
                if base:
                    add(base, stmt, stmt.value, False)
            elif isinstance(stmt, (ast.For, ast.AsyncFor)):
                for name in target_names(stmt.target):
                    add(name.id, stmt, stmt.iter, False)
            elif isinstance(stmt, (ast.With, ast.AsyncWith)):
                for item in stmt.items:
                    if item.optional_vars is not None and not self.aliases.is_tape_constructor(item.context_expr):
                        for name in target_names(item.optional_vars):
                            add(name.id, stmt, item.context_expr, True)
        return found

    # -- questions about the code ----------------------------------------------

    def resolve_tape(self, name: str, stmt: ast.stmt) -> Tape | None:
        """The tape a name means at a statement: the latest binding before it."""
        here = pos(stmt)
        found = None
        for bound, where, tape in self.bindings:
            if bound == name and where < here and (found is None or where >= found[0]):
                found = (where, tape)
        return found[1] if found else None

    def inside(self, stmt: ast.stmt, tape: Tape) -> bool:
        """Whether a statement is lexically inside one of the tape's `with` blocks."""
        withs = self.withs.get(id(stmt), frozenset())
        return any(id(block) in withs for block in tape.blocks)

    def dominates(self, earlier: ast.stmt, later: ast.stmt) -> bool:
        """Whether `earlier` runs on every path that reaches `later` (structured code only)."""
        first, second = self.chain[id(earlier)], self.chain[id(later)]
        depth = len(first) - 1
        if len(second) <= depth or second[:depth] != first[:depth]:
            return False
        (block_a, index_a), (block_b, index_b) = first[depth], second[depth]
        return block_a == block_b and index_b > index_a

    def contains(self, outer: ast.stmt, inner: ast.stmt) -> bool:
        """Whether a statement is nested in another (a loop that creates the tape anew each time)."""
        first, second = self.chain[id(outer)], self.chain[id(inner)]
        return len(second) > len(first) and second[:len(first)] == first

    def reaching(self, name: str, stmt: ast.stmt) -> list[Assign]:
        """Assignments of a name whose value may be the one read at a statement."""
        here = pos(stmt)
        candidates = [a for a in self.assigns.get(name, []) if pos(a.stmt) < here]
        for assign in reversed(candidates):
            if assign.kills and self.dominates(assign.stmt, stmt):
                start = pos(assign.stmt)
                return [a for a in candidates if pos(a.stmt) >= start]
        return candidates

    def enclosing_comprehension_names(self, node: ast.AST, stmt: ast.stmt) -> dict[str, list[ast.Name]]:
        """Names bound by comprehensions around a node, mapped to the names their values come from."""
        chain = []
        up = self.parent.get(id(node))
        while up is not None and up is not stmt:
            if isinstance(up, COMPREHENSIONS):
                chain.append(up)
            up = self.parent.get(id(up))
        bindings: dict[str, list[ast.Name]] = {}
        for comprehension in reversed(chain):
            for generator in comprehension.generators:
                sources = dep_names(generator.iter, bindings)
                for name in target_names(generator.target):
                    bindings[name.id] = sources
        return bindings


def _persistent(call: ast.Call) -> bool | None:
    """A tape constructor's `persistent`: True or False when a literal says so, None when unknown."""
    value = keyword(call, "persistent")
    if value is None and call.args:
        value = call.args[0]
    if value is None:
        return False
    if isinstance(value, ast.Constant) and isinstance(value.value, bool):
        return value.value
    return None
