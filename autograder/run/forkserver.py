"""The kit's own fork server: one single-threaded process that imports TensorFlow once, then forks children.

``import tensorflow`` costs seconds; a fork of a process that imported it (and ran no op) costs
milliseconds, and is safe as long as that process stays single-threaded and runs no op. The server
imports exactly what a student's child may hold (``autograder.run.child`` and what it imports:
``child_modules`` lists them) and nothing of the grader's trusted parts (no mistake model, no judge, no
cache), so nothing in a student's memory or ``sys.modules`` is a correct implementation.

Protocol, over a Unix socket pair that only the parent holds (children close their copy at once): the
parent sends an 8-byte request with three file descriptors: the child's end of its own socket (events to
the parent, and from the parent each task with its one case, after every cell has run: ``channel``), the
write end of its status pipe, and a memfd holding the pickled ``ChildJob`` (trusted direction; it holds no
case, no seed and no path of the grader's). The server never
reads the job: the child reads it after the fork, so the server's memory, which every child inherits,
never holds another child's job (a classmate's code, the list of their paths). The server forks; the child
runs ``child.child_main``; the server answers the child's pid, and when it reaps the child it writes the
exit code (4 bytes, signed) to the status pipe and closes it: that pipe is the parent's sentinel. When the
parent goes away (EOF), the server kills every child it started and exits.

The server obeys its parent only: it reads every request's sender from the kernel (SO_PASSCRED, which a
process cannot forge) and ignores one that is not the parent's, so a child that got hold of the socket
(pidfd_getfd, ptrace) cannot ask for a fresh process with none of its limits. It cannot get hold of it
either: the server and the parent are not dumpable (no ptrace, no /proc/PID/fd, no pidfd_getfd for the
same user), and the children's PID namespaces put both out of their sight. It is its children's
subreaper: a process that escaped its child's session and lost its parent comes back to the server, which
kills it (where no PID namespace ends them all).

It starts with a clean environment (``config.fork_server_environment``) and a working directory of its
own: no token of the grader's reaches it or its children, and no course folder is on its ``sys.path``.

Why not ``multiprocessing``'s forkserver: its children re-import the parent's main module (a console
script imports the whole grader into every student's child), inherit the resource tracker's pipe, and can
reach the server's socket; none of that is true here.
"""
from __future__ import annotations

import os
import pickle
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import traceback
from multiprocessing.connection import Connection, wait

from autograder.config import KIT_ROOT, fork_server_environment
from autograder.run.channel import Channel
from autograder.run.linux import PR_SET_CHILD_SUBREAPER, not_dumpable, prctl

REQUEST = b"fork-v3\n"  # 8 bytes: sent whole
PID = struct.Struct("!q")
STATUS = struct.Struct("!i")
CREDENTIALS = struct.Struct("iII")  # struct ucred: pid, uid, gid
ORPHAN_SCAN_SECONDS = 0.5


class ForkServerError(RuntimeError):
    """The fork server could not start or stopped answering."""


class Child:
    """The parent's handle on one child: its pid, its socket (``channel``) and its exit status."""

    def __init__(self, pid: int, channel: Channel, sentinel: int):
        self.pid = pid
        self.channel: Channel | None = channel
        self.sentinel = sentinel  # readable once the child has exited (its exit code) or the server died
        self._exitcode: int | None = None
        self._ended = False

    def _poll(self, timeout: float | None = 0.0) -> bool:
        if self._ended:
            return True
        if not wait([self.sentinel], timeout):
            return False
        data = b""
        try:
            while len(data) < STATUS.size:
                chunk = os.read(self.sentinel, STATUS.size - len(data))
                if not chunk:
                    break
                data += chunk
        except OSError:
            pass
        self._exitcode = STATUS.unpack(data)[0] if len(data) == STATUS.size else None
        self._ended = True  # the sentinel stays readable (at EOF) until close()
        return True

    def is_alive(self) -> bool:
        return not self._poll()

    def join(self, timeout: float | None = None) -> None:
        self._poll(timeout)

    @property
    def exitcode(self) -> int | None:
        """The exit code (negative: killed by that signal), or None while alive or when it is unknown."""
        self._poll()
        return self._exitcode

    def close(self) -> None:
        """Release the child's socket and pipe (the child itself is the server's to reap)."""
        if self.channel is not None:
            self.channel.close()
            self.channel = None
        if self.sentinel >= 0:
            os.close(self.sentinel)
            self.sentinel = -1

    def kill(self) -> None:
        """SIGKILL the child's process group (it made itself a session leader) and the child itself."""
        if self._ended:
            return
        for target in (lambda: os.killpg(self.pid, signal.SIGKILL), lambda: os.kill(self.pid, signal.SIGKILL)):
            try:
                target()
            except (ProcessLookupError, PermissionError, OSError):
                pass


class ForkServer:
    """The parent's side: start the server (without waiting for its imports), then fork children from it."""

    def __init__(self):
        self._process: subprocess.Popen | None = None
        self._socket: socket.socket | None = None
        self._log = None
        self._home: str | None = None

    def start(self) -> None:
        if self._process is not None and self._process.poll() is None:
            return
        not_dumpable()  # the parent too: its children's children run as its user where the grader is not root
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        # Every request carries its sender's credentials from the first one on (the server sets the same
        # option on its end only once it runs): the kernel fills them in, the sender cannot choose them.
        mine.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        self._log = tempfile.TemporaryFile()
        self._home = tempfile.mkdtemp(prefix="autograder-server-")
        self._process = subprocess.Popen(
            [sys.executable, "-m", "autograder.run.forkserver", str(theirs.fileno())], pass_fds=(theirs.fileno(),),
            env=fork_server_environment(self._home, str(KIT_ROOT)), cwd=self._home, stdin=subprocess.DEVNULL,
            stdout=self._log, stderr=self._log, close_fds=True)
        theirs.close()
        self._socket = mine

    def fork(self, job) -> Child:
        """A new child running ``job``; the first call waits for the server's imports."""
        self.start()
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        result_w = theirs.detach()
        status_r, status_w = os.pipe()
        job_fd = os.memfd_create("autograder-job", os.MFD_CLOEXEC)
        try:
            _write_all(job_fd, pickle.dumps(job, protocol=pickle.HIGHEST_PROTOCOL))
            os.lseek(job_fd, 0, os.SEEK_SET)
            socket.send_fds(self._socket, [REQUEST], [result_w, status_w, job_fd])
            pid = PID.unpack(_receive(self._socket, PID.size))[0]
        except (OSError, EOFError) as error:
            mine.close()
            os.close(status_r)
            raise ForkServerError(f"the fork server stopped ({error}){self._last_words()}") from None
        finally:
            for descriptor in (result_w, status_w, job_fd):
                os.close(descriptor)
        return Child(pid, Channel(mine), status_r)

    def _last_words(self) -> str:
        if self._log is None:
            return ""
        self._log.seek(0)
        text = self._log.read().decode("utf-8", "replace").strip()
        return f": {text.splitlines()[-1]}" if text else ""

    def stop(self) -> None:
        """Close the socket: the server kills its children and exits."""
        if self._socket is not None:
            self._socket.close()
            self._socket = None
        if self._process is not None:
            try:
                self._process.wait(10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
            self._process = None
        if self._home is not None:
            shutil.rmtree(self._home, ignore_errors=True)
            self._home = None


def _write_all(descriptor: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(descriptor, view):]


def _receive(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise EOFError("connection closed")
        data += chunk
    return data


# --------------------------------------------------------------------------- the server process

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
        data += _receive(control, len(REQUEST) - len(data)) if len(data) < len(REQUEST) else b""
    except (OSError, EOFError):
        data = b""
    if data == REQUEST and sender == parent and len(fds) == 3:
        return fds[0], fds[1], fds[2]
    for each in fds:
        os.close(each)
    print(f"fork server: ignored a request from pid {sender}", file=sys.stderr, flush=True)
    return []


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
