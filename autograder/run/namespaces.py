"""The child's namespaces: private mounts, no network, no IPC with the machine, and a PID namespace whose
end ends every process the submission started.

As root the child unshares them directly; as another user it first makes a user namespace of its own
(where the kernel allows unprivileged ones) in which it is root, the same user outside, with no more
rights on the machine than the grader's own.

In a new PID namespace the process that runs the submission must be inside it, and the namespace's first
process (its init) must not run student code (the kernel ignores the signals an init has no handler for,
which would change how a crash reads). So the child splits in three (``split``):

    child (outside, the parent's pid)  -- waits for the student process, then mirrors how it ended
      ├── init (pid 1 inside)          -- reaps orphans; exits when the child's pipe closes
      └── student (pid 2 inside)       -- contained, then runs the submission

When init ends, for any reason, the kernel kills every process of the namespace, in sessions of their own
or not, however fast they fork: none outlives the submission. The parent's SIGKILL of the child ends
init (its pipe closes, and it has PR_SET_PDEATHSIG), hence everything.
"""
from __future__ import annotations

import os
import resource
import signal
import time

from autograder.run.linux import PR_SET_DUMPABLE, PR_SET_PDEATHSIG, mount, prctl, unshare

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_REC, MS_PRIVATE = 0x4000, 1 << 18


def enter(network: bool) -> dict[str, bool]:
    """Unshare what the kernel allows; say which: user (a user namespace of its own), mounts, pid, network.

    A root that may change uids but not make namespaces (a container without CAP_SYS_ADMIN) makes none: a
    user namespace would map only root, and the child is better off with a uid of its own (plus Landlock)."""
    got = {"user": False, "mounts": False, "pid": False, "network": False, "ipc": False}
    if not capable():
        if can_become():
            return got
        uid, gid = os.getuid(), os.getgid()
        if not unshare(CLONE_NEWUSER):
            return got
        # A process that is not dumpable (the fork server's children are not) cannot write its own maps; it is
        # made so again (privileges.seal) before any student code runs.
        prctl(PR_SET_DUMPABLE, 1)
        got["user"] = _map_user(uid, gid)
        if not got["user"]:
            return got  # unmapped, it could not even make a file in a tmpfs of its own: nothing more
    base = CLONE_NEWNS | CLONE_NEWIPC | (0 if network else CLONE_NEWNET)
    for flags in (base | CLONE_NEWPID, base, CLONE_NEWNS):
        if unshare(flags):
            got["pid"] = bool(flags & CLONE_NEWPID)
            got["network"] = bool(flags & CLONE_NEWNET)
            got["ipc"] = bool(flags & CLONE_NEWIPC)
            # Mounts made from now on stay in this child: never propagate them back to the machine.
            got["mounts"] = mount(None, "/", None, MS_REC | MS_PRIVATE)
            break
    return got


CAP_SETGID, CAP_SETUID, CAP_SYS_ADMIN = 6, 7, 21


def _effective() -> int:
    try:
        with open("/proc/self/status") as status:
            return next(int(line.split()[1], 16) for line in status if line.startswith("CapEff:"))
    except (OSError, ValueError, StopIteration):
        return 0


def capable() -> bool:
    """Root with the capabilities containment uses: mounts and namespaces (CAP_SYS_ADMIN), another uid
    (CAP_SETUID, CAP_SETGID). A root without CAP_SYS_ADMIN (a container started with Docker's default
    capabilities) still gives a child a uid of its own (``can_become``), but makes no namespace."""
    wanted = (1 << CAP_SYS_ADMIN) | (1 << CAP_SETUID) | (1 << CAP_SETGID)
    return os.geteuid() == 0 and _effective() & wanted == wanted


def can_become() -> bool:
    """Root that may give a child another uid (CAP_SETUID, CAP_SETGID), with or without CAP_SYS_ADMIN."""
    wanted = (1 << CAP_SETUID) | (1 << CAP_SETGID)
    return os.geteuid() == 0 and _effective() & wanted == wanted


def _map_user(uid: int, gid: int) -> bool:
    """Root inside the new user namespace is this user outside: nothing more."""
    try:
        for name, text in (("setgroups", "deny"), ("uid_map", f"0 {uid} 1"), ("gid_map", f"0 {gid} 1")):
            with open(f"/proc/self/{name}", "w") as handle:
                handle.write(text)
        return True
    except OSError:
        return False


def split() -> None:
    """Called right after ``enter`` made a PID namespace: returns in the student process only (see the
    module's docstring); the two others never return."""
    alive_r, alive_w = os.pipe()
    init = os.fork()
    if init == 0:
        _init(alive_r, alive_w)
    os.close(alive_r)
    student = os.fork()
    if student == 0:
        os.close(alive_w)
        return
    _wait_and_mirror(init, student, alive_w)


def _init(alive_r: int, alive_w: int) -> None:
    try:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        os.close(alive_w)
        keep = alive_r
        os.closerange(0, keep)
        os.closerange(keep + 1, _max_fd())

        def reap(*_):
            try:
                while os.waitpid(-1, os.WNOHANG)[0] > 0:
                    pass
            except ChildProcessError:
                pass

        signal.signal(signal.SIGCHLD, reap)
        while os.read(keep, 1):
            pass  # the child holds the other end: EOF when it ends
    finally:
        os._exit(0)


def _wait_and_mirror(init: int, student: int, alive_w: int) -> None:
    """Wait for the student process, end the namespace, then end as it did (exit code or signal)."""
    status = None
    try:
        os.closerange(3, alive_w)  # the result pipe and the rest: the parent sees EOF when the student ends
        os.closerange(alive_w + 1, _max_fd())
        while True:
            try:
                pid, code = os.waitpid(-1, 0)
            except ChildProcessError:
                break
            except InterruptedError:
                continue
            if pid == student:
                status = code
                break
        os.close(alive_w)
        try:
            os.kill(init, signal.SIGKILL)
        except OSError:
            pass
        if status is not None and os.WIFSIGNALED(status):
            number = os.WTERMSIG(status)
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            try:
                signal.signal(number, signal.SIG_DFL)
                signal.pthread_sigmask(signal.SIG_UNBLOCK, [number])
            except (OSError, ValueError):
                pass
            os.kill(os.getpid(), number)
            time.sleep(1)
            os._exit(128 + number)
    finally:
        os._exit(os.WEXITSTATUS(status) if status is not None and os.WIFEXITED(status) else 70)


def _max_fd() -> int:
    try:
        return os.sysconf("SC_OPEN_MAX")
    except (OSError, ValueError):
        return 4096


SYSV_SHM_BYTES = 16 * 2**20  # System V shared memory a child's own IPC namespace allows in all (none is needed)


def cap_sysv_shm(limit: int = SYSV_SHM_BYTES) -> bool:
    """Cap the System V shared memory of this process's own IPC namespace (call only in one: these sysctls are the
    namespace's). A segment a child makes, fills and detaches is no process's memory: the watch cannot see it,
    so the namespace holds at most ``limit`` of them in all."""
    pages = max(1, limit // os.sysconf("SC_PAGE_SIZE"))
    try:
        for name, value in (("shmmax", limit), ("shmall", pages)):
            with open(f"/proc/sys/kernel/{name}", "w") as setting:
                setting.write(str(value))
        return True
    except OSError:
        return False
