"""Static evidence about one exercise function: where a mistake happened.

The grader learns *that* an answer is wrong from numbers; this module tells it
*where*, by reading the student's source with ``ast`` (it never runs it and
never imports TensorFlow). A finding costs no points by itself: the grader
combines it with a numeric signal. Precision therefore matters more than
recall: a correct solution, in any reasonable style, must produce no
``tape-outside-context`` or ``non-persistent-tape`` finding. Checks that cannot
be sure stay silent.

What is read: the LAST top-level definition of the function across the
runnable cells (as when the cells run in order), the functions nested in it,
and the top-level functions and objects of the submission that it calls or
references, transitively. Each finding points at the cell and line where the
code is, which may be a helper in another cell.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Iterable, Iterator

from autograder.load.cells import Cell, SubmissionSource

TAPE_METHODS = frozenset({"gradient", "jacobian", "batch_jacobian"})
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
# Python builtins that only regroup values: applying them after a tape block records nothing, but loses nothing.
NO_OP_BUILTINS = frozenset({"list", "tuple", "dict", "set", "zip", "enumerate", "range", "len", "print",
                            "isinstance", "reversed", "sorted", "iter", "next", "type", "id", "repr", "str"})
# Calls whose arguments are only shown, never differentiated (prints, logging, asserts).
QUIET_CALLS = frozenset({"print", "debug", "info", "warning", "warn"})


@dataclass(frozen=True)
class Finding:
    """One piece of static evidence, located where the student can find it."""

    pitfall: str  # a CURRICULUM pitfall id: "tape-outside-context", "non-persistent-tape", "gradient-cut"
    message: str  # one sentence for the student, naming the code
    cell: int | None  # notebook cell index (None for .py)
    line: int  # line within the cell
    code: str  # the offending source line, stripped


@dataclass(frozen=True)
class FunctionReport:
    """What the source says about one exercise function."""

    name: str
    defined: bool
    cell: int | None
    line: int | None
    uses_custom_gradient: bool
    uses_recompute_grad: bool
    uses_stop_gradient: bool
    findings: tuple[Finding, ...]


def analyze(source: SubmissionSource, function_name: str) -> FunctionReport:
    """Read the submission's source and report static evidence about ``function_name``."""
    ctx = _Context(source)
    target = ctx.lookup(function_name)
    if target is None:
        return FunctionReport(function_name, False, None, None, False, False, False, ())
    closure = _safely(lambda: ctx.closure(target), [target])
    flags = {"custom_gradient": False, "recompute_grad": False, "stop_gradient": False}
    findings: list[Finding] = []
    for definition in closure:
        for flag in flags:
            flags[flag] = flags[flag] or _safely(lambda: ctx.uses(definition, flag), False)
        findings.extend(_safely(lambda: ctx.cut_findings(definition), []))
        for unit in _safely(lambda: ctx.units_of(definition), []):
            findings.extend(_safely(unit.tape_findings, []))
    return FunctionReport(
        name=function_name,
        defined=True,
        cell=ctx.cell_number(target.parsed),
        line=target.node.lineno,
        uses_custom_gradient=flags["custom_gradient"],
        uses_recompute_grad=flags["recompute_grad"],
        uses_stop_gradient=flags["stop_gradient"],
        findings=_dedupe(findings, ctx),
    )


def _safely(compute, fallback):
    """Run one check; on an unexpected failure, drop that evidence instead of failing the grading.

    Student code can be arbitrarily odd (deep nesting hits RecursionError, new syntax meets old
    assumptions). Missing evidence is the safe side: static findings never stand alone.
    """
    try:
        return compute()
    except Exception:  # noqa: BLE001 - see docstring
        return fallback


# ---------------------------------------------------------------------------
# Reading the submission


@dataclass
class _Parsed:
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


@dataclass
class _Definition:
    """A top-level binding of a name: a def, a class, or an assignment (node is the statement)."""

    name: str
    node: ast.stmt
    value: ast.expr | None  # the assigned expression, for assignments
    parsed: _Parsed
    order: tuple[int, int]


def _bound_by_import(alias: ast.alias) -> str:
    return alias.asname or alias.name.split(".")[0]


class _Aliases:
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
                        bound = _bound_by_import(alias)
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


class _Context:
    """Everything shared by one analysis: parsed cells, top-level definitions, caches."""

    def __init__(self, source: SubmissionSource):
        self.source = source
        self.parsed: list[_Parsed] = []
        for cell in source.runnable_cells:
            try:
                tree = ast.parse(cell.code)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                continue  # the child reports the SyntaxError
            self.parsed.append(_Parsed(cell, tree, len(self.parsed)))
        self.aliases = _Aliases(p.tree for p in self.parsed)
        self.definitions: dict[str, list[_Definition]] = {}
        for parsed in self.parsed:
            for number, node in enumerate(_top_level_statements(parsed.tree.body)):
                for name, value in _defined_names(node):
                    self.definitions.setdefault(name, []).append(
                        _Definition(name, node, value, parsed, (parsed.order, number)))
        self._units: dict[int, _Unit] = {}
        self._computes: dict[int, bool] = {}

    # -- names ------------------------------------------------------------

    def cell_number(self, parsed: _Parsed) -> int | None:
        return parsed.cell.index if self.source.kind == "notebook" else None

    def lookup(self, name: str, before: tuple[int, int] | None = None) -> _Definition | None:
        """The definition a name means: the last one, or the last one before an assignment ran."""
        found = self.definitions.get(name, [])
        if before is not None:
            found = [d for d in found if d.order < before]
        return found[-1] if found else None

    def references(self, definition: _Definition) -> Iterator[_Definition]:
        """Top-level definitions that a definition's code names (free names only)."""
        root = definition.value if definition.value is not None else definition.node
        before = definition.order if definition.value is not None else None
        for name in _free_names(root, frozenset()):
            found = self.lookup(name.id, before)
            if found is not None and found is not definition:
                yield found

    def closure(self, target: _Definition) -> list[_Definition]:
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

    def uses(self, definition: _Definition, what: str) -> bool:
        """Whether a definition mentions tf.<what> (any spelling) in its own code."""
        root = definition.value if definition.value is not None else definition.node
        for node in ast.walk(root):
            if isinstance(node, ast.Attribute) and node.attr == what:
                return True
        for name in _free_names(root, frozenset()):
            if self.aliases.means(name.id, what) and name.id not in self.definitions:
                return True
        return False

    # -- functions --------------------------------------------------------

    def unit(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, parsed: _Parsed, outer: _Unit | None) -> _Unit:
        key = id(fn)
        if key not in self._units:
            self._units[key] = _Unit(fn, parsed, self, outer)
        return self._units[key]

    def units_of(self, definition: _Definition) -> list[_Unit]:
        """Every function body in a definition (nested ones included), each analysed on its own."""
        units: list[_Unit] = []

        def add(fn, outer):
            unit = self.unit(fn, definition.parsed, outer)
            units.append(unit)
            for nested in unit.local_defs_all:
                add(nested, unit)

        node = definition.node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            add(node, None)
        elif isinstance(node, ast.ClassDef):
            for inner in ast.walk(node):
                if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    units.append(self.unit(inner, definition.parsed, None))
        return units

    def definition_computes_gradient(self, definition: _Definition, stack: frozenset[int] = frozenset()) -> bool:
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
            result = self.unit(node, definition.parsed, None).computes_gradient(stack)
        elif definition.value is not None:
            for name in _free_names(definition.value, frozenset()):
                found = self.lookup(name.id, definition.order)
                if found is not None and found is not definition and self.definition_computes_gradient(found, stack):
                    result = True
                    break
        self._computes[key] = result
        return result

    # -- gradient cuts ----------------------------------------------------

    def cut_findings(self, definition: _Definition) -> list[Finding]:
        """`.numpy()`, float()/int(), integer casts, NumPy calls and stop_gradient in the code."""
        if definition.value is not None:  # module-level objects: only the code of their lambdas runs later
            roots = [n for n in ast.walk(definition.value) if isinstance(n, ast.Lambda)]
        else:
            roots = [definition.node]
        found: list[Finding] = []
        for root in roots:
            self._scan_cuts(root, definition.parsed, False, found)
        return found

    def _scan_cuts(self, node: ast.AST, parsed: _Parsed, quiet: bool, found: list[Finding]) -> None:
        if isinstance(node, (ast.Assert, ast.JoinedStr)):
            quiet = True
        if isinstance(node, ast.Call):
            if not quiet:
                message = self._cut_message(node, parsed)
                if message:
                    found.append(self.finding("gradient-cut", message, parsed, node))
            name = _call_name(node)
            if name in QUIET_CALLS:
                quiet = True
        for child in ast.iter_child_nodes(node):
            self._scan_cuts(child, parsed, quiet, found)

    def _cut_message(self, call: ast.Call, parsed: _Parsed) -> str | None:
        func = call.func
        line = call.lineno
        text = _Lazy(lambda: _snippet(parsed, call))
        if isinstance(func, ast.Attribute) and func.attr == "numpy" and not call.args and not call.keywords:
            return (f"`{text}` on line {line} turns the tensor into a NumPy array: "
                    "the tape cannot see through it")
        if (isinstance(func, ast.Name) and func.id in ("float", "int") and len(call.args) == 1
                and not _is_literal(call.args[0]) and not _is_shape_like(call.args[0])):
            return (f"`{text}` on line {line} turns the value into a Python number: "
                    "the tape cannot see through it")
        if isinstance(func, ast.Attribute) and func.attr == "cast":
            dtype = call.args[1] if len(call.args) > 1 else _keyword(call, "dtype")
            if dtype is not None and _is_int_dtype(dtype):
                return (f"`{text}` on line {line} casts to an integer type: "
                        "integer tensors carry no gradient")
        if isinstance(func, ast.Attribute):
            chain = _attribute_chain(func)
            if (chain and chain[0] in self.aliases.numpy and len(chain) > 1
                    and not any(part in NP_SKIPPED for part in chain[1:])
                    and any(not _is_literal(a) and not _is_shape_like(a) for a in call.args)):
                return (f"`{text}` on line {line} computes with NumPy, outside TensorFlow: "
                        "the tape cannot see through it")
        if self._is_stop_gradient(func):
            return (f"`{text}` on line {line} blocks the gradient through its argument: "
                    "right only where that value must stay constant")
        return None

    def _is_stop_gradient(self, func: ast.expr) -> bool:
        if isinstance(func, ast.Attribute):
            return func.attr == "stop_gradient"
        return isinstance(func, ast.Name) and self.aliases.means(func.id, "stop_gradient")

    def is_tape_constructor(self, node: ast.AST) -> bool:
        if not isinstance(node, ast.Call):
            return False
        func = node.func
        if isinstance(func, ast.Attribute):
            return func.attr == "GradientTape"
        return isinstance(func, ast.Name) and self.aliases.means(func.id, "GradientTape")

    def finding(self, pitfall: str, message: str, parsed: _Parsed, node: ast.AST) -> Finding:
        line = node.lineno
        lines = parsed.lines
        code = lines[line - 1].strip() if 0 < line <= len(lines) else ""
        return Finding(pitfall, message, self.cell_number(parsed), line, code)


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
        return [(name.id, node.value) for target in node.targets for name in _target_names(target)]
    if isinstance(node, ast.AnnAssign) and node.value is not None:
        return [(name.id, node.value) for name in _target_names(node.target)]
    return []


def _target_names(target: ast.expr) -> list[ast.Name]:
    """Names bound by an assignment target (not attributes or subscripts)."""
    if isinstance(target, ast.Name):
        return [target]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in _target_names(element)]
    if isinstance(target, ast.Starred):
        return _target_names(target.value)
    return []


# ---------------------------------------------------------------------------
# Scopes


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def _arg_names(args: ast.arguments) -> set[str]:
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    every += [a for a in (args.vararg, args.kwarg) if a is not None]
    return {a.arg for a in every}


def _local_names(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    """Names a function binds locally: a reference to them is not a reference to a global."""
    names = _arg_names(fn.args)
    if isinstance(fn, ast.Lambda):
        return names
    declared_global: set[str] = set()
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        if isinstance(node, (ast.Lambda, *_COMPREHENSIONS)):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update(_bound_by_import(a) if isinstance(node, ast.Import) else (a.asname or a.name)
                         for a in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            declared_global.update(node.names)
        stack.extend(ast.iter_child_nodes(node))
    return names - declared_global


def _free_names(node: ast.AST, bound: frozenset[str]) -> Iterator[ast.Name]:
    """Name loads that refer outside the code walked (to globals), honouring Python's scopes."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        for outer in [*node.decorator_list, *node.args.defaults, *[d for d in node.args.kw_defaults if d]]:
            yield from _free_names(outer, bound)
        inner = bound | _local_names(node)
        for statement in node.body:
            yield from _free_names(statement, inner)
    elif isinstance(node, ast.Lambda):
        for outer in [*node.args.defaults, *[d for d in node.args.kw_defaults if d]]:
            yield from _free_names(outer, bound)
        yield from _free_names(node.body, bound | _local_names(node))
    elif isinstance(node, ast.ClassDef):
        for outer in [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]:
            yield from _free_names(outer, bound)
        class_names = {n.id for s in node.body for n in ast.walk(s)
                       if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        for statement in node.body:
            yield from _free_names(statement, bound | class_names)
    elif isinstance(node, _COMPREHENSIONS):
        inner = set(bound)
        for number, generator in enumerate(node.generators):
            yield from _free_names(generator.iter, bound if number == 0 else frozenset(inner))
            inner |= {n.id for n in ast.walk(generator.target) if isinstance(n, ast.Name)}
            for condition in generator.ifs:
                yield from _free_names(condition, frozenset(inner))
        elements = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        for element in elements:
            yield from _free_names(element, frozenset(inner))
    elif isinstance(node, ast.Name):
        if isinstance(node.ctx, ast.Load) and node.id not in bound:
            yield node
    else:
        for child in ast.iter_child_nodes(node):
            yield from _free_names(child, bound)


# ---------------------------------------------------------------------------
# One function body


def _pos(node: ast.AST) -> tuple[int, int]:
    return (node.lineno, node.col_offset)


@dataclass(eq=False)
class _Tape:
    """A GradientTape created in the function, with the `with` blocks where it records."""

    name: str
    header: str  # `with tf.GradientTape() as tape:` or `tape = tf.GradientTape()`
    created: ast.stmt
    persistent: bool | None  # None: not a literal, so unknown
    blocks: list[ast.With | ast.AsyncWith] = field(default_factory=list)


@dataclass(eq=False)
class _GradCall:
    call: ast.Call
    tape: _Tape | None
    method: str
    stmt: ast.stmt
    repeated: bool  # inside a comprehension: runs once per element
    deferred: bool  # inside a lambda: may never run here


@dataclass(eq=False)
class _Assign:
    name: str
    stmt: ast.stmt
    value: ast.expr | None
    kills: bool  # rebinds the whole name (a plain assignment), so earlier values no longer reach


@dataclass
class _Paths:
    """The longest sequence of calls on one tape along each way out of a block of statements."""

    fall: tuple | None = ()
    ret: tuple | None = None
    brk: tuple | None = None
    cont: tuple | None = None


def _longest(*paths: tuple | None) -> tuple | None:
    present = [p for p in paths if p is not None]
    return max(present, key=len) if present else None


def _plus(path: tuple | None, extra: tuple | None) -> tuple | None:
    return None if path is None or extra is None else path + extra


class _Unit:
    """One function body (not the functions nested in it), indexed for the tape checks."""

    def __init__(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, parsed: _Parsed, ctx: _Context,
                 outer: _Unit | None):
        self.fn = fn
        self.parsed = parsed
        self.ctx = ctx
        self.outer = outer
        self.locals = _local_names(fn)
        self.chain: dict[int, tuple] = {}
        self.withs: dict[int, frozenset[int]] = {}
        self.own: dict[int, list[ast.AST]] = {}
        self.stmt_of: dict[int, ast.stmt] = {}
        self.parent: dict[int, ast.AST] = {}
        self.stmts: list[ast.stmt] = []
        self.local_defs: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self.local_defs_all: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
        self._index(fn.body, (), id(fn.body), (), frozenset())
        self.stmts.sort(key=_pos)
        self.tapes: list[_Tape] = []
        self.bindings: list[tuple[str, tuple[int, int], _Tape]] = []
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
            self._own(stmt, [v for v in _own_children(stmt)])
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

    def _own_nodes(self, stmt: ast.stmt) -> Iterator[ast.AST]:
        for root in self.own.get(id(stmt), []):
            yield from ast.walk(root)

    def _find_tapes(self) -> None:
        for stmt in self.stmts:
            if isinstance(stmt, (ast.With, ast.AsyncWith)):
                for item in stmt.items:
                    var = item.optional_vars.id if isinstance(item.optional_vars, ast.Name) else None
                    context = item.context_expr
                    if self.ctx.is_tape_constructor(context):
                        text = _snippet(self.parsed, context)
                        tape = _Tape(var or "the tape", f"with {text} as {var}:" if var else f"with {text}:",
                                     stmt, _persistent(context), [stmt])
                        self.tapes.append(tape)
                        if var:
                            self.bindings.append((var, _pos(stmt), tape))
                    elif isinstance(context, ast.Name):
                        tape = self.resolve_tape(context.id, stmt)
                        if tape is not None:
                            tape.blocks.append(stmt)
                            if var:
                                self.bindings.append((var, _pos(stmt), tape))
            elif (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                  and self.ctx.is_tape_constructor(stmt.value)):
                name = stmt.targets[0].id
                tape = _Tape(name, f"{name} = {_snippet(self.parsed, stmt.value)}", stmt, _persistent(stmt.value))
                self.tapes.append(tape)
                self.bindings.append((name, _pos(stmt), tape))

    def resolve_tape(self, name: str, stmt: ast.stmt) -> _Tape | None:
        """The tape a name means at a statement: the latest binding before it."""
        here = _pos(stmt)
        found = None
        for bound, where, tape in self.bindings:
            if bound == name and where < here and (found is None or where >= found[0]):
                found = (where, tape)
        return found[1] if found else None

    def _find_calls(self) -> list[_GradCall]:
        calls = []
        for stmt in self.stmts:
            for node in self._own_nodes(stmt):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                        and node.func.attr in TAPE_METHODS and isinstance(node.func.value, ast.Name)):
                    tape = self.resolve_tape(node.func.value.id, stmt)
                    repeated = deferred = False
                    up = self.parent.get(id(node))
                    while up is not None and up is not stmt:
                        repeated = repeated or isinstance(up, _COMPREHENSIONS)
                        deferred = deferred or isinstance(up, ast.Lambda)
                        up = self.parent.get(id(up))
                    calls.append(_GradCall(node, tape, node.func.attr, stmt, repeated, deferred))
        calls.sort(key=lambda c: _pos(c.call))
        return calls

    def _find_assigns(self) -> dict[str, list[_Assign]]:
        found: dict[str, list[_Assign]] = {}

        def add(name: str, stmt: ast.stmt, value: ast.expr | None, kills: bool) -> None:
            found.setdefault(name, []).append(_Assign(name, stmt, value, kills))

        for stmt in self.stmts:
            if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                if stmt.value is None:
                    continue
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                for target in targets:
                    for name in _target_names(target):
                        add(name.id, stmt, stmt.value, True)
                    if isinstance(target, (ast.Subscript, ast.Attribute)):
                        base = _base_name(target)
                        if base:
                            add(base, stmt, stmt.value, False)
            elif isinstance(stmt, ast.AugAssign):
                base = _base_name(stmt.target)
                if base:
                    add(base, stmt, stmt.value, False)
            elif isinstance(stmt, (ast.For, ast.AsyncFor)):
                for name in _target_names(stmt.target):
                    add(name.id, stmt, stmt.iter, False)
            elif isinstance(stmt, (ast.With, ast.AsyncWith)):
                for item in stmt.items:
                    if item.optional_vars is not None and not self.ctx.is_tape_constructor(item.context_expr):
                        for name in _target_names(item.optional_vars):
                            add(name.id, stmt, item.context_expr, True)
        return found

    # -- questions about the code ----------------------------------------------

    def inside(self, stmt: ast.stmt, tape: _Tape) -> bool:
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

    def reaching(self, name: str, stmt: ast.stmt) -> list[_Assign]:
        """Assignments of a name whose value may be the one read at a statement."""
        here = _pos(stmt)
        candidates = [a for a in self.assigns.get(name, []) if _pos(a.stmt) < here]
        for assign in reversed(candidates):
            if assign.kills and self.dominates(assign.stmt, stmt):
                start = _pos(assign.stmt)
                return [a for a in candidates if _pos(a.stmt) >= start]
        return candidates

    def resolve_function(self, name: str) -> tuple[str, object] | None:
        """What a called name means: a nested def, a top-level definition, or nothing we know."""
        unit: _Unit | None = self
        while unit is not None:
            if name in unit.local_defs:
                return ("local", (unit.local_defs[name], unit))
            if name in unit.locals:
                return None
            unit = unit.outer
        found = self.ctx.lookup(name)
        return ("global", found) if found is not None else None

    def call_computes_gradient(self, call: ast.Call, stack: frozenset[int] = frozenset()) -> bool:
        if not isinstance(call.func, ast.Name):
            return False
        resolved = self.resolve_function(call.func.id)
        if resolved is None:
            return False
        kind, what = resolved
        if kind == "local":
            fn, owner = what
            if id(fn) in stack:
                return False
            return self.ctx.unit(fn, self.parsed, owner).computes_gradient(stack | {id(fn)})
        return self.ctx.definition_computes_gradient(what, stack)

    def computes_gradient(self, stack: frozenset[int] = frozenset()) -> bool:
        """Whether running this body calls gradient/jacobian on a tape (here or in what it calls)."""
        if any(c.tape is not None for c in self.calls):
            return True
        stack = stack | {id(self.fn)}
        for stmt in self.stmts:
            for node in self._own_nodes(stmt):
                if isinstance(node, ast.Call) and self.call_computes_gradient(node, stack):
                    return True
        return False

    # -- findings ---------------------------------------------------------------

    def tape_findings(self) -> list[Finding]:
        found: list[Finding] = []
        for call in self.calls:
            if call.tape is not None and call.tape.blocks and not call.deferred:
                found.extend(self._outside_context(call))
        for tape in self.tapes:
            if tape.persistent is False:
                found.extend(self._non_persistent(tape))
        return found

    def _finding(self, pitfall: str, message: str, node: ast.AST) -> Finding:
        return self.ctx.finding(pitfall, message, self.parsed, node)

    def _block_near(self, tape: _Tape, stmt: ast.stmt) -> tuple[ast.AST, bool]:
        """The tape's block a statement outside it is closest to, and whether the statement comes after it."""
        ended = [b for b in tape.blocks if b.end_lineno < stmt.lineno]
        if ended:
            return max(ended, key=lambda b: b.end_lineno), True
        return min(tape.blocks, key=lambda b: b.lineno), False

    def _outside_context(self, grad: _GradCall) -> list[Finding]:
        """tape-outside-context: the target of `T.gradient(target, ...)` flows from work `T` never recorded."""
        tape = grad.tape
        target = grad.call.args[0] if grad.call.args else _keyword(grad.call, "target")
        if target is None:
            return []
        used = f"`{tape.name}.{grad.method}(...)` on line {grad.call.lineno}"
        found: list[Finding] = []
        seen: set[int] = set()
        comprehension_names = self._enclosing_comprehension_names(grad.call, grad.stmt)

        def check(expr: ast.expr, stmt: ast.stmt, node: ast.AST, bindings: dict) -> None:
            if not self.inside(stmt, tape):
                block, after = self._block_near(tape, stmt)
                where = (f"{'after' if after else 'before'} the `{tape.header}` block "
                         f"{'ends' if after else 'begins'} (lines {block.lineno}-{block.end_lineno})")
                source = self._gradient_source(expr, stmt, tape)
                if source is not None:
                    kind, call, other = source
                    if kind == "tape":
                        whose = (f" on the other tape named `{other.name}` (line {other.created.lineno})"
                                 if other.name == tape.name else "")
                        what = f"`{call.func.value.id}.{call.func.attr}(...)`{whose} is called {where}"
                    else:
                        what = f"`{call.func.id}(...)` computes a gradient {where}"
                    consequence = ("cannot differentiate through it" if kind == "tape"
                                   else "silently misses that term")
                    found.append(self._finding(
                        "tape-outside-context",
                        f"{what}, so `{tape.name}` never records it and {used} {consequence}", node))
                    return
                if after and _has_op(expr) and self._reads_recorded(expr, stmt, tape, bindings):
                    text = _snippet(self.parsed, stmt if node is stmt else expr)
                    found.append(self._finding(
                        "tape-outside-context",
                        f"`{text}` is computed {where}, so `{tape.name}` never records it "
                        f"and {used} cannot differentiate through it", node))
                    return
            for name in _dep_names(expr, bindings):
                for assign in self.reaching(name.id, stmt):
                    if id(assign) in seen or assign.value is None:
                        continue
                    seen.add(id(assign))
                    check(assign.value, assign.stmt, assign.stmt, {})

        check(target, grad.stmt, grad.call, comprehension_names)
        return found

    def _enclosing_comprehension_names(self, node: ast.AST, stmt: ast.stmt) -> dict[str, list[ast.Name]]:
        """Names bound by comprehensions around a node, mapped to the names their values come from."""
        chain = []
        up = self.parent.get(id(node))
        while up is not None and up is not stmt:
            if isinstance(up, _COMPREHENSIONS):
                chain.append(up)
            up = self.parent.get(id(up))
        bindings: dict[str, list[ast.Name]] = {}
        for comprehension in reversed(chain):
            for generator in comprehension.generators:
                sources = _dep_names(generator.iter, bindings)
                for name in _target_names(generator.target):
                    bindings[name.id] = sources
        return bindings

    def _gradient_source(self, expr: ast.expr, stmt: ast.stmt,
                         tape: _Tape) -> tuple[str, ast.Call, _Tape | None] | None:
        """A gradient computed by another tape, or by a function that computes one, in an expression."""
        for node in _walk_live(expr):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in TAPE_METHODS and isinstance(func.value, ast.Name):
                other = self.resolve_tape(func.value.id, stmt)
                if other is not None and other is not tape:
                    return ("tape", node, other)
            elif isinstance(func, ast.Name) and self.call_computes_gradient(node):
                return ("function", node, None)
        return None

    def _reads_recorded(self, expr: ast.expr, stmt: ast.stmt, tape: _Tape, bindings: dict) -> bool:
        """Whether an expression reads a value assigned inside the tape's blocks."""
        return any(self.inside(assign.stmt, tape)
                   for name in _dep_names(expr, bindings)
                   for assign in self.reaching(name.id, stmt))

    def _non_persistent(self, tape: _Tape) -> list[Finding]:
        """non-persistent-tape: a second gradient/jacobian call on one path, or jacobian without pfor."""
        found: list[Finding] = []
        mine = [c for c in self.calls if c.tape is tape and not c.deferred]
        created = f"`{tape.header}` on line {tape.created.lineno}"
        for call in mine:
            pfor = _keyword(call.call, "experimental_use_pfor")
            if (call.method != "gradient" and isinstance(pfor, ast.Constant) and pfor.value is False):
                found.append(self._finding(
                    "non-persistent-tape",
                    f"`{tape.name}.{call.method}(..., experimental_use_pfor=False)` on line {call.call.lineno} "
                    f"needs a persistent tape in eager mode, but {created} is not persistent: "
                    "TensorFlow raises a ValueError; create it with `persistent=True`", call.call))
        if not mine:
            return found
        by_stmt: dict[int, list[_GradCall]] = {}
        for call in mine:
            by_stmt.setdefault(id(call.stmt), []).append(call)
        paths = self._paths(self.fn.body, tape, by_stmt)
        longest = _longest(paths.fall, paths.ret) or ()
        if len(longest) >= 2:
            first, second = longest[0], longest[1]
            if first is second:
                text = (f"`{tape.name}.{second.method}(...)` on line {second.call.lineno} runs more than once "
                        f"(in a loop) on `{tape.name}`, which is not persistent ({created})")
            else:
                text = (f"`{tape.name}.{second.method}(...)` on line {second.call.lineno} is the second call "
                        f"on `{tape.name}` (the first is on line {first.call.lineno}), which is not persistent "
                        f"({created})")
            found.append(self._finding(
                "non-persistent-tape",
                f"{text}: TensorFlow raises a RuntimeError; create the tape with `persistent=True`", second.call))
        return found

    def _paths(self, body: list[ast.stmt], tape: _Tape, by_stmt: dict[int, list[_GradCall]]) -> _Paths:
        """Longest call sequences on the tape through a block, by way out (fall through, return, break...)."""
        out = _Paths(fall=(), ret=None)
        for stmt in body:
            current = out.fall
            if current is None:
                break
            own: tuple = ()
            for call in by_stmt.get(id(stmt), []):
                own += (call, call) if call.repeated else (call,)
            current = current + own
            if isinstance(stmt, (ast.Return, ast.Raise)):
                out.ret, out.fall = _longest(out.ret, current), None
            elif isinstance(stmt, ast.Break):
                out.brk, out.fall = _longest(out.brk, current), None
            elif isinstance(stmt, ast.Continue):
                out.cont, out.fall = _longest(out.cont, current), None
            elif isinstance(stmt, ast.If):
                yes, no = self._paths(stmt.body, tape, by_stmt), self._paths(stmt.orelse, tape, by_stmt)
                out.fall = _longest(_plus(current, yes.fall), _plus(current, no.fall))
                self._merge_exits(out, current, yes, no)
            elif isinstance(stmt, (ast.With, ast.AsyncWith)):
                inner = self._paths(stmt.body, tape, by_stmt)
                out.fall = _plus(current, inner.fall)
                self._merge_exits(out, current, inner)
            elif isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
                inner = self._paths(stmt.body, tape, by_stmt)
                once = _longest(inner.fall, inner.cont)
                repeats = not self._contains(stmt, tape.created)
                normal = current + (once or ()) + ((once or ()) if repeats else ())
                before_last = current + ((once or ()) if repeats else ())
                orelse = self._paths(stmt.orelse, tape, by_stmt)
                out.fall = _longest(_plus(normal, orelse.fall), _plus(before_last, inner.brk))
                out.ret = _longest(out.ret, _plus(before_last, inner.ret), _plus(normal, orelse.ret))
                out.brk = _longest(out.brk, _plus(normal, orelse.brk))
                out.cont = _longest(out.cont, _plus(normal, orelse.cont))
            elif isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
                body_paths = self._paths(stmt.body, tape, by_stmt)
                partial = current + (_longest(body_paths.fall, body_paths.ret, body_paths.brk, body_paths.cont) or ())
                branches = [self._paths(h.body, tape, by_stmt) for h in stmt.handlers]
                orelse = self._paths(stmt.orelse, tape, by_stmt)
                final = self._paths(stmt.finalbody, tape, by_stmt).fall or ()
                fall = _longest(_plus(_plus(current, body_paths.fall), orelse.fall),
                                *(_plus(partial, b.fall) for b in branches))
                out.fall = _plus(fall, final)
                self._merge_exits(out, current, body_paths)
                for branch in branches:
                    self._merge_exits(out, partial, branch)
                self._merge_exits(out, _plus(current, body_paths.fall) or current, orelse)
            elif type(stmt).__name__ == "Match":
                cases = [self._paths(case.body, tape, by_stmt) for case in stmt.cases]
                out.fall = _longest(current, *(_plus(current, c.fall) for c in cases))
                self._merge_exits(out, current, *cases)
            else:
                out.fall = current
        return out

    @staticmethod
    def _merge_exits(out: _Paths, current: tuple, *inners: _Paths) -> None:
        for inner in inners:
            out.ret = _longest(out.ret, _plus(current, inner.ret))
            out.brk = _longest(out.brk, _plus(current, inner.brk))
            out.cont = _longest(out.cont, _plus(current, inner.cont))

    def _contains(self, outer: ast.stmt, inner: ast.stmt) -> bool:
        """Whether a statement is nested in another (a loop that creates the tape anew each time)."""
        first, second = self.chain[id(outer)], self.chain[id(inner)]
        return len(second) > len(first) and second[:len(first)] == first


def _own_children(stmt: ast.stmt) -> Iterator[ast.AST]:
    """The expressions a statement evaluates itself, not those of the statements nested in it."""
    for _, value in ast.iter_fields(stmt):
        values = value if isinstance(value, list) else [value]
        for item in values:
            if isinstance(item, ast.AST) and not isinstance(item, (ast.stmt, ast.excepthandler, ast.match_case)):
                yield item


def _persistent(call: ast.Call) -> bool | None:
    value = _keyword(call, "persistent")
    if value is None and call.args:
        value = call.args[0]
    if value is None:
        return False
    if isinstance(value, ast.Constant) and isinstance(value.value, bool):
        return value.value
    return None


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _base_name(target: ast.expr) -> str | None:
    while isinstance(target, (ast.Subscript, ast.Attribute)):
        target = target.value
    return target.id if isinstance(target, ast.Name) else None


def _call_name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _attribute_chain(node: ast.expr) -> list[str]:
    """`np.linalg.norm` -> ['np', 'linalg', 'norm']; [] when the root is not a name."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return []
    parts.append(node.id)
    return parts[::-1]


def _is_stop_gradient_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    return (isinstance(func, ast.Attribute) and func.attr == "stop_gradient") or (
        isinstance(func, ast.Name) and func.id == "stop_gradient")


def _walk_live(node: ast.AST) -> Iterator[ast.AST]:
    """Nodes evaluated now and able to carry a gradient: not lambda bodies, not stop_gradient arguments."""
    yield node
    if isinstance(node, ast.Lambda) or _is_stop_gradient_call(node):
        return
    for child in ast.iter_child_nodes(node):
        yield from _walk_live(child)


def _dep_names(expr: ast.AST, bindings: dict[str, list[ast.Name]]) -> list[ast.Name]:
    """Names an expression's value comes from; comprehension variables are followed to their iterables."""
    found: list[ast.Name] = []

    def visit(node: ast.AST, local: dict[str, list[ast.Name]]) -> None:
        if isinstance(node, ast.Lambda) or _is_stop_gradient_call(node):
            return
        if isinstance(node, _COMPREHENSIONS):
            inner = dict(local)
            for generator in node.generators:
                sources: list[ast.Name] = []
                collect(generator.iter, inner, sources)
                for name in _target_names(generator.target):
                    inner[name.id] = sources
            for element in ([node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]):
                visit(element, inner)
            return
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            if node.id in local:
                found.extend(local[node.id])
            else:
                found.append(node)
            return
        for child in ast.iter_child_nodes(node):
            visit(child, local)

    def collect(node: ast.AST, local: dict, into: list[ast.Name]) -> None:
        before = len(found)
        visit(node, local)
        into.extend(found[before:])
        del found[before:]

    visit(expr, bindings)
    return found


def _has_op(expr: ast.expr) -> bool:
    """Whether evaluating an expression runs an operation (that a tape would have to record)."""
    for node in _walk_live(expr):
        if isinstance(node, ast.BinOp) or (isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not)):
            return True
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in NO_OP_BUILTINS):
            return True
    return False


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


class _Lazy:
    """A message part computed only when a message is actually made."""

    def __init__(self, make):
        self._make = make

    def __format__(self, spec: str) -> str:
        return format(self._make(), spec)


def _snippet(parsed: _Parsed, node: ast.AST, limit: int = 60) -> str:
    """The source of a node on one line, shortened for a message."""
    text = parsed.segment(node) or ast.unparse(node)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def _dedupe(findings: list[Finding], ctx: _Context) -> tuple[Finding, ...]:
    """One finding per place and kind, in reading order (cells in notebook order)."""
    order = {p.cell.index: p.order for p in ctx.parsed}
    kept: dict[tuple, Finding] = {}
    for finding in findings:
        key = (finding.pitfall, finding.cell, finding.line,
               finding.message if finding.pitfall == "gradient-cut" else "")
        kept.setdefault(key, finding)
    return tuple(sorted(kept.values(), key=lambda f: (order.get(f.cell, 0) if f.cell is not None else 0, f.line)))
