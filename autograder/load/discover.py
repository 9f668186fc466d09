"""Find submissions below the paths given, and tell whose they are and for which assignment."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from autograder.course import ASSIGNMENT_IDS, all_assignments
from autograder.load.cells import SubmissionSource, defined_functions
from autograder.load.reading import renamed_download, shown

SUFFIXES = (".ipynb", ".py")
IGNORED_PARTS = {".ipynb_checkpoints", "__pycache__", ".git", ".venv", "node_modules"}


@dataclass(frozen=True)
class Found:
    path: Path
    shown_as: str  # the path as given, or as found below a given directory (bytes that are not UTF-8 as \xNN)


def find_submissions(paths: list[str]) -> tuple[list[Found], list[str]]:
    """Expand files and directories in the order given; also return the paths that do not exist.

    Below a directory, a symbolic link named like a submission is listed too (whatever it points to, if
    anything): reading it then refuses it with a message, so a link to another file never becomes the
    submission and never disappears silently. Linked directories are not entered.
    """
    found: list[Found] = []
    missing: list[str] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            # An nbgrader course (or our examples/): only what students submitted, not the tools beside it.
            root = path / "submitted" if (path / "submitted").is_dir() else path
            for candidate in sorted(root.rglob("*")):
                relative = candidate.relative_to(path)
                # A renamed download (higher_order.ipynb.txt) is listed too: it gets its result, which says
                # how to rename it, instead of vanishing from the class.
                if ((candidate.suffix in SUFFIXES or renamed_download(candidate))
                        and (candidate.is_symlink() or candidate.is_file())
                        and not any(part in IGNORED_PARTS or part.startswith(".")
                                    for part in candidate.relative_to(root).parts)):
                    found.append(Found(candidate, shown(str(Path(given) / relative))))
        elif path.exists() or path.is_symlink():
            found.append(Found(path, shown(given)))
        else:
            missing.append(given)
    return found, missing


def student_name(path: Path) -> str:
    """nbgrader's submitted/<student>/<assignment>/ layout, else the file name without suffix."""
    return layout_student(path) or shown(Path(renamed_download(path) or path.name).stem)


def layout_student(path: Path) -> str | None:
    """The student's folder in nbgrader's submitted/<student>/<assignment>/ layout; None outside that layout."""
    parts = path.parts
    for i, part in enumerate(parts[:-1]):
        if part in ("submitted", "autograded") and i + 2 < len(parts):
            return shown(parts[i + 1])
    return None


def detect_assignment(path: Path, source: SubmissionSource) -> str | None:
    """Notebook metadata, then the nbgrader layout or file name, then which functions are defined."""
    declared = source.metadata.get("autograder", {}) if isinstance(source.metadata, dict) else {}
    if isinstance(declared, dict) and isinstance(declared.get("assignment"), str) \
            and declared["assignment"] in ASSIGNMENT_IDS:
        return declared["assignment"]
    for part in reversed(path.parts[:-1]):
        if part in ASSIGNMENT_IDS:
            return part
    if path.stem in ASSIGNMENT_IDS:
        return path.stem
    defined = set(defined_functions(source)) if source.problem is None else set()
    overlap = {a.id: len(defined & {e.id for e in a.exercises}) for a in all_assignments()}
    best = max(overlap, key=overlap.get)
    if overlap[best] > 0:
        return best
    for assignment_id in ASSIGNMENT_IDS:  # a file named after the assignment: alice_higher_order.py
        if assignment_id in path.stem:
            return assignment_id
    return None


def ungradable(source: SubmissionSource, assignment: str | None) -> str | None:
    """Why nothing in a submission can be graded (its file cannot be read, or its assignment is unknown), or None."""
    unknown = None if assignment else "cannot tell which assignment this is: pass --assignment ID"
    return "; ".join(filter(None, (source.problem, unknown))) or None


def in_shard(found: list[Found], k: int, n: int) -> list[Found]:
    """The K-th of N shares (1-based), by a hash of each path: stable when other files come and go."""
    def share(item: Found) -> int:
        return int.from_bytes(hashlib.sha256(item.shown_as.encode("utf-8", "replace")).digest()[:8], "big") % n
    return [item for item in found if share(item) == k - 1]
