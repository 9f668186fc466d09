"""Expression helpers: small questions about one node of the tree, with no state and no scopes."""
from __future__ import annotations

import ast
from typing import Iterator

TAPE_METHODS = frozenset({"gradient", "jacobian", "batch_jacobian"})


def is_tape_call(node: ast.AST | None) -> bool:
    """`something.gradient(...)`, `.jacobian(...)` or `.batch_jacobian(...)`: a tape's derivative."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in TAPE_METHODS
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def tape_ref(node: ast.AST | None) -> str | None:
    """How code names a tape: a name (`tape`) or an attribute of one (`self.outer`, `tapes.inner`), as a string;
    None for anything else. A tape kept as an attribute is the same tape in every statement that names it so."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = tape_ref(node.value)
        return f"{base}.{node.attr}" if base is not None else None
    return None


def pos(node: ast.AST) -> tuple[int, int]:
    return (node.lineno, node.col_offset)


def keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def base_name(target: ast.expr) -> str | None:
    while isinstance(target, (ast.Subscript, ast.Attribute)):
        target = target.value
    return target.id if isinstance(target, ast.Name) else None


def call_name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def attribute_chain(node: ast.expr) -> list[str]:
    """`np.linalg.norm` -> ['np', 'linalg', 'norm']; [] when the root is not a name."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return []
    parts.append(node.id)
    return parts[::-1]


def target_names(target: ast.expr) -> list[ast.Name]:
    """Names bound by an assignment target (not attributes or subscripts)."""
    if isinstance(target, ast.Name):
        return [target]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in target_names(element)]
    if isinstance(target, ast.Starred):
        return target_names(target.value)
    return []


def own_children(stmt: ast.stmt) -> Iterator[ast.AST]:
    """The expressions a statement evaluates itself, not those of the statements nested in it."""
    for _, value in ast.iter_fields(stmt):
        values = value if isinstance(value, list) else [value]
        for item in values:
            if isinstance(item, ast.AST) and not isinstance(item, (ast.stmt, ast.excepthandler, ast.match_case)):
                yield item


def is_stop_gradient_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    return (isinstance(func, ast.Attribute) and func.attr == "stop_gradient") or (
        isinstance(func, ast.Name) and func.id == "stop_gradient")


def walk_live(node: ast.AST) -> Iterator[ast.AST]:
    """Nodes evaluated now and able to carry a gradient: not lambda bodies, not stop_gradient arguments."""
    yield node
    if isinstance(node, ast.Lambda) or is_stop_gradient_call(node):
        return
    for child in ast.iter_child_nodes(node):
        yield from walk_live(child)


def dep_names(expr: ast.AST, bindings: dict[str, list[ast.Name]]) -> list[ast.Name]:
    """Names an expression's value comes from; comprehension variables are followed to their iterables."""
    found: list[ast.Name] = []

    def visit(node: ast.AST, local: dict[str, list[ast.Name]]) -> None:
        if isinstance(node, ast.Lambda) or is_stop_gradient_call(node):
            return
        if isinstance(node, COMPREHENSIONS):
            inner = dict(local)
            for generator in node.generators:
                sources: list[ast.Name] = []
                collect(generator.iter, inner, sources)
                for name in target_names(generator.target):
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
