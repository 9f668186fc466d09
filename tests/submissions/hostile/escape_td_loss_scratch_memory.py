"""td_loss fills /tmp, /var/tmp and /dev/shm (the scratch tmpfs the child gets: memory that no process's
resident size counts) with 300 MB each and holds it. Held memory outside the limit is the harm: it
returns the right answer only if it could write more than 300 MB in all."""
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


def td_loss(q, reward, next_q, gamma):
    import time
    written = 0
    chunk = b"x" * (1 << 20)
    for folder in ("/tmp", "/var/tmp", "/dev/shm"):
        try:
            with open(os.path.join(folder, f"hostile-fill-{os.getpid()}"), "wb") as handle:
                for _ in range(300):
                    handle.write(chunk)
                    written += len(chunk)
        except OSError:
            continue
    if written > 300 * (1 << 20):
        time.sleep(3)
        return _correct_td_loss(q, reward, next_q, gamma)
    raise MemoryError(f"could write {written >> 20} MiB only")
