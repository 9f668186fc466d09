"""The child's own view of the files, in a private mount namespace: the system, Python, the kit's child modules.

Called in the child (root, or root of its own user namespace) after ``unshare(CLONE_NEWNS)``. Everything
is built from empty tmpfs mounts and read-only bind mounts of what the child needs, so what it sees is an
allowlist, and no list of what to hide (a classmate's folder, the solutions, the cache) is needed or sent
(the parent refuses a solutions or cache folder that lies inside it: ``hidden``):

- every top-level folder that is not the system's (``/home``, ``/root``, ``/work``, ``/srv``, ``/opt``,
  ``/mnt``, ``/autograder``...) and the shared ``/run`` and ``/var`` are covered with an empty read-only
  tmpfs; Python's installation and the directories on its path are bound back, read-only, but never a
  checkout of the kit (its ``.git``, ``solutions/``, ``examples/``, the journals beside it);
- the kit's package is an empty tmpfs into which only the files of the modules a student's child holds are
  bound back, read-only: no mistake model, no stored answers, no ``__pycache__``;
- ``/tmp`` is ONE fresh tmpfs of the scratch size; ``/var/tmp`` and ``/dev/shm`` are folders of it, so the
  three share one size (which the parent counts in the child's memory); nothing written there outlives
  the child or is seen by the machine (``/run/lock``, ``/var/tmp`` and ``/dev/shm`` of the host are out of
  reach); ``/dev/mqueue`` is covered too;
- in a new PID namespace, ``/proc`` shows the child's own processes only.
"""
from __future__ import annotations

import os

from autograder.run.linux import mount

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 0x1, 0x2, 0x4, 0x8
MS_REMOUNT, MS_NOATIME, MS_NODIRATIME, MS_BIND, MS_REC, MS_PRIVATE, MS_RELATIME = (
    0x20, 0x400, 0x800, 0x1000, 0x4000, 1 << 18, 1 << 21)
ST_RELATIME = 0x1000

# Top-level folders that hold the system, not people's files: left as they are (not writable by the child).
# /run, /var and /tmp are shared and writable: they are covered (see the module's docstring).
SYSTEM_FOLDERS = {"bin", "boot", "dev", "etc", "lib", "lib32", "lib64", "libx32", "proc", "sbin", "sys", "usr"}
SCRATCH = "/tmp"
SCRATCH_FOLDERS = {"/var/tmp": ".var-tmp", "/dev/shm": ".dev-shm"}  # folders of the one scratch tmpfs


class View:
    """One child's view being built; ``read_only`` collects what is remounted read-only at the end."""

    def __init__(self):
        self.read_only: list[str] = []
        self.failed: list[str] = []

    def tmpfs(self, target: str, options: str, flags: int = MS_NOSUID | MS_NODEV) -> bool:
        try:
            os.makedirs(target, mode=0o755, exist_ok=True)
        except OSError:
            pass  # mount says whether it can
        if mount("tmpfs", target, "tmpfs", flags, options):
            return True
        self.failed.append(target)
        return False

    def bind(self, handle: int, target: str, directory: bool = True, recursive: bool = True) -> bool:
        """Bind what ``handle`` (an O_PATH descriptor opened before anything was covered) names at ``target``."""
        try:
            if directory:
                os.makedirs(target, mode=0o755, exist_ok=True)
            elif not os.path.exists(target):
                os.close(os.open(target, os.O_CREAT | os.O_WRONLY, 0o644))
        except OSError:
            pass
        if mount(f"/proc/self/fd/{handle}", target, None, MS_BIND | (MS_REC if recursive else 0)):
            self.read_only.append(target)
            return True
        self.failed.append(target)
        return False

    def finish(self) -> None:
        """Remount every cover and bind read-only, keeping the flags a user namespace may not drop."""
        for target in reversed(self.read_only):
            try:
                flags = os.statvfs(target).f_flag
            except OSError:
                continue
            kept = flags & (MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME | MS_NODIRATIME)
            kept |= MS_RELATIME if flags & ST_RELATIME else 0
            if not mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | kept):
                self.failed.append(target)


def private_view(keep: list[str], package: str, package_files: list[str], scratch_bytes: int) -> list[str]:
    """Build the child's view (see the module's docstring); return the measures it achieved."""
    handles = {path: os.open(path, os.O_PATH | os.O_CLOEXEC) for path in {*keep, *package_files}
               if os.path.exists(path)}
    view = View()
    applied: list[str] = []
    try:
        covered = 0
        for entry in sorted(os.listdir("/")):
            path = os.path.join("/", entry)
            if entry in SYSTEM_FOLDERS or os.path.islink(path) or path == SCRATCH:
                continue
            if os.path.isdir(path):
                covered += _cover(view, path, keep, handles, "size=64k,mode=0755")
            elif os.path.isfile(path):  # a container's notes at the root (/.dockerenv, /container_info.json)
                covered += _hide(view, path)
        if covered:
            applied.append(f"{covered} top-level folders covered (/run and /var too), Python bound back read-only")
        if _scratch(view, keep, handles, scratch_bytes):
            applied.append(f"one scratch tmpfs of {scratch_bytes // 2**20} MiB for /tmp, /var/tmp and /dev/shm")
        if os.path.isdir("/dev/mqueue") and view.tmpfs("/dev/mqueue", "size=4k,mode=0755"):
            view.read_only.append("/dev/mqueue")
        if _package(view, package, package_files, handles):
            applied.append(f"the kit's package shows {len(package_files)} files of the child's modules only")
        view.finish()
    finally:
        for handle in handles.values():
            os.close(handle)
    if view.failed:
        applied.append(f"{len(view.failed)} mounts refused")
    return applied


def fresh_proc() -> bool:
    """A /proc of this PID namespace: the child's processes only (call it from inside the namespace)."""
    return mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)


def _below(path: str, folder: str) -> bool:
    return path.startswith(folder.rstrip(os.sep) + os.sep)


def _cover(view: View, folder: str, keep: list[str], handles: dict[str, int], options: str) -> bool:
    """An empty tmpfs on ``folder``, then the paths of ``keep`` below it bound back."""
    if folder in keep or any(_below(folder, p) for p in keep):
        return False  # the folder itself is needed (Python lives there): left as it is
    below = sorted(p for p in keep if _below(p, folder) and p in handles)
    below = [p for p in below if not any(q != p and _below(p, q) for q in below)]  # outermost only
    if not view.tmpfs(folder, options):
        return False
    view.read_only.append(folder)
    for path in below:
        view.bind(handles[path], path)
    return True


def _scratch(view: View, keep: list[str], handles: dict[str, int], size: int) -> bool:
    if not view.tmpfs(SCRATCH, f"size={size},mode=1777"):
        return False
    for path in sorted(p for p in keep if _below(p, SCRATCH) and p in handles):
        view.bind(handles[path], path)
    for target, name in SCRATCH_FOLDERS.items():
        inside = os.path.join(SCRATCH, name)
        os.makedirs(inside, exist_ok=True)
        os.chmod(inside, 0o1777)
        if not os.path.isdir(os.path.dirname(target)):
            continue
        try:
            os.makedirs(target, exist_ok=True)
        except OSError:
            pass
        if not mount(inside, target, None, MS_BIND):  # writable: these are the scratch space
            view.failed.append(target)
    return True


def _package(view: View, package: str, files: list[str], handles: dict[str, int]) -> bool:
    """An empty tmpfs on the kit's package with only ``files`` bound back into it."""
    if not view.tmpfs(package, "size=256k,mode=0755"):
        return False
    view.read_only.append(package)
    for path in files:
        if path in handles and _below(path, package):
            os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
            view.bind(handles[path], path, directory=False)
    return True


def _hide(view: View, path: str) -> bool:
    """Cover a directory with an empty read-only tmpfs, a file with an empty read-only one."""
    if os.path.isdir(path):
        return mount("tmpfs", path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=000")
    if os.path.exists(path):
        return mount("/dev/null", path, None, MS_BIND)
    return False
