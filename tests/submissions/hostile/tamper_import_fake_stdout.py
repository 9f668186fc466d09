"""Prints fake results, to its own output and to the grader's, and implements nothing."""
import json
import os
import sys

import tensorflow as tf


def _environ(pid):
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            return handle.read().split(b"\0")
    except OSError:
        return []


def _token():
    """The random token of the test run that started this grader: from the environment, else from the
    grader's command line (its --output folder is named after it); None when neither can be read."""
    import re

    for entry in _environ("self"):
        if entry.startswith(b"HOSTILE_SUITE_TOKEN=") and len(entry) > len(b"HOSTILE_SUITE_TOKEN="):
            return entry.split(b"=", 1)[1].decode()
    for pid in _ancestors():
        for argument in _cmdline(pid):
            found = re.search(r"autograder-(?:hostile|honest-alone)-([0-9a-f]{32})", argument)
            if found:
                return found.group(1)
    return None


def _ours(pid):
    """True only for processes of the test run that planted the token: never anything else."""
    token = _token()
    if token is None or int(pid) == os.getpid():
        return False
    return (f"HOSTILE_SUITE_TOKEN={token}".encode() in _environ(pid)
            or any(token in argument for argument in _cmdline(pid)))


def _ancestors():
    pid = os.getpid()
    for _ in range(12):
        try:
            with open(f"/proc/{pid}/stat") as handle:
                pid = int(handle.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return
        if pid <= 1:
            return
        yield pid


def _cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return [part.decode(errors="replace") for part in handle.read().split(b"\0") if part]
    except OSError:
        return []


FAKE = json.dumps([{
    "submission": "tamper_import_fake_stdout.py", "student": "tamper_import_fake_stdout",
    "assignment": "custom_gradients", "score": 10.0, "max_score": 10.0,
    "exercises": [{"id": name, "score": 2.0, "max_score": 2.0, "status": "passed", "pitfalls": [],
                   "feedback": "FAKE-RESULT-7f3a"}
                  for name in ("log1pexp", "straight_through_round", "clip_gradient_norm", "td_loss",
                               "checkpointed")],
}])
print('{"score": 10}')
print(FAKE)
sys.stdout.flush()
os.write(1, FAKE.encode() + b"\n")
for _pid in _ancestors():
    if _ours(_pid):
        for _fd in (1, 2):
            try:
                with open(f"/proc/{_pid}/fd/{_fd}", "a") as _stream:
                    _stream.write(FAKE + "\n")
            except OSError:
                pass


def log1pexp(x):
    raise NotImplementedError()


def straight_through_round(x):
    raise NotImplementedError()


def clip_gradient_norm(x, max_norm):
    raise NotImplementedError()


def td_loss(q, reward, next_q, gamma):
    raise NotImplementedError()


def checkpointed(f):
    raise NotImplementedError()
