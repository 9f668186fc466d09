"""Implements nothing, and at import runs a classmate's file (honest_a.py, same folder) instead."""
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


def _folders():
    try:
        import autograder

        yield Path(autograder.__file__).resolve().parents[1] / "tests" / "submissions" / "hostile"
    except Exception:  # noqa: BLE001
        pass
    yield Path("/work/main/tests/submissions/hostile")
    for pid in _ancestors():  # the folder the grader was given, read from its command line
        try:
            cwd = Path(os.readlink(f"/proc/{pid}/cwd"))
        except OSError:
            cwd = Path("/")
        for argument in _cmdline(pid):
            for path in (cwd / argument, Path(f"/proc/{pid}/root") / (cwd / argument).relative_to("/")):
                yield path if path.suffix not in (".py", ".ipynb") else path.parent


COPIED = None
for _folder in _folders():
    for _name in ("honest_a.py", "honest_b.py"):
        try:
            _code = (_folder / _name).read_text()
        except OSError:
            continue
        try:
            exec(compile(_code, "<copied>", "exec"), globals())  # noqa: S102
        except Exception:  # noqa: BLE001
            continue
        COPIED = _folder / _name
        break
    if COPIED:
        break
