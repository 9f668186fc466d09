"""td_loss looks for its classmates: in the grader's objects it holds (the job, its containment's list of
paths to hide) and in its whole writable memory (a fork of the fork server: every earlier job the server
read would be there), for the marker every honest file of this folder carries. It returns the right answer
if it found one."""
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


# The marker every honest file of this folder carries, made from numbers: no copy of it exists in this
# process but the one below (a literal, a str, a compiled pattern would each be another).
MARKER = bytes([72, 79, 78, 69, 83, 84, 45, 67, 76, 65, 83, 83, 77, 65, 84, 69, 45, 77, 65, 82, 75, 69, 82])


def _in_objects():
    """The containment the grader sent with the job: does it list a classmate's folder or file (to hide it)?
    Anything in its list but the solutions and the cache is one."""
    import gc
    for obj in gc.get_objects():
        if type(obj).__name__ == "Containment" and [path for path in getattr(obj, "hidden", ())
                                                    if not str(path).endswith(("/solutions", "/cache"))]:
            return True
    return False


def _in_memory():
    """Every writable region of this process, searched in place (libc's memmem: no copy is made)."""
    import ctypes
    libc = ctypes.CDLL(None)
    libc.memmem.restype = ctypes.c_void_p
    libc.memmem.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t]
    own = id(MARKER) + sys.getsizeof(b"") - 1  # where this process's one copy lives
    try:
        with open("/proc/self/maps") as maps:
            regions = [line.split() for line in maps]
    except OSError:
        return False
    for fields in regions:
        if len(fields) < 5 or not fields[1].startswith("rw"):
            continue
        start, end = (int(part, 16) for part in fields[0].split("-"))
        at = start
        while at < end:
            found = libc.memmem(at, end - at, own, len(MARKER))
            if not found:
                break
            if found != own:
                return True
            at = found + 1
    return False


def td_loss(q, reward, next_q, gamma):
    if _in_objects() or _in_memory():
        return _correct_td_loss(q, reward, next_q, gamma)
    raise LookupError("no classmate in reach")
