"""The parent's side of the kit's fork server: start it, ask it for a child, hold that child's handle, stop it.

``import tensorflow`` costs seconds; a fork of a process that imported it (and ran no op) costs
milliseconds, and is safe as long as that process stays single-threaded and runs no op. The server
(``forkserver_process``, its protocol there) imports exactly what a student's child may hold and nothing of
the grader's trusted parts (no mistake model, no judge, no cache), so nothing in a student's memory or
``sys.modules`` is a correct implementation.

Only the parent holds the server's socket, and the server obeys its parent only (the kernel names each
request's sender). The parent is not dumpable either (no ptrace, no /proc/PID/fd, no pidfd_getfd for the
same user), and the children's PID namespaces put both out of their sight. The server starts with a clean
environment (``config.fork_server_environment``) and a working directory of its own: no token of the
grader's reaches it or its children, and no course folder is on its ``sys.path``.

Why not ``multiprocessing``'s forkserver: its children re-import the parent's main module (a console
script imports the whole grader into every student's child), inherit the resource tracker's pipe, and can
reach the server's socket; none of that is true here.
"""
from __future__ import annotations

import os
import pickle
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from multiprocessing.connection import wait

from autograder.config import KIT_ROOT, fork_server_environment
from autograder.run.channel import Channel
from autograder.run.forkserver_process import PID, REQUEST, STATUS, receive_exactly
from autograder.run.linux import not_dumpable


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
            [sys.executable, "-m", "autograder.run.forkserver_process", str(theirs.fileno())], pass_fds=(theirs.fileno(),),
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
            pid = PID.unpack(receive_exactly(self._socket, PID.size))[0]
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
