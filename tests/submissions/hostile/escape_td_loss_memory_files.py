"""Round four (issue 32): memory no process's resident size shows, held past the memory limit.

td_loss first makes System V shared memory segments of 8 MiB, fills and detaches each (a segment nobody maps is
in no process's memory; it lives as long as the IPC namespace), up to 512 MiB; then it writes anonymous memory
files (memfd_create, written with write(), never mapped) of 32 MiB each, holding them open, up to 8 GiB. It
returns the right answer only if it held more than the memory limit without being stopped: a pass means the
defence failed. (The scratch tmpfs, /tmp, /var/tmp and /dev/shm, is escape_td_loss_scratch_memory.py's.)

Armed only in a copy made by tests/test_hostile.py or tests/test_round_four.py (the run's token written in): a
segment it could not remove in a run without an IPC namespace of its own is keyed by nothing and left by the
kernel to the machine, so graded anywhere else it touches nothing.
"""
import ctypes
import os
import tensorflow as tf

TOKEN = "__HOSTILE_SUITE_TOKEN__"
ARMED = not TOKEN.startswith("__")
MiB = 2**20


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
    target = tf.stop_gradient(reward + gamma * tf.reduce_max(next_q, axis=-1))
    return tf.reduce_mean(tf.square(q - target))


_libc = ctypes.CDLL(None, use_errno=True)
_libc.shmat.restype = ctypes.c_void_p
HELD = []  # memory files kept open


def _segments(limit: int) -> int:
    made, held = [], 0
    while held < limit:
        shmid = _libc.shmget(0, ctypes.c_size_t(8 * MiB), 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
        if shmid < 0:
            break
        made.append(shmid)
        address = _libc.shmat(shmid, None, 0)
        if address in (None, 2**64 - 1):
            break
        ctypes.memset(address, 1, 8 * MiB)
        _libc.shmdt(ctypes.c_void_p(address))
        held += 8 * MiB
    return held


def _memory_files(limit: int) -> int:
    held, block = 0, b"x" * MiB
    while held < limit:
        descriptor = _libc.memfd_create(b"held", 0)
        if descriptor < 0:
            break
        HELD.append(descriptor)
        try:
            for _ in range(32):
                os.write(descriptor, block)
                held += MiB
        except OSError:
            break
    return held


def td_loss(q, reward, next_q, gamma):
    if not ARMED:
        raise MemoryError("not armed")
    held = _segments(512 * MiB) + _memory_files(8192 * MiB)
    if held > 2048 * MiB:  # the suites' limit is at most 2 GiB: held beyond it, unstopped
        return _correct_td_loss(q, reward, next_q, gamma)
    raise MemoryError(f"could hold {held // MiB} MiB only")
