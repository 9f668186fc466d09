"""The submission as the static reading sees it: parsed cells, top-level definitions, the aliases of
TensorFlow and NumPy names, and the closure of what a function reaches by name."""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Iterable, Iterator

from autograder.judge.static.findings import Finding
from autograder.judge.static.scopes import bound_by_import, free_names
from autograder.judge.static.syntax import target_names
from autograder.load.cells import Cell, SubmissionSource


@dataclass
class Parsed:
    """One runnable cell that parses."""

    cell: Cell
    tree: ast.Module
    order: int  # position among the parsed cells

    _lines: list[str] | None = field(default=None, repr=False, compare=False)
    _code_lines: list[str] | None = field(default=None, repr=False, compare=False)

    @property
    def lines(self) -> list[str]:
        """The student's lines (magics shown as written), for `Finding.code`."""
        if self._lines is None:
            same = self.cell.source.count("\n") == self.cell.code.count("\n")
            self._lines = (self.cell.source if same else self.cell.code).splitlines()
        return self._lines

    def segment(self, node: ast.AST) -> str | None:
        """The code of a node (as ast.get_source_segment, without re-splitting the cell each time)."""
        if self._code_lines is None:
            self._code_lines = self.cell.code.splitlines(keepends=True)
        end_line, end_col = getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None)
        if end_line is None or end_col is None or end_line > len(self._code_lines):
            return None
        first, last = node.lineno - 1, end_line - 1
        if first == last:
            return self._code_lines[first].encode()[node.col_offset:end_col].decode(errors="replace")
        parts = [self._code_lines[first].encode()[node.col_offset:].decode(errors="replace")]
        parts += self._code_lines[first + 1:last]
        parts.append(self._code_lines[last].encode()[:end_col].decode(errors="replace"))
        return "".join(parts)


def snippet(parsed: Parsed, node: ast.AST, limit: int = 60) -> str:
    """The source of a node on one line, shortened for a message."""
    text = parsed.segment(node) or ast.unparse(node)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


@dataclass
class Definition:
    """A top-level binding of a name: a def, a class, or an assignment (node is the statement)."""

    name: str
    node: ast.stmt
    value: ast.expr | None  # the assigned expression, for assignments
    parsed: Parsed
    order: tuple[int, int]


class Aliases:
    """Which bare names mean TensorFlow or NumPy things in this submission (imports anywhere count)."""

    def __init__(self, trees: Iterable[ast.Module]):
        self.names = {
            "custom_gradient": {"custom_gradient"},
            "recompute_grad": {"recompute_grad"},
            "stop_gradient": {"stop_gradient"},
            "GradientTape": {"GradientTape"},
        }
        self.numpy = {"np", "numpy"}
        foreign: set[str] = set()
        for tree in trees:
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    for alias in node.names:
                        bound = bound_by_import(alias)
                        if alias.name == "numpy":
                            self.numpy.add(bound)
                        elif bound in ("np", "numpy") or alias.asname in ("np", "numpy"):
                            foreign.add(alias.asname or bound)
                elif isinstance(node, ast.ImportFrom):
                    module = node.module or ""
                    for alias in node.names:
                        bound = alias.asname or alias.name
                        if module.split(".")[0] == "tensorflow" and alias.name in self.names:
                            self.names[alias.name].add(bound)
                        if bound in ("np", "numpy"):
                            foreign.add(bound)
        self.numpy -= foreign

    def means(self, name: str, what: str) -> bool:
        return name in self.names[what]

    def is_stop_gradient(self, func: ast.expr) -> bool:
        if isinstance(func, ast.Attribute):
            return func.attr == "stop_gradient"
        return isinstance(func, ast.Name) and self.means(func.id, "stop_gradient")

    def is_tape_constructor(self, node: ast.AST) -> bool:
        if not isinstance(node, ast.Call):
            return False
        func = node.func
        if isinstance(func, ast.Attribute):
            return func.attr == "GradientTape"
        return isinstance(func, ast.Name) and self.means(func.id, "GradientTape")


class Submission:
    """The parsed runnable cells of a submission and its top-level definitions, by name."""

    def __init__(self, source: SubmissionSource):
        self.source = source
        self.parsed: list[Parsed] = []
        for cell in source.runnable_cells:
            try:
                tree = ast.parse(cell.code)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                continue  # the child reports the SyntaxError
            self.parsed.append(Parsed(cell, tree, len(self.parsed)))
        self.aliases = Aliases(p.tree for p in self.parsed)
        self.definitions: dict[str, list[Definition]] = {}
        for parsed in self.parsed:
            for number, node in enumerate(_top_level_statements(parsed.tree.body)):
                for name, value in _defined_names(node):
                    self.definitions.setdefault(name, []).append(
                        Definition(name, node, value, parsed, (parsed.order, number)))

    def cell_number(self, parsed: Parsed) -> int | None:
        return parsed.cell.index if self.source.kind == "notebook" else None

    def cell_order(self) -> dict[int, int]:
        """A cell's index -> its place among the parsed cells (the reading order of findings)."""
        return {p.cell.index: p.order for p in self.parsed}

    def lookup(self, name: str, before: tuple[int, int] | None = None) -> Definition | None:
        """The definition a name means: the last one, or the last one before an assignment ran."""
        found = self.definitions.get(name, [])
        if before is not None:
            found = [d for d in found if d.order < before]
        return found[-1] if found else None

    def references(self, definition: Definition) -> Iterator[Definition]:
        """Top-level definitions that a definition's code names (free names only)."""
        root = definition.value if definition.value is not None else definition.node
        before = definition.order if definition.value is not None else None
        for name in free_names(root, frozenset()):
            found = self.lookup(name.id, before)
            if found is not None and found is not definition:
                yield found

    def closure(self, target: Definition) -> list[Definition]:
        """The target and every top-level definition it reaches by name, each once."""
        seen = {id(target)}
        order = [target]
        queue = [target]
        while queue:
            for found in self.references(queue.pop()):
                if id(found) not in seen:
                    seen.add(id(found))
                    order.append(found)
                    queue.append(found)
        return order

    def uses(self, definition: Definition, what: str) -> bool:
        """Whether a definition mentions tf.<what> (any spelling) in its own code."""
        root = definition.value if definition.value is not None else definition.node
        for node in ast.walk(root):
            if isinstance(node, ast.Attribute) and node.attr == what:
                return True
        for name in free_names(root, frozenset()):
            if self.aliases.means(name.id, what) and name.id not in self.definitions:
                return True
        return False

    def finding(self, pitfall: str, message: str, parsed: Parsed, node: ast.AST,
                related: tuple[int, ...], headline: str = "", fix: str = "", whole_path: bool = False) -> Finding:
        """A finding at a node; ``related``: the lines the message names; ``headline`` and ``fix``: the cause
        and the change, when the check knows them (see ``Finding``)."""
        line = node.lineno
        lines = parsed.lines
        code = lines[line - 1].strip() if 0 < line <= len(lines) else ""
        return Finding(pitfall, message, self.cell_number(parsed), line, code, related, headline, fix, whole_path)


def _top_level_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements that run at module level, including those in top-level if/try/with blocks."""
    for node in body:
        yield node
        if isinstance(node, (ast.If, ast.With, ast.AsyncWith, ast.For, ast.While)):
            yield from _top_level_statements(node.body)
            yield from _top_level_statements(getattr(node, "orelse", []))
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            yield from _top_level_statements(node.body)
            for handler in node.handlers:
                yield from _top_level_statements(handler.body)
            yield from _top_level_statements(node.orelse)
            yield from _top_level_statements(node.finalbody)


def _defined_names(node: ast.stmt) -> list[tuple[str, ast.expr | None]]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [(node.name, None)]
    if isinstance(node, ast.Assign):
        return [(name.id, node.value) for target in node.targets for name in target_names(target)]
    if isinstance(node, ast.AnnAssign) and node.value is not None:
        return [(name.id, node.value) for name in target_names(node.target)]
    return []
