"""The function bodies of one reading, each indexed once, and what a call runs: whether calling a name
computes a tape gradient (in its own body or in what it calls, transitively)."""
from __future__ import annotations

import ast

from autograder.judge.static.delegated import delegated_calls, resolve_helper
from autograder.judge.static.function import FunctionIndex, FunctionNode
from autograder.judge.static.scopes import arg_names, free_names
from autograder.judge.static.syntax import TAPE_METHODS
from autograder.judge.static.source import Definition, Parsed, Submission


class Bodies:
    """Every function body read so far (an index per def), and the answers about gradients, cached."""

    def __init__(self, submission: Submission):
        self.submission = submission
        self._indexes: dict[int, FunctionIndex] = {}
        self._computes: dict[int, bool] = {}
        self._delegated: dict[int, list] = {}

    def delegated(self, index: FunctionIndex) -> list:
        """The gradient calls a body makes through helpers given a tape (``delegated``), found once."""
        if id(index) not in self._delegated:
            self._delegated[id(index)] = delegated_calls(self, index)
        return self._delegated[id(index)]

    def index(self, fn: FunctionNode, parsed: Parsed, outer: FunctionIndex | None) -> FunctionIndex:
        """The index of a def (made the first time it is asked for, with that ``outer``)."""
        key = id(fn)
        if key not in self._indexes:
            self._indexes[key] = FunctionIndex(fn, parsed, self.submission.aliases, outer)
        return self._indexes[key]

    def of(self, definition: Definition) -> list[FunctionIndex]:
        """Every function body in a definition (nested ones included), each analysed on its own."""
        indexes: list[FunctionIndex] = []

        def add(fn, outer):
            index = self.index(fn, definition.parsed, outer)
            indexes.append(index)
            for nested in index.local_defs_all:
                add(nested, index)

        node = definition.node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            add(node, None)
        elif isinstance(node, ast.ClassDef):
            for inner in ast.walk(node):
                if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    indexes.append(self.index(inner, definition.parsed, None))
        return indexes

    def definition_computes_gradient(self, definition: Definition, stack: frozenset[int] = frozenset()) -> bool:
        """Whether calling what a name is bound to computes a tape gradient (transitively)."""
        key = id(definition.node)
        if key in self._computes:
            return self._computes[key]
        if key in stack:
            return False
        stack = stack | {key}
        result = False
        node = definition.node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            result = self.computes_gradient(self.index(node, definition.parsed, None), stack)
        elif definition.value is not None:
            for name in free_names(definition.value, frozenset()):
                found = self.submission.lookup(name.id, definition.order)
                if found is not None and found is not definition and self.definition_computes_gradient(found, stack):
                    result = True
                    break
        self._computes[key] = result
        return result

    def resolve_function(self, index: FunctionIndex, name: str) -> tuple[str, object] | None:
        """What a name called in a body means: a nested def, a top-level definition, or nothing we know."""
        scope: FunctionIndex | None = index
        while scope is not None:
            if name in scope.local_defs:
                return ("local", (scope.local_defs[name], scope))
            if name in scope.locals:
                return None
            scope = scope.outer
        found = self.submission.lookup(name)
        return ("global", found) if found is not None else None

    def call_computes_gradient(self, index: FunctionIndex, call: ast.Call,
                               stack: frozenset[int] = frozenset(), at: ast.stmt | None = None) -> bool:
        """Whether a call in a body (of a bare name) computes a tape gradient; ``at``: the call's statement, to
        follow a name bound in the body to a lambda or a `functools.partial` of a function."""
        if not isinstance(call.func, ast.Name):
            return False
        resolved = self.resolve_function(index, call.func.id)
        if resolved is None:
            return at is not None and self._local_helper_computes(index, call, at, stack)
        kind, what = resolved
        if kind == "local":
            fn, owner = what
            if id(fn) in stack:
                return False
            return self.computes_gradient(self.index(fn, index.parsed, owner), stack | {id(fn)})
        return self.definition_computes_gradient(what, stack)

    def _local_helper_computes(self, index: FunctionIndex, call: ast.Call, at: ast.stmt, stack: frozenset[int]) -> bool:
        """Whether a name bound in the body to a lambda (or a partial of a function) computes a tape gradient."""
        helper = resolve_helper(self, index, call.func, at)
        if helper is None or id(helper.fn) in stack:
            return False
        if isinstance(helper.fn, ast.Lambda):
            return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in TAPE_METHODS
                       for n in ast.walk(helper.fn.body))
        return self.computes_gradient(self.index(helper.fn, index.parsed, index), stack | {id(helper.fn)})

    def computes_gradient(self, index: FunctionIndex, stack: frozenset[int] = frozenset()) -> bool:
        """Whether running a body calls gradient/jacobian on a tape (here or in what it calls): a tape of its own,
        or one it is given or closes over (`tape.gradient` on a parameter or a name from an enclosing scope)."""
        if any(c.tape is not None or _given(index, c.call) for c in index.calls):
            return True
        stack = stack | {id(index.fn)}
        for stmt in index.stmts:
            for node in index.own_nodes(stmt):
                if isinstance(node, ast.Call) and self.call_computes_gradient(index, node, stack):
                    return True
        return False


def _given(index: FunctionIndex, call: ast.Call) -> bool:
    """Whether `name.gradient(...)` calls it on a name the body was given (a parameter) or closes over."""
    name = call.func.value.id
    return name in arg_names(index.fn.args) or name not in index.locals
