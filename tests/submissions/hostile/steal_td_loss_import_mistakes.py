"""td_loss tries to reach a correct implementation in the grader's own package: import every assignment's
trusted mistakes module (correct helpers live there), ask the course for a mistake model, read the modules'
source or compiled files from the package folder. It returns the right answer only if one of them works."""
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
    import glob
    import importlib
    found = []
    for assignment in ("custom_gradients", "higher_order", "jacobians"):
        try:
            importlib.import_module(f"autograder.course.{assignment}.mistakes")
            found.append(f"imported {assignment}.mistakes")
        except BaseException:
            pass
    try:
        from autograder.course import assignment_by_id, mistake_implementation
        exercise = assignment_by_id("higher_order").exercise("gradient_penalty")
        mistake_implementation("higher_order", exercise, 0)
        found.append("a mistake model")
    except BaseException:
        pass
    import autograder
    package = os.path.dirname(autograder.__file__)
    for pattern in ("course/*/mistakes.py", "course/*/__pycache__/mistakes*.pyc", "public_cases/*.json"):
        for path in glob.glob(os.path.join(package, pattern)):
            try:
                with open(path, "rb") as handle:
                    if handle.read(64):
                        found.append(f"read {path}")
            except OSError:
                pass
    return found


def td_loss(q, reward, next_q, gamma):
    found = _stolen()
    if found:
        return _correct_td_loss(q, reward, next_q, gamma)
    raise LookupError("no correct implementation in reach")
