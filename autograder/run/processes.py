"""Looking at and stopping processes by what /proc says: their memory, their owner, their descendants, a uid's
whole family; and the memory a child's scratch tmpfs and its anonymous memory files hold."""
from __future__ import annotations

import os
import signal
import time

SANDBOX_UID_BASE = 200_000  # far above the machine's own users

_scan: tuple[float, dict[int, int]] = (-1.0, {})  # (when, pid -> uid) of the last look at /proc
_parents: tuple[float, dict[int, int]] = (-1.0, {})  # (when, pid -> parent pid)


def signal_name(code: int) -> str:
    try:
        return signal.Signals(code).name
    except ValueError:
        return f"signal {code}"


def memory_bytes(pid: int) -> int:
    """The memory a process holds on its own: its proportional set size (pages it shares with other processes,
    such as TensorFlow's, which every fork of the fork server maps, counted as a share each), or its resident
    size where the kernel does not say (another user's process that is not dumpable)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as rollup:
            for line in rollup:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return resident_bytes(pid)


def resident_bytes(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def process_uids(max_age: float = 0.0) -> dict[int, int]:
    """pid -> real uid of every process on the machine; a look younger than ``max_age`` seconds is reused,
    so the children running at once share one look instead of each taking its own."""
    global _scan
    now = time.monotonic()
    if now - _scan[0] <= max_age:
        return _scan[1]
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            handle = os.open(f"/proc/{entry}/status", os.O_RDONLY)
            try:
                head = os.read(handle, 2048)
            finally:
                os.close(handle)
            state = head.index(b"\nState:") + 7
            if head[state:state + 3].strip().startswith((b"Z", b"X")):
                continue  # a zombie (or dying): nothing left to stop, nothing to count
            start = head.index(b"\nUid:") + 5
            found[int(entry)] = int(head[start:head.index(b"\n", start)].split()[0])
        except (OSError, ValueError, IndexError):
            continue
    _scan = (now, found)
    return found


def processes_of(uid: int, max_age: float = 0.0) -> list[int]:
    """Every process that runs as ``uid``: a child's own, and any it started, even in a new session."""
    return [pid for pid, owner in process_uids(max_age).items() if owner == uid]


def kill_everything_of(uid: int) -> None:
    """SIGKILL every process of ``uid`` (root only), whatever sessions they made and however fast they fork.

    A short-lived helper becomes ``uid`` and calls kill(-1, SIGKILL): the kernel signals every process of
    that uid in one pass, during which none can fork a child that escapes it. Repeated until none is left
    (a process of the uid could kill the helper first: it is started again). Where the helper cannot run,
    three passes over /proc."""
    if os.geteuid() == 0:
        deadline = time.monotonic() + 5
        while processes_of(uid) and time.monotonic() < deadline:  # until they are gone: the uid is reused
            _kill_as(uid)
            time.sleep(0.02)  # the killed ones free their memory and exit (their parent reaps them)
        return
    for _ in range(3):
        pids = processes_of(uid)
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.05)


def _kill_as(uid: int) -> None:
    pid = os.fork()
    if pid == 0:
        try:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            for _ in range(3):  # a zombie also counts as signalled: a few passes, not until ESRCH
                os.kill(-1, signal.SIGKILL)  # every process this uid may signal, but the helper itself
        except BaseException:  # noqa: BLE001  (ProcessLookupError: none is left)
            pass
        finally:
            os._exit(0)
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def parents(max_age: float = 0.0) -> dict[int, int]:
    """pid -> parent pid of every process on the machine (a look younger than ``max_age`` is reused)."""
    global _parents
    now = time.monotonic()
    if now - _parents[0] <= max_age:
        return _parents[1]
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                found[int(entry)] = int(handle.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    _parents = (now, found)
    return found


def descendants(pid: int, max_age: float = 0.0) -> list[int]:
    """Every process below ``pid`` (its children, theirs...), as /proc shows them now."""
    children: dict[int, list[int]] = {}
    for child, parent in parents(max_age).items():
        children.setdefault(parent, []).append(child)
    found, pending = [], list(children.get(pid, []))
    while pending:
        each = pending.pop()
        found.append(each)
        pending.extend(children.get(each, []))
    return found


def scratch_bytes(pid: int, size: int) -> int:
    """What the child's private scratch tmpfs holds (its memory, counted in no process's): read through
    /proc/PID/root when the parent may (root); its whole size when it may not; 0 when the child has none."""
    try:
        inside, outside = os.statvfs(f"/proc/{pid}/root/tmp"), os.statvfs("/tmp")
    except OSError:
        return size  # out of the parent's reach: counted as full, so it is sized inside the limit
    if inside.f_fsid == outside.f_fsid:
        return 0  # the child's /tmp is the machine's: no scratch tmpfs of its own
    return (inside.f_blocks - inside.f_bfree) * inside.f_frsize


def held_memory_files(pids: list[int]) -> int:
    """The anonymous memory files (``memfd_create``) these processes hold open, each once: written with
    ``write()`` and never mapped, their pages are in no process's memory. Read through /proc/PID/fd (the parent
    may as root, or as the child's user where it is dumpable; else nothing is seen)."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for pid in pids:
        try:
            descriptors = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for descriptor in descriptors:
            path = f"/proc/{pid}/fd/{descriptor}"
            try:
                if not os.readlink(path).startswith("/memfd:"):
                    continue
                info = os.stat(path)
            except OSError:
                continue
            if (info.st_dev, info.st_ino) not in seen:
                seen.add((info.st_dev, info.st_ino))
                total += info.st_blocks * 512
    return total


def sandbox_uid(slot: int) -> int:
    """An unprivileged uid of its own for each child running at once, and for each grader on the machine.

    Children of one uid could signal each other; with a uid each, a child can reach no other process.
    """
    return SANDBOX_UID_BASE + (os.getpid() % 10_000) * 256 + slot


def tasks_of(pids: list[int]) -> int:
    """Threads of these processes, all counted (what an exercise's code may leave running)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status", "rb") as status:
                total += next(int(line.split()[1]) for line in status if line.startswith(b"Threads:"))
        except (OSError, ValueError, StopIteration, IndexError):
            continue
    return total
