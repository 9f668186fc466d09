"""Whether a folder of the grader's (the solutions, the cache) lies in a student's child's sight.

The child's view of the files is an allowlist (``mounts``, ``landlock``): the system's folders, Python's
installation and the directories on its path, the files of its own modules; nothing else of the machine is
in sight. So no list of what to hide is sent to a child: such a list would name the grader's folders to
student code (a child's memory holds its job). The parent checks instead that each folder no child may
read lies outside that allowlist: a cache inside it is refused for the run, solutions inside it stop the
run with a message (``pipeline``, ``store.reference_cache``, the cluster's workers). Parent side only.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path

from autograder.config import KIT_ROOT, SetupError, fork_server_environment
from autograder.run import isolation, landlock, mounts


@cache
def servers_path() -> tuple[str, ...]:
    """The fork server's ``sys.path`` (which its children keep in sight), as its interpreter and environment
    make it: asked of a plain interpreter started as the server is (its own folder left out, as the server
    leaves it out), not read from this process, whose path its script or its caller may have changed."""
    with tempfile.TemporaryDirectory(prefix="autograder-path-") as home:
        try:
            done = subprocess.run([sys.executable, "-c", "import json, sys; print(json.dumps(sys.path[1:]))"],
                                  env=fork_server_environment(home, str(KIT_ROOT)), cwd=home, capture_output=True,
                                  text=True, stdin=subprocess.DEVNULL, timeout=120)
            return tuple(json.loads(done.stdout))
        except (OSError, ValueError, subprocess.SubprocessError):
            return tuple(sys.path[1:])  # this process's, its own first entry aside: an approximation


def in_sight(path: Path | str) -> str | None:
    """The folder of a child's allowlisted view that holds ``path`` (resolved), or None when no child sees it."""
    target = os.path.realpath(path)
    kept = isolation.needed_paths(list(servers_path()))
    roots = {*(f"/{name}" for name in mounts.SYSTEM_FOLDERS), *landlock.SYSTEM_READ, *kept}
    for root in sorted(roots):
        if target == root or target.startswith(root.rstrip(os.sep) + os.sep):
            return root
    return None


def out_of_sight_problem(path: Path | str, what: str) -> str | None:
    """Why ``path`` (``what`` it is) cannot be kept from a student's child, or None when it is out of sight."""
    root = in_sight(path)
    if root is None:
        return None
    return (f"{what} {path} lies inside {root}, which every student's child reads (the system's folders, "
            "Python's installation, the folders on its path): move it elsewhere")


def require_out_of_sight(path: Path | str, what: str) -> None:
    """SetupError when a student's child could read ``path`` (``what`` it is, for the message)."""
    problem = out_of_sight_problem(path, what)
    if problem:
        raise SetupError(problem)
