"""Python's scoping, read from the tree: the names a function binds locally, and the free names of code."""
from __future__ import annotations

import ast
from typing import Iterator

from autograder.judge.static.syntax import COMPREHENSIONS


def bound_by_import(alias: ast.alias) -> str:
    return alias.asname or alias.name.split(".")[0]


def arg_names(args: ast.arguments) -> set[str]:
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    every += [a for a in (args.vararg, args.kwarg) if a is not None]
    return {a.arg for a in every}


def local_names(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    """Names a function binds locally: a reference to them is not a reference to a global."""
    names = arg_names(fn.args)
    if isinstance(fn, ast.Lambda):
        return names
    declared_global: set[str] = set()
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        if isinstance(node, (ast.Lambda, *COMPREHENSIONS)):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update(bound_by_import(a) if isinstance(node, ast.Import) else (a.asname or a.name)
                         for a in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            declared_global.update(node.names)
        stack.extend(ast.iter_child_nodes(node))
    return names - declared_global


def free_names(node: ast.AST, bound: frozenset[str]) -> Iterator[ast.Name]:
    """Name loads that refer outside the code walked (to globals), honouring Python's scopes."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        for outer in [*node.decorator_list, *node.args.defaults, *[d for d in node.args.kw_defaults if d]]:
            yield from free_names(outer, bound)
        inner = bound | local_names(node)
        for statement in node.body:
            yield from free_names(statement, inner)
    elif isinstance(node, ast.Lambda):
        for outer in [*node.args.defaults, *[d for d in node.args.kw_defaults if d]]:
            yield from free_names(outer, bound)
        yield from free_names(node.body, bound | local_names(node))
    elif isinstance(node, ast.ClassDef):
        for outer in [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]:
            yield from free_names(outer, bound)
        class_names = {n.id for s in node.body for n in ast.walk(s)
                       if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        for statement in node.body:
            yield from free_names(statement, bound | class_names)
    elif isinstance(node, COMPREHENSIONS):
        inner = set(bound)
        for number, generator in enumerate(node.generators):
            yield from free_names(generator.iter, bound if number == 0 else frozenset(inner))
            inner |= {n.id for n in ast.walk(generator.target) if isinstance(n, ast.Name)}
            for condition in generator.ifs:
                yield from free_names(condition, frozenset(inner))
        elements = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        for element in elements:
            yield from free_names(element, frozenset(inner))
    elif isinstance(node, ast.Name):
        if isinstance(node.ctx, ast.Load) and node.id not in bound:
            yield node
    else:
        for child in ast.iter_child_nodes(node):
            yield from free_names(child, bound)
