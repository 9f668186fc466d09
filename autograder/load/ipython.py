"""IPython syntax made plain Python, with the same line numbers, so that the child can run it and the static
reading can parse it; and the cells that only call the kit's own notebook API (skipped when grading)."""
from __future__ import annotations

import ast
import io
import re
import tokenize

# Cell magics whose body is ordinary Python that a kernel would run.
RUNNABLE_CELL_MAGICS = {"time", "timeit", "capture", "prun", "debug"}
_SHELL_ASSIGN = re.compile(r"^(\s*)([A-Za-z_][\w\s,()\[\]]*?)\s*=\s*[!%]")
_MAGIC_LINE = re.compile(r"^(\s*)[!%]")
_HELP_LINE = re.compile(r"^(\s*)[\w.]+\?{1,2}\s*$")


def neutralise_ipython(source: str) -> tuple[str, str | None]:
    """Rewrite IPython-only syntax into Python with the same line numbers.

    Returns ``(code, skipped)``: ``skipped`` says why a whole cell must not run
    (a ``%%bash`` or ``%%writefile`` cell), else None. Line magics and shell
    lines become ``pass`` (or ``name = None`` for ``x = !ls``): the grader never
    runs a shell.
    """
    lines = source.splitlines()
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and lines[first].lstrip().startswith("%%"):
        magic = lines[first].lstrip()[2:].split(maxsplit=1)
        name = magic[0] if magic else ""
        if name not in RUNNABLE_CELL_MAGICS:
            return "", f"cell magic %%{name} is not run by the grader"
        lines[first] = ""
    # Tokenizing is most of a notebook's reading time: only where a line could be IPython is it needed.
    could_be = any(_MAGIC_LINE.match(line) or _HELP_LINE.match(line) or _SHELL_ASSIGN.match(line) for line in lines)
    string_lines = _lines_inside_strings("\n".join(lines)) if could_be else set()
    out = []
    for number, line in enumerate(lines, start=1):
        if number in string_lines:
            out.append(line)
            continue
        assign = _SHELL_ASSIGN.match(line)
        magic = _MAGIC_LINE.match(line)
        helpline = _HELP_LINE.match(line)
        if assign and not line.strip().startswith(("%", "!")):
            out.append(f"{assign.group(1)}{assign.group(2).strip()} = None")
        elif magic:
            out.append(f"{magic.group(1)}pass")
        elif helpline:
            out.append(f"{helpline.group(1)}pass")
        else:
            out.append(line)
    return "\n".join(out) + ("\n" if source.endswith("\n") else ""), None


def _lines_inside_strings(code: str) -> set[int]:
    """Lines that continue a multi-line string: a '%' there is text, not a magic."""
    inside: set[int] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type == tokenize.STRING and token.start[0] != token.end[0]:
                inside.update(range(token.start[0] + 1, token.end[0] + 1))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass  # a broken cell: the child reports its SyntaxError
    return inside


GRADER_CELL_MODULES = ("autograder.selfcheck", "autograder.graded_cell")


def calls_only_the_grader(code: str) -> bool:
    """A public check or graded cell copied without its nbgrader metadata: imports of the kit's
    notebook API and calls of what they import, nothing else. Run in the grader's child it would
    grade again from inside the sandbox."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    imported: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom) and statement.module in GRADER_CELL_MODULES:
            imported |= {alias.asname or alias.name for alias in statement.names}
        elif not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
                  and isinstance(statement.value.func, ast.Name) and statement.value.func.id in imported):
            return False
    return bool(imported) and len(tree.body) > 1
