"""One message as bytes and back: a JSON object with an ``event``, its size and structure bounded before parsing.

The channel frames each message (``run.channel``, ``multiprocessing.connection`` on the child's side); this
turns one frame's bytes into a message dict, or raises ``WireError``. Never evaluates anything.
"""
from __future__ import annotations

import json

from autograder.run.wire.checked import WireError, total

MAX_MESSAGE_BYTES = 64 * 2**20
# JSON containers and separators in one message: what parsing turns into Python objects. A real message holds
# a few hundred (plus the commas of its exception messages); a million keeps a hostile one near 100 MB.
MAX_STRUCTURE = 1_000_000


def dumps(message: dict) -> bytes:
    return json.dumps(message, allow_nan=True).encode("utf-8")


@total
def loads(data: bytes) -> dict:
    """Bytes to a message dict, or WireError. Never evaluates anything."""
    if len(data) > MAX_MESSAGE_BYTES:
        raise WireError("a message larger than the grader accepts")
    if sum(data.count(c) for c in (b"[", b"{", b",", b":")) > MAX_STRUCTURE:
        raise WireError("a message with more items than the grader accepts")
    try:
        message = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise WireError(f"malformed message: {error}") from None
    if type(message) is not dict or type(message.get("event")) is not str:
        raise WireError("a message must be an object with an 'event'")
    return message
