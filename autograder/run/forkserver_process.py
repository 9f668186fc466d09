"""The fork server's own process: import TensorFlow once, then fork a child on each of its parent's requests.

Started by the parent (``forkserver.ForkServer``) as ``python -m autograder.run.forkserver_process FD``. It
imports exactly what a student's child may hold (``autograder.run.child`` and what it imports:
``child_modules`` lists them; this module itself runs as ``__main__`` and imports only ``linux`` of the kit),
runs no TensorFlow op and stays single-threaded, so that forking it is safe and costs milliseconds.

Protocol, over a Unix socket pair that only the parent holds (children close their copy at once): the
parent sends an 8-byte request with three file descriptors: the child's end of its own socket (events to
the parent, and from the parent each task with its one case, after every cell has run: ``channel``), the
write end of its status pipe, and a memfd holding the pickled ``ChildJob`` (trusted direction; it holds no
case, no seed and no path of the grader's). The server never reads the job: the child reads it after the
fork, so the server's memory, which every child inherits, never holds another child's job (a classmate's
code, the list of their paths). The server forks; the child runs ``child.child_main``; the server answers the
child's pid, and when it reaps the child it writes the exit code (4 bytes, signed) to the status pipe and
closes it: that pipe is the parent's sentinel. When the parent goes away (EOF), the server kills every child
it started and exits.

The server obeys its parent only: it reads every request's sender from the kernel (SO_PASSCRED, which a
process cannot forge) and ignores one that is not the parent's, so a child that got hold of the socket
(pidfd_getfd, ptrace) cannot ask for a fresh process with none of its limits. It is not dumpable, and it is
its children's subreaper: a process that escaped its child's session and lost its parent comes back to the
server, which kills it (where no PID namespace ends them all).
"""
from __future__ import annotations

import os
import pickle
import select
import signal
import socket
import struct
import sys
import time
import traceback
from multiprocessing.connection import Connection

from autograder.run.linux import PR_SET_CHILD_SUBREAPER, not_dumpable, prctl

REQUEST = b"fork-v3\n"  # 8 bytes: sent whole
PID = struct.Struct("!q")
STATUS = struct.Struct("!i")
CREDENTIALS = struct.Struct("iII")  # struct ucred: pid, uid, gid
ORPHAN_SCAN_SECONDS = 0.5


def serve(fd: int) -> None:
    """The server's loop: fork on the parent's request, reap and report exits, stop with the parent."""
    control = socket.socket(fileno=fd)
    control.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)  # the kernel names each request's sender
    parent = os.getppid()
    not_dumpable()
    prctl(PR_SET_CHILD_SUBREAPER, 1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it closes the socket
    here = os.path.realpath(os.getcwd())  # `-m` put the server's own folder first on the path: not needed
    sys.path[:] = [p for p in sys.path if os.path.realpath(p or ".") != here]
    from autograder.run import child  # TensorFlow, the course's child side: what every child starts with
    from autograder.run.isolation import remember_package_files

    remember_package_files()  # what every child's file view shows of the kit, found once

    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # a handler, so that the wake-up fd is written
    statuses: dict[int, int] = {}  # child pid -> the write end of its status pipe
    while True:
        ready, _, _ = select.select([control, wake_r], [], [], ORPHAN_SCAN_SECONDS)
        if wake_r in ready:
            os.read(wake_r, 4096)
        _reap(statuses)
        _kill_orphans(statuses)
        if control not in ready:
            continue
        request = _request(control, parent)
        if request is None:
            break  # the parent is gone
        if not request:
            continue  # not the parent's: ignored
        result_w, status_w, job_fd = request
        pid = os.fork()
        if pid == 0:  # the child: nothing of the server's may stay open in it
            try:
                signal.set_wakeup_fd(-1)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                signal.signal(signal.SIGINT, signal.default_int_handler)
                for each in (fd, wake_r, wake_w, status_w, *statuses.values()):
                    os.close(each)
                job = pickle.loads(_read_all(job_fd))  # the parent's job, read in the child only
                os.close(job_fd)
                child.child_main(Connection(result_w), job)
            except BaseException:  # noqa: BLE001  (the child's own output, for whoever debugs the grader)
                traceback.print_exc()
                sys.stderr.flush()
            finally:
                os._exit(70)
        os.close(result_w)
        os.close(job_fd)
        statuses[pid] = status_w
        control.sendall(PID.pack(pid))
    for pid in statuses:
        for kill in (os.killpg, os.kill):
            try:
                kill(pid, signal.SIGKILL)
            except OSError:
                pass
    deadline = time.monotonic() + 5
    while statuses and time.monotonic() < deadline:
        _reap(statuses)
        time.sleep(0.01)


def _request(control: socket.socket, parent: int) -> tuple[int, int, int] | list | None:
    """The next request's three descriptors; [] for a request that is not the parent's (or malformed, its
    descriptors closed); None at EOF."""
    space = socket.CMSG_SPACE(3 * 4) + socket.CMSG_SPACE(CREDENTIALS.size)
    try:
        data, ancillary, _, _ = control.recvmsg(len(REQUEST), space)
    except OSError:
        return None
    if not data:
        return None
    fds, sender = [], None
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds += list(struct.unpack(f"{len(payload) // 4}i", payload[:len(payload) - len(payload) % 4]))
        elif level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS and len(payload) >= CREDENTIALS.size:
            sender = CREDENTIALS.unpack(payload[:CREDENTIALS.size])[0]
    try:
        data += receive_exactly(control, len(REQUEST) - len(data)) if len(data) < len(REQUEST) else b""
    except (OSError, EOFError):
        data = b""
    if data == REQUEST and sender == parent and len(fds) == 3:
        return fds[0], fds[1], fds[2]
    for each in fds:
        os.close(each)
    print(f"fork server: ignored a request from pid {sender}", file=sys.stderr, flush=True)
    return []


def receive_exactly(sock: socket.socket, size: int) -> bytes:
    """``size`` bytes from a blocking socket (both ends of the protocol); EOFError when it closes first."""
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise EOFError("connection closed")
        data += chunk
    return data


def _read_all(descriptor: int) -> bytes:
    chunks = []
    while chunk := os.read(descriptor, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _reap(statuses: dict[int, int]) -> None:
    """Every child that ended, its exit code sent; orphans that came back to this subreaper, reaped."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        if pid in statuses:
            descriptor = statuses.pop(pid)
            try:
                os.write(descriptor, STATUS.pack(os.waitstatus_to_exitcode(status)))
            except OSError:
                pass
            os.close(descriptor)


def _kill_orphans(statuses: dict[int, int]) -> None:
    """Processes whose parent is this server but that are not its children: escaped from a child (a double
    fork, a setsid survivor) and orphaned. None may outlive its submission: they are killed."""
    me = str(os.getpid())
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in statuses:
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 1 and fields[1].decode() == me:
            try:
                os.kill(int(entry), signal.SIGKILL)
            except OSError:
                pass


if __name__ == "__main__":
    serve(int(sys.argv[1]))
