"""Implements nothing; at import writes fake results where the grader might read or write its own."""
import json
import os
from pathlib import Path

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


FAKE = json.dumps([{
    "submission": "grader_import_write_results.py", "student": "grader_import_write_results",
    "assignment": "custom_gradients", "score": 10.0, "max_score": 10.0,
    "exercises": [{"id": name, "score": 2.0, "max_score": 2.0, "status": "passed", "pitfalls": [],
                   "feedback": "FAKE-RESULT-7f3a"}
                  for name in ("log1pexp", "straight_through_round", "clip_gradient_norm", "td_loss",
                               "checkpointed")],
}])
CSV = "student,score,max_score\ngrader_import_write_results,10,10  # FAKE-RESULT-7f3a\n"


def _write(path, text):
    try:
        Path(path).write_text(text)
    except OSError:
        pass


_write("results.json", FAKE)
_write("grades.csv", CSV)
for _pid in _ancestors():
    if not _ours(_pid):  # only the grader processes of this test run
        continue
    try:
        _cwd = Path(os.readlink(f"/proc/{_pid}/cwd"))
    except OSError:
        continue
    _write(_cwd / "results.json", FAKE)
    _write(_cwd / "grades.csv", CSV)
    _arguments = _cmdline(_pid)
    for _i, _argument in enumerate(_arguments):
        _output = None
        if _argument == "--output" and _i + 1 < len(_arguments):
            _output = _arguments[_i + 1]
        elif _argument.startswith("--output="):
            _output = _argument.split("=", 1)[1]
        if _output:
            _target = _cwd / _output
            _write(_target, FAKE)
            _write(_target.parent / "results.json", FAKE)
            _write(_target.parent / "grades.csv", CSV)
