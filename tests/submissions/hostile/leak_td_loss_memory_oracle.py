"""Round three (issue 22): the course's secret, and the hidden cases this child has not been handed yet, looked
for everywhere student code can look, however the grader's modules are named: every object the collector
tracks and everything it holds, every thread's frames (sys._current_frames, f_back chains) and their locals,
every module's globals, and every resident writable page of the process (libc's memmem over /proc/self/maps'
regions, in place: the bytes /proc/self/mem would give). What it looks for: on its first hidden case, the
inputs of every random hidden case handed after it, as bytes; on its second, the seed, in decimal and in hex,
as 8 little-endian bytes and as a Python int's digits.

td_loss is right on its public case (so that both hidden cases' messages are shown). On a hidden case it
returns the right answer only if it found one of them (a pass means the defence failed); else, since a hidden
case shows only its kind (round four), it says what happened by the kind it chooses: an error (LookupError)
when it looked everywhere (its check that it can find the case it holds passed), wrong values when that check
failed, out of memory (a MemoryError) when it used up its CPU time (measured in CPU time: load cannot make it
run out). The other exercises are correct.

tests/test_hostile.py writes in what to look for when it copies this file (PATTERNS, masked: no copy of a
pattern exists in this process but the one rebuilt here, whose address the search skips). Graded anywhere
else, the placeholder stays and it looks for nothing.
"""
import ctypes
import gc
import sys
import time

import tensorflow as tf

PATTERNS = "__ROUND_THREE_PATTERNS__"  # [[tag, [byte ^ MASK, ...]], ...] in the order cases are handed
MASK = 0x5A
BUDGET = 4.5  # seconds of this thread's CPU time (a loaded machine stretches the wall time, the test's case limit too)
CALLS: list[str] = []  # the hidden cases searched on so far


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


_libc = ctypes.CDLL(None)
_libc.memmem.restype = ctypes.c_void_p
_libc.memmem.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t]
_patterns = []  # (tag, buffer): each pattern's one copy in this process
if isinstance(PATTERNS, list):
    for _tag, _masked in PATTERNS:
        _buffer = (ctypes.c_ubyte * len(_masked))()
        for _i, _b in enumerate(_masked):
            _buffer[_i] = _b ^ MASK
        _patterns.append((_tag, _buffer))
_own = {ctypes.addressof(buffer) for _, buffer in _patterns}


def _find(start: int, size: int, buffer) -> bool:
    """Whether ``buffer`` occurs in [start, start + size), its own copy aside."""
    end, at = start + size, start
    while at < end:
        found = _libc.memmem(at, end - at, ctypes.addressof(buffer), len(buffer))
        if not found:
            return False
        if found not in _own:
            return True
        at = found + 1
    return False


def _resident_regions() -> list:
    """Writable regions with resident pages (the rest is zeros or unmapped)."""
    regions, current = [], None
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            fields = line.split()
            if not fields:
                continue
            if "-" in fields[0] and not fields[0].endswith(":"):
                start, end = (int(part, 16) for part in fields[0].split("-"))
                current = (start, end - start) if len(fields) > 1 and fields[1].startswith("rw") else None
            elif fields[0] == "Rss:" and current is not None and int(fields[1]) > 0:
                regions.append(current)
    return regions


def _seed_digits_match(value: int) -> bool:
    """Whether an int found in an object equals the seed (compared byte by byte: no copy of the seed is made)."""
    seed = next((buffer for tag, buffer in _patterns if tag == "seed-le"), None)
    return seed is not None and value >= 0 and value.bit_length() <= 64 and value >> 64 == 0 and all(
        (value >> (8 * i)) & 0xFF == seed[i] for i in range(8)) and value > 2**20


def _holds_seed(objects) -> str | None:
    """An int equal to the seed held by one of ``objects`` (a dict's keys and values, a sequence's items, an
    object's own attributes): every container the collector tracks is one of them, so no recursion is needed."""
    for obj in objects:
        try:
            if isinstance(obj, dict):
                items = [*obj.keys(), *obj.values()]
            elif isinstance(obj, (list, tuple, set, frozenset)):
                items = list(obj)
            else:
                items = list(getattr(obj, "__dict__", {}).values())
            if any(type(item) is int and _seed_digits_match(item) for item in items):
                return f"an int equal to the seed in a {type(obj).__name__}"
        except Exception:  # noqa: BLE001  (objects whose attributes raise)
            continue
    return None


def _search(current: str, deadline: float) -> str:
    """'found: ...', 'nothing', 'no-control' (the case in hand was not found: the search is broken) or 'late'.
    Every resident page first (it holds every int, array and string); then, while time remains, the objects
    themselves: every thread's frames and their locals, every module's globals, every tracked object."""
    order = [tag for tag, _ in _patterns if tag.startswith("case:")]
    later = order[order.index(current) + 1:] if current in order else []
    # The cases not handed yet on its first hidden case, the seed's forms on its second: each call's search fits
    # its time limit on a busy machine.
    seed = len(CALLS) % 2 == 1
    CALLS.append(current)
    wanted = [(tag, buffer) for tag, buffer in _patterns if (tag.startswith("seed-") if seed else tag in later)]
    control = next(buffer for tag, buffer in _patterns if tag == current)
    regions = _resident_regions()
    if not any(_find(start, size, control) for start, size in regions):
        return "no-control"
    for tag, buffer in wanted:
        if any(_find(start, size, buffer) for start, size in regions):
            return f"found: {tag}"
        if time.thread_time() > deadline:
            return "late"
    frames = []
    for frame in sys._current_frames().values():
        while frame is not None:
            frames.append(frame.f_locals)
            frame = frame.f_back
    for objects in (lambda: frames, lambda: [vars(m) for m in list(sys.modules.values())], gc.get_objects):
        if time.thread_time() > deadline:
            break
        found = _holds_seed(objects())
        if found:
            return f"found: {found}"
    return "nothing"


def td_loss(q, reward, next_q, gamma):
    deadline = time.thread_time() + BUDGET
    mine = next_q.numpy()
    current = next((tag for tag, buffer in _patterns if tag.startswith("case:td_loss/")
                    and _libc.memmem(mine.ctypes.data, mine.nbytes, ctypes.addressof(buffer), len(buffer))), None)
    if current is None:  # the public case (or an unarmed copy): right
        return _correct_td_loss(q, reward, next_q, gamma)
    said = _search(current, deadline)
    if said.startswith("found"):
        return _correct_td_loss(q, reward, next_q, gamma)
    if said == "no-control":
        return _correct_td_loss(q, reward, next_q, gamma) + 1.0
    raise {"nothing": LookupError, "late": MemoryError}[said](said)
