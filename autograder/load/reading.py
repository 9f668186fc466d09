"""Reading a submission's bytes and parsing them with bounded memory and time: what the parent may read at all.

A submission is the student's: its file may be a link to another file, a FIFO, 500 MB of saved outputs,
a million cells, JSON nested until the parser gives up, or one expression nested until ``ast.parse``
raises MemoryError. Each of these becomes that submission's problem, with a message that says what to do,
never an exception in the grader, and the parent's memory per submission stays bounded:

- the file is opened without following a symbolic link (``O_NOFOLLOW``) and must be a regular file of at
  most ``MAX_FILE_BYTES``; nothing is read before its size is known;
- a notebook's JSON is parsed with a hook that drops each cell's saved outputs and attachments as soon as
  the cell is built (outputs are never needed) and stops at ``MAX_CELLS`` cells;
- code beyond ``MAX_CODE_CHARS`` in all, a cell's code larger than ``MAX_CELL_CHARS``, or nested deeper than ``MAX_DEPTH`` syntax levels, or
  that Python itself cannot parse for its size (MemoryError, RecursionError) is replaced by a ``raise``
  that says so: neither the static reading (in the parent) nor the child runs it.
"""
from __future__ import annotations

import ast
import errno
import json
import os
import stat
from pathlib import Path

MiB = 2**20
MAX_FILE_BYTES = 32 * MiB  # a course notebook is well under 1 MiB; figures add a few MiB
MAX_CELLS = 5_000  # code and markdown cells together; the course's notebooks have about 60
MAX_CELL_CHARS = 200_000  # one cell's code (a long data literal is a few thousand characters)
MAX_CODE_CHARS = 1_000_000  # all of a submission's code: what the parent's static reading parses
MAX_DEPTH = 200  # nested syntax levels in one cell (the deepest honest code is a few dozen)
DROPPED_CELL_KEYS = ("outputs", "attachments")


class TooLarge(ValueError):
    """The notebook holds more than the grader reads."""


def shown(text: str) -> str:
    """A path's text as it can be printed and written to JSON: bytes that are not UTF-8 (a file name from
    another system) written as ``\\xe9`` instead of the lone surrogates Python decodes them to."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return os.fsencode(text).decode("utf-8", "backslashreplace")


def read_bytes(path: Path) -> bytes | str:
    """The file's bytes, or why they are not read (a link, not a regular file, too large, unreadable)."""
    name = shown(Path(path).name)
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        if error.errno == errno.ELOOP:
            return (f"{name} is a symbolic link: the grader reads only regular files, never what a link points "
                    "to (submit the file itself)")
        return f"cannot read {name}: {error.strerror or error}"
    try:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode):
            return f"{name} is not a regular file: the grader reads only regular files"
        if info.st_size > MAX_FILE_BYTES:
            return (f"{name} is {info.st_size / MiB:.1f} MiB; the grader reads submissions up to "
                    f"{MAX_FILE_BYTES // MiB} MiB: clear the notebook's outputs (Edit > Clear Outputs of All "
                    "Cells), save it and submit it again")
        chunks, size = [], 0
        while chunk := os.read(handle, 1 << 20):
            size += len(chunk)
            if size > MAX_FILE_BYTES:  # it grew while being read
                return f"{name} is larger than {MAX_FILE_BYTES // MiB} MiB, the most the grader reads"
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as error:
        return f"cannot read {name}: {error.strerror or error}"
    finally:
        os.close(handle)


# What a browser or a mail client adds to a downloaded notebook or script ("higher_order.ipynb.txt").
RENAMED_SUFFIXES = (".txt", ".json")


def renamed_download(path: Path) -> str | None:
    """The name a renamed download had (``higher_order.ipynb`` for ``higher_order.ipynb.txt``), else None."""
    path = Path(path)
    inner = Path(path.stem)
    if path.suffix.lower() in RENAMED_SUFFIXES and inner.suffix.lower() in (".ipynb", ".py") and inner.stem:
        return inner.stem + inner.suffix.lower()
    return None


def not_a_submission(path: Path) -> str:
    """Why a file with another suffix is not read. A renamed download is refused too, with the rename that fixes
    it: reading it by its content would grade files that nbgrader, the platforms and the student's Jupyter never
    see as a notebook, and a `.txt` that happens to hold Python would silently become a submission."""
    name = shown(Path(path).name)
    if original := renamed_download(path):
        return (f"{name} is not a submission under that name: it looks like {original} saved with an extra "
                f"{shown(Path(path).suffix)} (a browser's download does that): rename it to {original} and grade "
                "it again")
    return (f"{name} is not a submission: the grader reads a .ipynb notebook or a .py file (in Jupyter: File > "
            "Save, or File > Download as .py)")


def parse_notebook(text: str):
    """The notebook's JSON without any cell's outputs or attachments; raises TooLarge past MAX_CELLS cells,
    ValueError (JSONDecodeError) for broken JSON, RecursionError or MemoryError for JSON nested too deep."""
    cells = 0

    def lean(pairs: list[tuple[str, object]]) -> dict:
        nonlocal cells
        if any(key == "cell_type" for key, _ in pairs):
            cells += 1
            if cells > MAX_CELLS:
                raise TooLarge(f"the notebook has more than {MAX_CELLS} cells, the most the grader reads")
            return {key: value for key, value in pairs if key not in DROPPED_CELL_KEYS}
        return dict(pairs)

    return json.loads(text, object_pairs_hook=lean)


def unreadable_code(code: str, where: str) -> str | None:
    """Why Python's own parser (in the parent's static reading, or in the child) must not be given ``code``:
    too large, nested too deeply, or beyond what ``ast.parse`` can build; None when it may be read."""
    if len(code) > MAX_CELL_CHARS:
        return (f"{where} holds {len(code):,} characters of code, more than the {MAX_CELL_CHARS:,} the grader "
                "reads in one cell")
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return None  # an ordinary syntax error: the child reports it as Python does
    except (MemoryError, RecursionError):
        return f"{where} is nested too deeply for Python to parse"
    depth = _depth(tree)
    if depth > MAX_DEPTH:
        return f"{where} is nested {depth} levels deep, more than the {MAX_DEPTH} the grader reads"
    return None


def refusal(reason: str) -> str:
    """The code a cell that must not be read is replaced by: it raises, with the reason, when the child runs
    it, so the reason reaches the feedback as that cell's error."""
    return f"raise SyntaxError({reason!r})\n"


def _depth(tree: ast.AST) -> int:
    """The tree's depth, or MAX_DEPTH + 1 once it is deeper; level by level (a third of a notebook's reading)."""
    depth, level = 1, [tree]
    while depth <= MAX_DEPTH:
        level = [child for node in level for child in ast.iter_child_nodes(node)]
        if not level:
            return depth
        depth += 1
    return depth


def content_for_key(path: Path) -> bytes:
    """The file's bytes for a journal key, read as the loader reads it (no link, no FIFO, bounded size)."""
    data = read_bytes(path)
    return data if isinstance(data, bytes) else data.encode("utf-8", "replace")
