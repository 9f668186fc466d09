"""What a student's child must not see: the reference solutions, every submission, the cache."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Iterable

from autograder.run.isolation import SCRATCH_FOLDERS

PACKAGE = Path(__file__).resolve().parents[1]


def hidden_paths(submissions: list[Path], solutions: Path | None, extra: Iterable[Path] = ()) -> tuple[str, ...]:
    """The paths to cover in a student's child: ``solutions``, every submission, and ``extra`` (the reference
    cache, which holds the reference's answers).

    A directory is covered whole unless it holds code the child still needs (the grader itself, Python's
    libraries); then its submission files are covered one by one.
    """
    needed = [PACKAGE, Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve(),
              *(Path(p).resolve() for p in sys.path if p),
              # the child's fresh scratch folders hold its working directory: never cover them whole
              *(Path(folder) for folder in SCRATCH_FOLDERS)]
    hidden: set[Path] = set()
    if solutions is not None:
        hidden.add(solutions.resolve())
    for path in (Path(p).resolve() for p in extra):
        if not any(n == path or path in n.parents for n in needed):  # else its owner-only mode protects it
            hidden.add(path)
    for path in submissions:
        path = path.resolve()
        folder = path.parent
        if any(folder == n or folder in n.parents for n in needed):
            hidden.add(path)
        else:
            hidden.add(folder)
    # Covering a folder covers what is below it: keep only the outermost paths.
    outermost = [p for p in hidden if not any(q != p and q in p.parents for q in hidden)]
    return tuple(str(p) for p in sorted(outermost))
