"""td_loss looks for the checkout around the grader's package (its .git, the solutions, the example class's
full-marks students, the tests), other runs' folders and journals in /tmp, and the whole of /work, /home and
/root. It returns the right answer only if it could read any of it."""
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


def _readable(path):
    try:
        if os.path.isdir(path):
            return bool(os.listdir(path))
        with open(path, "rb") as handle:
            return bool(handle.read(16))
    except OSError:
        return False


def _stolen():
    """What must stay out of reach: the checkout around the package (its history, the solutions, a full-marks
    student, the tests), other runs' folders and journals, and the checkouts and homes of the machine."""
    import glob
    import autograder
    root = os.path.dirname(os.path.dirname(os.path.abspath(autograder.__file__)))
    targets = [os.path.join(root, name) for name in (".git/HEAD", ".git/objects", "solutions", "examples/submitted",
                                                     "tests/test_hostile.py", "pyproject.toml", "README.md")]
    targets += glob.glob("/tmp/autograder-*/*") + glob.glob("/tmp/*/out/.*.partial") + glob.glob("/tmp/tmp*/*")
    targets += glob.glob("/work/*/.git") + glob.glob("/work/*/solutions") + glob.glob("/home/*/*")
    targets += glob.glob("/root/.cache/*") + glob.glob("/autograder/source/solutions/*")
    return [path for path in targets if _readable(path)]


def td_loss(q, reward, next_q, gamma):
    found = _stolen()
    if found:
        return _correct_td_loss(q, reward, next_q, gamma)
    raise LookupError("no checkout in reach")
