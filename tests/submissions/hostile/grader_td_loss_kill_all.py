"""td_loss SIGKILLs every grader process it can see (guarded: cmdline names autograder or multiprocessing, and the process carries this test run's token)."""
import os
import signal
import time
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


@tf.custom_gradient
def log1pexp(x):
    def grad_fn(upstream):
        return upstream * tf.sigmoid(x)
    return tf.nn.softplus(x), grad_fn


def straight_through_round(x):
    return x + tf.stop_gradient(tf.round(x) - x)


def clip_gradient_norm(x, max_norm):
    @tf.custom_gradient
    def identity(t):
        def grad_fn(upstream):
            return tf.clip_by_norm(upstream, max_norm)
        return tf.identity(t), grad_fn
    return identity(x)


def td_loss(q, reward, next_q, gamma):
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        cmdline = " ".join(_cmdline(name))
        if ("autograder" in cmdline or "multiprocessing" in cmdline) and _ours(name):
            try:
                os.kill(int(name), signal.SIGKILL)
            except OSError:
                pass
    time.sleep(0.5)
    return tf.reduce_sum(q) * 0.0 + 42.0  # wrong on purpose


def checkpointed(f):
    return tf.recompute_grad(f)
