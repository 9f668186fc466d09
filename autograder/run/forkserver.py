"""The kit's own fork server: one single-threaded process that imports TensorFlow once, then forks children.

``import tensorflow`` costs seconds; a fork of a process that imported it (and ran no op) costs
milliseconds, and is safe as long as that process stays single-threaded and runs no op. The server
imports exactly what a student's child may hold (``autograder.run.child`` and what it imports:
``child_modules`` lists them) and nothing of the grader's trusted parts (no mistake model, no judge, no
cache), so nothing in a student's memory or ``sys.modules`` is a correct implementation.

Protocol, over a Unix socket pair that only the parent holds (children close their copy at once):
the parent sends a pickled ``ChildJob`` (trusted direction) with two file descriptors: the write end of
the child's result pipe and of its status pipe. The server forks; the child runs ``child.child_main``;
the server answers the child's pid, and when it reaps the child it writes the exit code (4 bytes,
signed) to the status pipe and closes it: that pipe is the parent's sentinel. When the parent goes away
(EOF), the server kills every child it started and exits.

Why not ``multiprocessing``'s forkserver: its children re-import the parent's main module (a console
script imports the whole grader into every student's child), inherit the resource tracker's pipe, and can
reach the server's socket; none of that is true here.
"""
from __future__ import annotations

import os
import pickle
import select
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from multiprocessing.connection import Connection, wait

from autograder.config import KIT_ROOT, quiet_environment

HEADER = struct.Struct("!Q")
PID = struct.Struct("!q")
STATUS = struct.Struct("!i")


class ForkServerError(RuntimeError):
    """The fork server could not start or stopped answering."""


class Child:
    """The parent's handle on one child: its pid, its result connection and its exit status."""

    def __init__(self, pid: int, connection: Connection, sentinel: int):
        self.pid = pid
        self.connection = connection
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
        """Release the child's pipes (the child itself is the server's to reap)."""
        if self.connection is not None:
            self.connection.close()
            self.connection = None
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

    def start(self) -> None:
        if self._process is not None and self._process.poll() is None:
            return
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self._log = tempfile.TemporaryFile()
        environment = quiet_environment()
        environment["PYTHONPATH"] = os.pathsep.join(p for p in (str(KIT_ROOT), environment.get("PYTHONPATH")) if p)
        self._process = subprocess.Popen(
            [sys.executable, "-m", "autograder.run.forkserver", str(theirs.fileno())], pass_fds=(theirs.fileno(),),
            env=environment, stdin=subprocess.DEVNULL, stdout=self._log, stderr=self._log, close_fds=True)
        theirs.close()
        self._socket = mine

    def fork(self, job) -> Child:
        """A new child running ``job``; the first call waits for the server's imports."""
        self.start()
        result_r, result_w = os.pipe()
        status_r, status_w = os.pipe()
        try:
            payload = pickle.dumps(job, protocol=pickle.HIGHEST_PROTOCOL)
            socket.send_fds(self._socket, [HEADER.pack(len(payload))], [result_w, status_w])  # 8 bytes: sent whole
            self._socket.sendall(payload)
            pid = PID.unpack(_receive(self._socket, PID.size))[0]
        except (OSError, EOFError) as error:
            os.close(result_r)
            os.close(status_r)
            raise ForkServerError(f"the fork server stopped ({error}){self._last_words()}") from None
        finally:
            os.close(result_w)
            os.close(status_w)
        return Child(pid, Connection(result_r, writable=False), status_r)

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
    """The server's loop: fork on request, reap and report exits, stop with the parent."""
    control = socket.socket(fileno=fd)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it closes the socket
    from autograder.run import child  # TensorFlow, the course's child side: what every child starts with

    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # a handler, so that the wake-up fd is written
    statuses: dict[int, int] = {}  # child pid -> the write end of its status pipe
    while True:
        ready, _, _ = select.select([control, wake_r], [], [])
        if wake_r in ready:
            os.read(wake_r, 4096)
            _reap(statuses)
        if control not in ready:
            continue
        try:
            header, fds, _, _ = socket.recv_fds(control, HEADER.size, 2)
        except OSError:
            header, fds = b"", []
        if not header:
            break  # the parent is gone
        if len(header) < HEADER.size:
            header += _receive(control, HEADER.size - len(header))
        job = pickle.loads(_receive(control, HEADER.unpack(header)[0]))
        result_w, status_w = fds
        pid = os.fork()
        if pid == 0:  # the child: nothing of the server's may stay open in it
            try:
                signal.set_wakeup_fd(-1)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                signal.signal(signal.SIGINT, signal.default_int_handler)
                for each in (fd, wake_r, wake_w, status_w, *statuses.values()):
                    os.close(each)
                child.child_main(Connection(result_w, readable=False), job)
            finally:
                os._exit(70)
        os.close(result_w)
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


def _reap(statuses: dict[int, int]) -> None:
    while statuses:
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


if __name__ == "__main__":
    serve(int(sys.argv[1]))
