"""Contain a child before it runs student code: limits, environment, files, network, processes, privileges.

Called in the child right after the fork, before the submission's first cell. The strongest measures the
machine allows are applied, each skipped when the kernel refuses it, and the list of those applied is
reported to the parent (``docs/security.md`` says what holds where):

1. namespaces (``namespaces``): as root, or as root of a user namespace of its own where the kernel allows
   unprivileged ones: private mounts, no network, no IPC with the machine, a PID namespace (every process
   the submission starts ends with it; the others are out of its sight and reach);
2. its own view of the files (``mounts``): the system, Python, the kit's child modules; one scratch tmpfs;
3. where there is no private view, or no other uid to run as: Landlock (``landlock``), the same allowlist
   enforced by the kernel for an unprivileged process;
4. resource limits: address space, CPU time, file size, open files, processes, no core dumps;
5. privileges (``privileges``): an unprivileged uid of its own (root), or no capability at all (a user
   namespace); no new privileges; not dumpable.

The environment it starts from is the fork server's, which the parent made clean (``config.CHILD_ENVIRONMENT``),
so /proc/self/environ shows nothing of the grader's.
"""
from __future__ import annotations

import os
import resource
import signal
import sys
import tempfile
from dataclasses import dataclass, field

from autograder.config import KIT_ROOT
from autograder.run import landlock, mounts, namespaces, privileges

CONTAINMENT_FAILED = 75  # exit code of a child that cannot make its files private when the parent relies on it


@dataclass(frozen=True)
class Containment:
    """What the parent asks for; the defaults suit one submission of this course."""

    memory_bytes: int = 2 * 2**30
    cpu_seconds: int = 600  # CPU time of the whole child; wall time is the parent's job
    file_bytes: int = 64 * 2**20  # largest file it may write, its captured output included
    open_files: int = 512
    processes: int = 512  # threads count too, and TensorFlow starts a few dozen
    uid: int | None = None  # run as this unprivileged user when the grader is root
    network: bool = False
    scratch_bytes: int = 256 * 2**20  # the one scratch tmpfs (/tmp, /var/tmp, /dev/shm): at most memory / 8
    private_files: bool = False  # the parent keeps a cache the child must not reach: refuse to run without
    applied: list[str] = field(default_factory=list)

    @property
    def scratch(self) -> int:
        return min(self.scratch_bytes, self.memory_bytes // 8)


def contain(workdir: str, settings: Containment) -> list[str]:
    """Apply every measure the platform allows; return their names, for the record. In a PID namespace this
    returns in the process inside it, which runs the submission (``namespaces.split``)."""
    applied: list[str] = []
    _environment(workdir)
    applied.append("clean environment")
    tempfile.tempdir = None  # forget the grader's TMPDIR: the student's tempfile calls use the child's folder
    as_root = namespaces.can_become()  # root that may give the child a uid of its own (namespaces or not)
    got = namespaces.enter(settings.network)
    if got["pid"]:
        namespaces.split()
        applied.append("PID namespace" + (", its own /proc" if mounts.fresh_proc() else ""))
    if got["user"]:
        applied.append("user namespace")
    if got["network"]:
        applied.append("no network")
    if got.get("ipc") and namespaces.cap_sysv_shm():
        applied.append(f"System V shared memory at most {namespaces.SYSV_SHM_BYTES // 2**20} MiB")
    keep, package, files = needed_paths(), package_folder(), package_files()
    private = False
    if got["mounts"]:
        view = mounts.private_view(keep, package, files, settings.scratch)
        applied += view
        private = any(m.startswith("the kit's package") for m in view) and not any("refused" in m for m in view)
        if any(m.startswith("one scratch") for m in view):
            workdir = tempfile.mkdtemp(prefix="submission-", dir=mounts.SCRATCH)
            os.chdir(workdir)
            os.environ.update(HOME=workdir, TMPDIR=workdir)
    dropping = as_root and settings.uid is not None
    if not (private and dropping):
        found = landlock.restrict(keep, files, [workdir])
        applied += found
        private = private or bool(found)
    if settings.private_files and not (private or dropping):
        os._exit(CONTAINMENT_FAILED)  # the parent relies on it: never run student code beside its cache
    _limits(settings, applied)
    if dropping:
        os.chown(workdir, settings.uid, settings.uid)
        for name in os.listdir(workdir):
            os.chown(os.path.join(workdir, name), settings.uid, settings.uid)
        privileges.become(settings.uid)
        applied.append(f"runs as uid {settings.uid}")
    elif got["user"] and privileges.drop_capabilities():
        applied.append("no capabilities")
    applied += privileges.seal()
    return applied


def _environment(workdir: str) -> None:
    """Only what Python and TensorFlow need: no tokens, no paths to the course (the fork server started with
    no more than this, so the process's first environment, /proc/self/environ, holds no more either)."""
    from autograder.config import CHILD_ENVIRONMENT

    kept = {name: os.environ[name] for name in CHILD_ENVIRONMENT if name in os.environ}
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


def _below(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


INSTALLED_PACKAGES = ("site-packages", "dist-packages")  # a virtual environment's, even one inside the checkout


def needed_paths(search: list[str] | None = None) -> list[str]:
    """What the child reads besides the system: Python's installation and the directories on its path
    (``search``, default: this process's ``sys.path``), but never a checkout of the kit (the package's own
    files are bound back one by one: ``package_files``)."""
    prefixes = {os.path.realpath(p) for p in (sys.base_prefix, sys.prefix) if p}
    root = os.path.realpath(KIT_ROOT)
    checkout = not any(_below(root, prefix) for prefix in prefixes)
    keep = set()
    for path in (*prefixes, *(sys.path if search is None else search)):
        if not path or not os.path.isdir(path):
            continue
        path = os.path.realpath(path)
        if checkout and _below(path, root) and not any(_below(path, prefix) for prefix in prefixes) \
                and os.path.basename(path) not in INSTALLED_PACKAGES:
            continue  # the checkout itself, its tests/ or anything else of it on the path (not a .venv's packages)
        keep.add(path)
    return sorted(keep)


def package_folder() -> str:
    return os.path.realpath(os.path.join(KIT_ROOT, "autograder"))


_package_files: tuple[int, list[str]] | None = None  # (len(sys.modules), the files): what the fork server found


def package_files() -> list[str]:
    """The files of the kit's modules this process holds: a student's child exactly ``CHILD_MODULES``
    (a test checks it), a reference's child its assignment's mistake models too.

    The fork server finds them once before it forks (``remember_package_files``): in a child, walking the
    3,000 modules TensorFlow loads touches each module's memory, and each touch copies a page the child
    shares with the server (27 ms a child, measured). A child that imported nothing since (a student's) takes
    the server's list; one that did (a reference's, its mistake models) looks again."""
    if _package_files is not None and _package_files[0] == len(sys.modules):
        return list(_package_files[1])
    files = set()
    for name in [name for name in sys.modules if name == "autograder" or name.startswith("autograder.")]:
        path = getattr(sys.modules[name], "__file__", None)
        if path:
            files.add(os.path.realpath(path))
    return sorted(files)


def remember_package_files() -> None:
    """Called by the fork server once its imports are done, before the first fork (see ``package_files``)."""
    global _package_files
    _package_files = None
    _package_files = (len(sys.modules), package_files())


def children_files_private() -> bool:
    """Can this machine give a child (as the parent would start it) no access to the grader's own files?
    Root that may change uids: a uid of its own; otherwise Landlock, or an unprivileged user namespace (tried
    in a short-lived process). Where neither exists, a child can read and write everything the grader can."""
    if namespaces.can_become() or landlock.abi() >= 1:
        return True
    return _user_namespaces_work()


def _user_namespaces_work() -> bool:
    import subprocess

    probe = ("import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); "
             f"os._exit(0 if libc.unshare({namespaces.CLONE_NEWUSER}) == 0 and "
             f"libc.unshare({namespaces.CLONE_NEWNS}) == 0 else 1)")
    try:
        return subprocess.run([sys.executable, "-S", "-c", probe], stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False
