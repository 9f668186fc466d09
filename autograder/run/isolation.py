"""Contain a child before it runs student code: limits, environment, files, network, privileges.

Called in the child right after the fork, before the submission's first cell.
Everything here is the standard library (``resource``, ``os``) plus two Linux
system calls through ``ctypes`` (``unshare`` and ``mount``: Python 3.11's
``os`` has neither). Each measure that the platform refuses is skipped, and
the list of measures applied is reported to the parent.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os
import resource
import signal
import tempfile
from dataclasses import dataclass, field

from autograder.config import KIT_ROOT

CLONE_NEWNS = 0x00020000
CLONE_NEWNET = 0x40000000
MS_RDONLY = 0x1
MS_NOSUID = 0x2
MS_NODEV = 0x4
MS_NOEXEC = 0x8
MS_BIND = 0x1000
MS_REC = 0x4000
MS_PRIVATE = 1 << 18

SCRATCH_FOLDERS = ("/tmp", "/var/tmp", "/dev/shm")
# Top-level folders that hold the system, not people's files: left as they are (read-only for the child).
SYSTEM_FOLDERS = {"bin", "boot", "dev", "etc", "lib", "lib32", "lib64", "libx32", "proc", "run", "sbin", "sys",
                  "tmp", "usr", "var"}
KEPT_ENVIRONMENT = ("PATH", "LANG", "LC_ALL", "TF_CPP_MIN_LOG_LEVEL", "TF_ENABLE_ONEDNN_OPTS", "PYTHONWARNINGS")


@dataclass(frozen=True)
class Containment:
    """What the parent asks for; the defaults suit one submission of this course."""

    memory_bytes: int = 2 * 2**30
    cpu_seconds: int = 600  # CPU time of the whole child; wall time is the parent's job
    file_bytes: int = 64 * 2**20  # largest file it may write, its captured output included
    open_files: int = 512
    processes: int = 512  # threads count too, and TensorFlow starts a few dozen
    uid: int | None = None  # run as this unprivileged user when the grader is root
    hidden: tuple[str, ...] = ()  # directories and files the child must not see (solutions, other submissions)
    network: bool = False
    scratch_bytes: int = 256 * 2**20  # /tmp, /var/tmp and /dev/shm, each, when the grader is root
    applied: list[str] = field(default_factory=list)


def contain(workdir: str, settings: Containment) -> list[str]:
    """Apply every measure the platform allows; return their names, for the record."""
    applied: list[str] = []
    _environment(workdir)
    applied.append("scrubbed environment")
    tempfile.tempdir = None  # forget the grader's TMPDIR: the student's tempfile calls use the child's folder
    as_root = os.geteuid() == 0
    if as_root:
        namespaces = CLONE_NEWNS | (0 if settings.network else CLONE_NEWNET)
        if _unshare(namespaces):
            applied.append("private mounts" + ("" if settings.network else ", no network"))
            needed = _needed_paths()
            if settings.uid is not None:
                covered = _cover_private_folders(needed)
                applied.append(f"{covered} top-level folders covered, Python and the grader bound back")
            if _fresh_scratch(settings.scratch_bytes, needed):
                # TMPDIR may have pointed below the /tmp just covered: name the new folder explicitly.
                workdir = tempfile.mkdtemp(prefix="submission-", dir="/tmp")
                os.chdir(workdir)
                os.environ.update(HOME=workdir, TMPDIR=workdir)
                applied.append(f"scratch space of {settings.scratch_bytes // 2**20} MiB")
            # Last: what was bound back above (a checkout below /tmp) may hold solutions and submissions.
            hidden = _hide(settings.hidden)
            if hidden:
                applied.append(f"{hidden} paths hidden")
    _limits(settings, applied)
    if as_root and settings.uid is not None:
        workdir = os.getcwd()
        os.chown(workdir, settings.uid, settings.uid)
        for name in os.listdir(workdir):
            os.chown(os.path.join(workdir, name), settings.uid, settings.uid)
        os.setgroups([])
        os.setresgid(settings.uid, settings.uid, settings.uid)
        os.setresuid(settings.uid, settings.uid, settings.uid)
        applied.append(f"runs as uid {settings.uid}")
    return applied


def _environment(workdir: str) -> None:
    """Only what Python and TensorFlow need: no tokens, no paths to the course."""
    kept = {name: os.environ[name] for name in KEPT_ENVIRONMENT if name in os.environ}
    os.environ.clear()
    os.environ.update(kept, HOME=workdir, TMPDIR=workdir)


def _limits(settings: Containment, applied: list[str]) -> None:
    mapped = _mapped_bytes()
    ceiling = mapped + settings.memory_bytes + 2**30  # headroom: TensorFlow's thread pools reserve address space
    wanted = [
        (resource.RLIMIT_AS, ceiling, "address space"),
        (resource.RLIMIT_CPU, settings.cpu_seconds, "CPU time"),
        (resource.RLIMIT_FSIZE, settings.file_bytes, "file size"),
        (resource.RLIMIT_NOFILE, settings.open_files, "open files"),
        (resource.RLIMIT_CORE, 0, "core dumps"),
    ]
    if os.geteuid() != 0 or settings.uid is not None:  # root ignores RLIMIT_NPROC; a fresh uid counts alone
        wanted.append((resource.RLIMIT_NPROC, settings.processes, "processes"))
    for limit, value, name in wanted:
        try:
            soft, hard = resource.getrlimit(limit)
            value = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(limit, (value, value + (5 if limit == resource.RLIMIT_CPU else 0)))
            applied.append(f"{name} limit")
        except (ValueError, OSError):
            pass
    # A write past the file-size limit then fails with an OSError in the student's code instead of killing us.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def _mapped_bytes() -> int:
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


_libc = None


def _call(name: str, *args) -> bool:
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    return getattr(_libc, name)(*args) == 0


def _unshare(flags: int) -> bool:
    try:
        if not _call("unshare", ctypes.c_int(flags)):
            return False
        # Mounts made from now on stay in this child: never propagate them back to the machine.
        return _call("mount", None, b"/", None, ctypes.c_ulong(MS_REC | MS_PRIVATE), None)
    except (OSError, AttributeError):
        return False


def _needed_paths() -> list[str]:
    """Where Python, its libraries and the grader live: the child imports from there after dropping root."""
    import sys

    candidates = [sys.base_prefix, sys.prefix, str(KIT_ROOT), *sys.path]
    return sorted({os.path.realpath(p) for p in candidates if p and os.path.isdir(p)})


def _cover_private_folders(needed: list[str]) -> int:
    """Cover every top-level folder that is not the system's (homes, /work, /srv, /opt, /mnt...) with an empty
    tmpfs, binding back only what the child needs (its Python, its libraries, the grader).

    Solutions and classmates' files may have copies anywhere on the machine (another checkout, a home);
    the child sees the system and its own code, nothing else.
    """
    covered = 0
    for entry in sorted(os.listdir("/")):
        folder = os.path.join("/", entry)
        if entry in SYSTEM_FOLDERS or os.path.islink(folder) or not os.path.isdir(folder):
            continue
        covered += _cover(folder, needed, "size=64k,mode=0755")
    return covered


def _fresh_scratch(size: int, needed: list[str]) -> bool:
    """Empty, size-limited tmpfs over the world-writable folders: no disk filling, no leftovers, no peeking.

    The grader itself may live below /tmp (a CI checkout, a virtual environment): what it needs is bound back.
    """
    return all(_cover(folder, needed, f"size={size},mode=1777") for folder in SCRATCH_FOLDERS
               if os.path.isdir(folder))


def _cover(folder: str, keep: list[str], options: str) -> bool:
    """Mount an empty tmpfs on ``folder``, then bind back the paths of ``keep`` that lie below it."""
    below = [p for p in keep if p.startswith(folder.rstrip(os.sep) + os.sep)]
    if folder in keep:
        return False  # the folder itself is needed: covering it would cut the child off its code
    below = [p for p in below if not any(q != p and p.startswith(q + os.sep) for q in below)]  # outermost only
    handles = {path: os.open(path, os.O_PATH | os.O_DIRECTORY) for path in below}
    try:
        if not _call("mount", b"tmpfs", folder.encode(), b"tmpfs", ctypes.c_ulong(MS_NOSUID | MS_NODEV),
                     options.encode()):
            return False
        for path, handle in handles.items():
            os.makedirs(path, mode=0o755, exist_ok=True)
            if not _call("mount", f"/proc/self/fd/{handle}".encode(), path.encode(), None,
                         ctypes.c_ulong(MS_BIND | MS_REC), None):
                return False
    finally:
        for handle in handles.values():
            os.close(handle)
    return True


def _hide(paths: tuple[str, ...]) -> int:
    """Cover each directory with an empty read-only tmpfs and each file with /dev/null."""
    count = 0
    for path in paths:
        try:
            if os.path.isdir(path):
                ok = _call("mount", b"tmpfs", path.encode(), b"tmpfs",
                           ctypes.c_ulong(MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC), b"size=4k,mode=000")
            elif os.path.exists(path):
                ok = _call("mount", b"/dev/null", path.encode(), None, ctypes.c_ulong(MS_BIND), None)
            else:
                continue
            count += ok
        except (OSError, AttributeError):
            continue
    return count
