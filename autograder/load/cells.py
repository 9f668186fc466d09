"""Turn a submission file (notebook or ``.py``) into cells of plain Python.

Reading never runs student code: it parses JSON and rewrites IPython syntax so
that the same text serves both the child process (which executes it) and the
static checks (which parse it). Line numbers are kept, so a message can say
"cell [7], line 4" and mean the line the student sees.

Cells are numbered as students see them: a code cell's number is its place among the notebook's code cells,
the execution count JupyterLab (or Colab) shows beside it, "[7]", after "Restart Kernel and Run All Cells";
in a live kernel the self-check names a cell by its current count, which is that number after Run All.
"""
from __future__ import annotations

import ast
import io
import json
import symtable
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

from autograder.load.ipython import calls_only_the_grader, neutralise_ipython
from autograder.load.reading import (MAX_CELL_CHARS, MAX_CODE_CHARS, TooLarge, not_a_submission, parse_notebook,
                                     read_bytes, refusal, shown, unreadable_code)

# Read-only cells of our own notebooks that only test, never define: the
# grader replaces them, so running a stale copy would only cost time.
SKIPPED_GRADE_ID_PREFIXES = ("test_", "check_")

# The course's read-only cells that graded code may need (imports, constants).
KEPT_READ_ONLY_CELLS = {"setup"}
READ_ONLY_DEMO = "a read-only teaching cell: nbgrader restores it, so it cannot hold the student's work"



@dataclass(frozen=True)
class Cell:
    """One code cell as the grader sees it."""

    index: int  # its number among the notebook's code cells, from 1: its execution count after Run All
    source: str  # the student's text
    code: str  # plain Python with IPython syntax neutralised, same line numbers
    grade_id: str | None = None
    solution: bool = False  # an nbgrader solution cell (where students write code)
    skipped: str | None = None  # why the cell is not run, if it is not

    @property
    def label(self) -> str:
        return cell_label(self.index)


def cell_label(number: int) -> str:
    """How every message names a notebook's code cell: as JupyterLab numbers it after Run All, "cell [7]"."""
    return f"cell [{number}]"


@dataclass
class SubmissionSource:
    """The readable part of a submission: its code cells, or why it has none."""

    path: Path
    kind: str  # "notebook" or "python"
    cells: list[Cell] = field(default_factory=list)
    metadata: dict = field(default_factory=dict)
    problem: str | None = None  # set when the file cannot be read at all
    cell_label: str = "cell [{}]"  # how feedback names a cell: its execution count ("cell [7]"), see above

    @property
    def runnable_cells(self) -> list[Cell]:
        return [cell for cell in self.cells if cell.skipped is None]

    def cell(self, index: int) -> Cell | None:
        return next((cell for cell in self.cells if cell.index == index), None)

    def where(self, cell_index: int | None, line: int | None) -> str:
        """'cell 7, line 4' for notebooks, 'line 4' for .py files."""
        if line is None:
            return self.cell_label.format(cell_index) if cell_index is not None and self.kind == "notebook" else ""
        if self.kind == "notebook" and cell_index is not None:
            return f"{self.cell_label.format(cell_index)}, line {line}"
        return f"line {line}"


def read_submission(path: Path) -> SubmissionSource:
    """Read a ``.ipynb`` or ``.py`` file; never raises for bad content (see ``load.reading``). Any other name is
    not a submission (the contract: a notebook or a ``.py`` file) and is refused by its name, unread."""
    path = Path(path)
    if path.suffix == ".ipynb":
        return _read_notebook(path)
    if path.suffix == ".py":
        return _read_python(path)
    return SubmissionSource(path, "notebook" if ".ipynb" in path.name.lower() else "python",
                            problem=not_a_submission(path))


def _read_python(path: Path) -> SubmissionSource:
    data = read_bytes(path)
    name = shown(path.name)
    if isinstance(data, str):
        return SubmissionSource(path, "python", problem=data)
    try:
        text = _decode_python(data)
    except (UnicodeDecodeError, SyntaxError, LookupError) as error:
        return SubmissionSource(path, "python", problem=f"{name} is not readable Python text: {error}")
    if "\x00" in text:
        return SubmissionSource(path, "python", problem=f"{name} is a binary file, not Python source")
    if not text.strip():
        return SubmissionSource(path, "python", problem=f"{name} is empty")
    reason = unreadable_code(text, name)
    if reason is not None:  # its one cell: the whole file is unreadable, and each exercise's feedback says why
        return SubmissionSource(path, "python", problem=reason)
    return SubmissionSource(path, "python", cells=[Cell(index=1, source=text, code=text)])


def _readable(code: str, where: str) -> str:
    """The code itself, or a ``raise`` that says why the grader does not read it (see ``load.reading``)."""
    reason = unreadable_code(code, where)
    return code if reason is None else refusal(reason)


def _decode_python(data: bytes) -> str:
    """Decode as Python itself would: BOM, coding cookie, else UTF-8."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding).lstrip("\ufeff")


def _read_notebook(path: Path) -> SubmissionSource:
    data = read_bytes(path)
    name = shown(path.name)
    if isinstance(data, str):
        return SubmissionSource(path, "notebook", problem=data)
    if not data.strip():
        return SubmissionSource(path, "notebook", problem=f"{name} is empty (0 cells): save the notebook and submit again")
    try:
        raw = parse_notebook(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        return SubmissionSource(path, "notebook", problem=f"{name} is not a notebook: it is not UTF-8 text")
    except json.JSONDecodeError as error:
        invalid = f"notebook is not valid JSON: line {error.lineno}, column {error.colno}: {error.msg}"
        if not data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{"):  # not even meant as JSON
            return SubmissionSource(path, "notebook", problem=f"{name} is not a notebook: a notebook is JSON text "
                                                              f"and this file is not ({invalid})")
        return SubmissionSource(path, "notebook", problem=f"{invalid} (in {name}: the file was cut short or edited "
                                                          "by hand; open it in Jupyter, save it and submit it again)")
    except TooLarge as error:
        return SubmissionSource(path, "notebook", problem=f"{name}: {error}")
    except (RecursionError, MemoryError, ValueError):
        return SubmissionSource(path, "notebook", problem=f"{name} is not a notebook the grader can read: its JSON "
                                                          "is nested too deeply or holds values too large to parse")
    del data
    if not isinstance(raw, dict) or not isinstance(raw.get("cells", None), list):
        return SubmissionSource(path, "notebook", problem=f"{name} is JSON but not a notebook: it has no list of cells")
    try:
        notebook = raw
        if not isinstance(raw.get("nbformat", 4), int) or raw.get("nbformat", 4) < 4:
            import nbformat  # only for old notebooks: importing it costs ~2 s (jsonschema's format checkers)

            notebook = nbformat.convert(nbformat.from_dict(raw), 4)
    except Exception as error:  # nbformat raises many kinds on odd input
        return SubmissionSource(path, "notebook", problem=f"{name} is not a readable notebook: {type(error).__name__}")
    cells = []
    total = 0  # characters of code so far
    code_cells = (cell for cell in notebook.get("cells", []) if isinstance(cell, dict) and cell.get("cell_type") == "code")
    for index, cell in enumerate(code_cells, start=1):  # numbered as Run All numbers them
        source = cell.get("source", "")
        if isinstance(source, list):  # nbformat's multi-line strings: a list of strings, nothing else
            source = "".join(part for part in source if isinstance(part, str))
        if not isinstance(source, str):
            continue
        meta = cell.get("metadata")
        nbgrader_meta = meta.get("nbgrader") if isinstance(meta, dict) else None
        if not isinstance(nbgrader_meta, dict):
            nbgrader_meta = {}
        grade_id = nbgrader_meta.get("grade_id")
        grade_id = grade_id if isinstance(grade_id, str) else None  # nbgrader's ids are strings; anything else is none
        solution = nbgrader_meta.get("solution") is True
        total += len(source)
        if total > MAX_CODE_CHARS:
            code, skipped = refusal(f"the notebook holds more than {MAX_CODE_CHARS:,} characters of code, the most "
                                    f"the grader reads: {cell_label(index)} and the cells after it are not run"), None
        elif len(source) > MAX_CELL_CHARS:
            code, skipped = _readable(source, cell_label(index)), None
        else:
            code, skipped = neutralise_ipython(source)
            code = _readable(code, cell_label(index))
        if grade_id and str(grade_id).startswith(SKIPPED_GRADE_ID_PREFIXES):
            skipped = skipped or "a test cell: the grader runs its own tests"
        elif calls_only_the_grader(code):
            skipped = skipped or "a check cell (it calls the grader): the grader runs its own tests"
        elif nbgrader_meta.get("locked") is True and not solution and grade_id not in KEPT_READ_ONLY_CELLS:
            skipped = skipped or READ_ONLY_DEMO
        cells.append(Cell(index=index, source=source, code=code, grade_id=grade_id, solution=solution,
                          skipped=skipped))
    cells = _keep_demo_cells_that_are_used(cells)
    metadata = notebook.get("metadata")
    metadata = dict(metadata) if isinstance(metadata, dict) else {}  # metadata that is not an object: none
    if not cells:
        return SubmissionSource(path, "notebook", metadata=metadata,
                                problem=f"{name} has no code cells")
    return SubmissionSource(path, "notebook", cells=cells, metadata=metadata)


def _keep_demo_cells_that_are_used(cells: list[Cell]) -> list[Cell]:
    """Run a read-only demo cell after all if a cell that runs uses, as a global, a name only it defines.

    Demo cells cost most of a notebook's run time (they time things, build models) and grade
    nothing; but a student may call a helper a demo defined, and must not lose points for it.
    """
    used: set[str] = set()
    bound: set[str] = set()
    for cell in cells:
        if cell.skipped is None:
            used |= _global_names_used(cell.code)
            bound |= _names_bound(cell.code)
    kept = []
    for cell in cells:
        if cell.skipped == READ_ONLY_DEMO and (_names_bound(cell.code) - bound) & used:
            cell = Cell(cell.index, cell.source, cell.code, cell.grade_id, cell.solution, None)
        kept.append(cell)
    return kept


def _symbol_table(code: str) -> symtable.SymbolTable | None:
    try:
        return symtable.symtable(code, "<cell>", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None  # a broken cell: the child reports its SyntaxError


def _global_names_used(code: str) -> set[str]:
    """Names that ``code`` reads from the module's namespace (in any scope), per Python's own symbol tables."""
    top = _symbol_table(code)
    names: set[str] = set()
    pending = [top] if top else []
    while pending:
        table = pending.pop()
        for symbol in table.get_symbols():
            if symbol.is_referenced() and (table is top or symbol.is_global()):
                names.add(symbol.get_name())
        pending.extend(table.get_children())
    return names


def _names_bound(code: str) -> set[str]:
    """Names bound at the top level of ``code``: assignments, defs, classes, imports."""
    top = _symbol_table(code)
    return {symbol.get_name() for symbol in top.get_symbols()
            if symbol.is_assigned() or symbol.is_imported() or symbol.is_namespace()} if top else set()


def defined_functions(source: SubmissionSource) -> dict[str, list[str]]:
    """Top-level ``def``s across the cells (last one wins, as when run), without running anything."""
    found: dict[str, list[str]] = {}
    for cell in source.runnable_cells:
        try:
            tree = ast.parse(cell.code)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found[node.name] = [arg.arg for arg in node.args.args]
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        found.setdefault(target.id, [])
    return found
