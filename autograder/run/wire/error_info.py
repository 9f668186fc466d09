"""An exception a student's code raised, as wire data and back: its type, message and the student's own frames.

The child describes the exception (``probe.describe_exception``) and sends it; the parent keeps only what
it can show as text: every name one line (``checked.one_line``), the message cut, at most ``MAX_FRAMES``.
"""
from __future__ import annotations

from typing import Any

from autograder.model.outcomes import ErrorInfo
from autograder.run.wire.checked import MAX_TEXT, WireError, as_int, as_list, one_line, text, total

MAX_FRAMES = 5


def error_to_data(error: ErrorInfo) -> dict:
    return {"type": error.type[:200], "module": error.module[:200], "message": error.message[:MAX_TEXT],
            "contract": error.contract,
            "frames": [{"file": f, "line": n, "function": fn, "code": code[:200]}
                       for f, n, fn, code in error.frames[-MAX_FRAMES:]]}


@total
def decode_error(data: Any) -> ErrorInfo:
    if type(data) is not dict:
        raise WireError("an error must be an object")
    frames = []
    listed = as_list(data.get("frames", []))
    if len(listed) > MAX_FRAMES:
        raise WireError("an error with more frames than the grader keeps")
    for frame in listed:
        if type(frame) is not dict:
            raise WireError("a frame must be an object")
        frames.append((one_line(frame.get("file"), "file"), as_int(frame.get("line")),
                       one_line(frame.get("function"), "function"), one_line(frame.get("code", ""), "code")))
    return ErrorInfo(type=one_line(data.get("type"), "type"), message=text(data.get("message", ""), "message"),
                     module=one_line(data.get("module", ""), "module"), contract=data.get("contract") is True,
                     frames=tuple(frames))
