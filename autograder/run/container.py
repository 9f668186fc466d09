"""What the memory controller of the grader's machine or container says: its limit, and its out-of-memory kills.

A container's limit can be far below the grader's own per-submission limit (Gradescope's default is
768 MB, the grader's 2 GiB): a submission that fills it is killed by the kernel's out-of-memory killer
with SIGKILL before the grader's own watch sees it. Counting the controller's OOM kills before and after
lets the grader tell the student "out of memory", not "killed by SIGKILL".

Linux cgroups, v2 (``memory.max``, ``memory.events``) and v1 (``memory.limit_in_bytes``,
``memory.oom_control``), for this process's own group and every group above it (a limit and its kills
may sit on any of them). Where none can be read (another OS, no controller mounted) both give None and
the grader says what it said before.
"""
from __future__ import annotations

from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
UNLIMITED = 2**60  # v1 writes "no limit" as a huge number (9223372036854771712)


def _groups(root: Path, membership: Path) -> list[Path]:
    """The memory controller's folders of this process's group and of every group above it, deepest first."""
    try:
        lines = membership.read_text().splitlines()
    except OSError:
        return []
    found = []
    for line in lines:
        number, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if number == "0" and controllers == "":
            base = root  # v2: one unified hierarchy
        elif "memory" in controllers.split(","):
            base = root / "memory"  # v1: the memory controller's own hierarchy
        else:
            continue
        parts = [part for part in path.split("/") if part]
        found += [base.joinpath(*parts[:depth]) for depth in range(len(parts), -1, -1)]
    return [folder for folder in found if folder.is_dir()]


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:
        return None


def memory_limit(root: Path = CGROUP_ROOT, membership: Path = Path("/proc/self/cgroup")) -> int | None:
    """The smallest memory limit on this process's groups, in bytes; None when there is none."""
    limits = []
    for folder in _groups(root, membership):
        for name in ("memory.max", "memory.limit_in_bytes"):
            text = (_read(folder / name) or "").strip()
            if text.isdigit() and int(text) < UNLIMITED:
                limits.append(int(text))
    return min(limits) if limits else None


def oom_kills(root: Path = CGROUP_ROOT, membership: Path = Path("/proc/self/cgroup")) -> tuple[int, ...] | None:
    """The OOM-kill counters of this process's groups (compare two readings); None when none can be read."""
    counters = []
    for folder in _groups(root, membership):
        for name in ("memory.events", "memory.oom_control"):
            for line in (_read(folder / name) or "").splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill" and value.strip().isdigit():
                    counters.append(int(value))
    return tuple(counters) if counters else None


def describe_limit(limit: int | None) -> str:
    if limit is None:
        return ""
    return f" (this machine or container allows {limit / 2**20:.0f} MiB in all, the grader included)"
