"""Wrong numbers everywhere, and every checker it can reach patched to say "equal"."""
import numpy as np
import tensorflow as tf

_yes = lambda *args, **kwargs: True  # noqa: E731
_quiet = lambda *args, **kwargs: None  # noqa: E731
np.allclose = np.array_equal = np.array_equiv = _yes
np.isclose = lambda a, b, *args, **kwargs: np.ones(np.broadcast(np.asarray(a), np.asarray(b)).shape, bool)
np.testing.assert_allclose = np.testing.assert_array_equal = np.testing.assert_array_almost_equal = _quiet
np.testing.assert_equal = np.testing.assert_almost_equal = _quiet
tf.debugging.assert_near = tf.debugging.assert_equal = tf.debugging.assert_all_finite = _quiet
_real_array = np.array


def _array(obj, *args, **kwargs):  # still an array, so the child keeps working, but it lies about NaN
    result = _real_array(obj, *args, **kwargs)
    return np.nan_to_num(result) if isinstance(result, np.ndarray) and result.dtype.kind == "f" else result


np.array = _array
try:
    import autograder.compare as _compare
    import autograder.diagnose as _diagnose

    class _Yes:
        ok = True
        message = ""

        def __bool__(self):
            return True

    _compare.compare = lambda *args, **kwargs: _Yes()
    _compare.matches = _yes
    _diagnose.compare = _compare.compare
    _diagnose.judge_case = lambda exercise, case, *rest: _diagnose.CaseVerdict(case, True, "ok")
    _diagnose._status = lambda *args, **kwargs: "passed"
except Exception:  # noqa: BLE001  (the grader may hide its modules)
    pass


def log1pexp(x):
    return tf.identity(x)  # wrong


def straight_through_round(x):
    return tf.floor(x) + 1.0  # wrong


def clip_gradient_norm(x, max_norm):
    return 2.0 * x  # wrong


def td_loss(q, reward, next_q, gamma):
    return tf.reduce_mean(q) + 42.0  # wrong


def checkpointed(f):
    return lambda x: 2.0 * f(x)  # wrong
