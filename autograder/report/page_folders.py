"""Where feedback pages go: one folder per student, one-to-one with the names students chose, and stable.

A student's name (nbgrader's ``submitted/<student>/`` folder, or a file's name) is theirs to choose. Its
folder is the name itself when the name is already a plain, portable folder name: lower-case letters, digits,
``.``, ``_`` and ``-``, starting with a letter or digit, at most 80 characters, not a name Windows reserves.
Any other name (``_x``, ``X``, ``a b``, ``ümlaut``, ``../etc``) gets a folder that is visibly not the name:
the name made safe, then ``--`` and 16 hex digits of the name's SHA-256, which depend on that name alone. So a
folder never depends on who else is in the run (a classmate cannot move anyone's page), two names never share
one (kept names never end in ``--`` and 16 hex digits; different changed names differ in their digest), not
even on a file system that ignores case (kept names have no capitals; the digest is lower-case hex).

The instructor's index (every score, and the seed) is not in the folder handed to students: it is written
beside it (``index_path``), and no student's page links to it.
"""
from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_KEPT = re.compile(r"[a-z0-9][a-z0-9._-]{0,79}")
_CHANGED = re.compile(r".*--[0-9a-f]{16}")
# Names Windows refuses for a file or folder, with or without an extension (and "index.html", our own name).
_WINDOWS = re.compile(r"(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?|index\.html", re.IGNORECASE)


def slug(text: str, fallback: str) -> str:
    """A file name made of [A-Za-z0-9._-] only, never empty, hidden, or a reserved name."""
    name = _UNSAFE.sub("_", text).strip("._")[:80] or fallback
    return f"_{name}" if _WINDOWS.fullmatch(name) else name


def student_folder(student: str) -> str:
    """The student's folder (see the module's docstring): the name, or the name made safe plus its digest."""
    if _KEPT.fullmatch(student) and not student.endswith(".") and not _WINDOWS.fullmatch(student) \
            and not _CHANGED.fullmatch(student):
        return student
    digest = hashlib.sha256(student.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{slug(student, 'student')[:60]}--{digest}"


def page_paths(results: list) -> list[str]:
    """Each result's page, relative to the folder: '<student folder>/<assignment>.html'; a student's second
    submission of one assignment in the run gets '-2' (its own folder: no one else's page is there)."""
    used: set[str] = set()
    paths = []
    for result in results:
        base = f"{student_folder(result.student)}/{slug(result.assignment, 'assignment')}"
        name, n = f"{base}.html", 1
        while name.lower() in used:
            n += 1
            name = f"{base}-{n}.html"
        used.add(name.lower())
        paths.append(name)
    return paths


def index_path(folder: Path) -> Path:
    """The instructor's index of the pages in ``folder``: beside it, ``<folder>-index.html``, never inside."""
    folder = Path(os.path.abspath(folder))
    return folder.parent / f"{folder.name or 'feedback'}-index.html"


def inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` is ``folder`` or lies below it (a page written there would be handed out with it)."""
    path, folder = Path(os.path.abspath(path)), Path(os.path.abspath(folder))
    return path == folder or folder in path.parents
