"""What a student's child is told to cover besides its allowlist: the solutions and the cache, never a classmate.

The child's view of the files is an allowlist (``mounts``, ``landlock``): the system, Python's installation
and the directories on its path, the files of its own modules. Nothing else of the machine is in sight, so
no list of what to hide is needed, and none is sent: a child's job names no classmate's folder or file
(student code could read it from its own memory). The solutions and the cache are named anyway, in case
one of them lies inside what is bound back (a cache folder inside a virtual environment): the child covers
them if they are still in sight.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable


def hidden_paths(submissions: list[Path], solutions: Path | None, extra: Iterable[Path] = ()) -> tuple[str, ...]:
    """The solutions folder and ``extra`` (the cache), resolved; ``submissions`` are never listed (see above)."""
    del submissions  # kept in the signature: the callers' plan passes it, the child must not receive it
    paths = {Path(p).resolve() for p in ([solutions] if solutions is not None else [])}
    paths |= {Path(p).resolve() for p in extra}
    outermost = [p for p in paths if not any(q != p and q in p.parents for q in paths)]
    return tuple(str(p) for p in sorted(outermost))
