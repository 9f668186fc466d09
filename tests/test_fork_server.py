"""The fork server obeys its parent only, never reads a job, starts from a clean environment, and its children
hold exactly the kit's modules that ``child_modules`` lists.

A child that got hold of the server's socket (pidfd_getfd, ptrace: both closed by the server being not
dumpable, and out of sight from a child's PID namespace) could ask it for a fresh process with none of its
limits. The kernel tells the server who sent each request (SO_PASSCRED); one not from its parent is ignored.
"""
from __future__ import annotations

import os
import pickle
import socket
import time
from multiprocessing.connection import wait

import pytest

from autograder.run.child_modules import CHILD_MODULES
from autograder.run.forkserver import ForkServer
from autograder.run.forkserver_process import REQUEST
from autograder.run.tasks import ChildJob
from autograder.run.wire.messages import MAX_MESSAGE_BYTES, dumps, loads

pytestmark = pytest.mark.slow  # the server imports TensorFlow


def _messages(child, timeout: float = 60) -> list[dict]:
    """What the child says until done; told at once that no task is left (it has no cell to run)."""
    child.channel.send(dumps({"event": "finish"}))
    found, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline and not child.channel.at_end:
        if wait([child.channel], 0.2):
            found += [loads(data) for data in child.channel.receive(MAX_MESSAGE_BYTES)]
            if found and found[-1]["event"] == "done":
                return found
    return found


def test_a_request_that_is_not_the_parents_is_ignored(monkeypatch, tmp_path):
    monkeypatch.setenv("HOSTILE_SUITE_SECRET", "not-for-children")
    server = ForkServer()
    try:
        job = ChildJob("custom_gradients", cells=[], load=False, workdir=str(tmp_path))
        first = server.fork(job)  # waits for the server's imports
        assert [m["event"] for m in _messages(first)][-1] == "done"
        # A process that is not the parent, holding the parent's end of the socket, asks for a child.
        result_r, result_w = os.pipe()
        status_r, status_w = os.pipe()
        job_fd = os.memfd_create("rogue-job")
        os.write(job_fd, pickle.dumps(job))
        rogue = os.fork()
        if rogue == 0:
            try:
                socket.send_fds(server._socket, [REQUEST], [result_w, status_w, job_fd])
            finally:
                os._exit(0)
        os.waitpid(rogue, 0)
        for descriptor in (result_w, status_w, job_fd):
            os.close(descriptor)
        time.sleep(1)
        # No child was forked for it: its pipes were closed by the server unused (EOF at once, no pid sent).
        assert os.read(result_r, 1) == b"" and os.read(status_r, 1) == b""
        # The parent is still obeyed, and reads its own child's pid, not a stale answer.
        second = server.fork(job)
        assert second.pid != first.pid and [m["event"] for m in _messages(second)][-1] == "done"
        server._log.seek(0)
        assert f"ignored a request from pid {rogue}" in server._log.read().decode()
        # What the server (and so every child) started with holds nothing of the grader's environment.
        environ = open(f"/proc/{server._process.pid}/environ", "rb").read().split(b"\0")
        assert not [entry for entry in environ if entry.startswith(b"HOSTILE_SUITE_SECRET")]
        assert {entry.split(b"=")[0] for entry in environ if entry} <= {
            b"PATH", b"LANG", b"LC_ALL", b"TF_CPP_MIN_LOG_LEVEL", b"TF_ENABLE_ONEDNN_OPTS", b"PYTHONWARNINGS",
            b"TF_DETERMINISTIC_OPS", b"TF_USE_LEGACY_KERAS", b"KERAS_BACKEND", b"CUDA_VISIBLE_DEVICES",
            b"OMP_NUM_THREADS", b"PYTHONPATH", b"PYTHONHOME", b"LD_LIBRARY_PATH", b"HOME"}
    finally:
        server.stop()


def test_a_forked_child_holds_exactly_the_listed_modules_of_the_kit(tmp_path):
    """What a student's code can reach in its child is what the fork server imported: the child's side
    (``run.child``) and the server's own module, which runs as ``__main__`` and must bring in nothing more of
    the kit (not the parent's side of the server, nor its channel). The notebook API's stand-ins, which the
    child makes before the cells run, have no file and are left out."""
    cell = ("import sys\n"
            "raise LookupError(' '.join(sorted(name for name, module in list(sys.modules.items())\n"
            "                                  if name.split('.')[0] == 'autograder' and getattr(module, '__file__', None))))")
    server = ForkServer()
    try:
        child = server.fork(ChildJob("custom_gradients", cells=[(1, cell, "<cell 1>")], workdir=str(tmp_path)))
        (loaded,) = [m for m in _messages(child) if m["event"] == "loaded"]
        (error,) = loaded["errors"]
        held = set(error["error"]["message"].split())
        assert error["error"]["type"] == "LookupError" and held == CHILD_MODULES, held ^ CHILD_MODULES
    finally:
        server.stop()
