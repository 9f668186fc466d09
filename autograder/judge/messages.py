"""An error's message as feedback shows it (public cases only): the sentence that says what went wrong.

TensorFlow's messages often carry a value: "Passed in object <Variable path=dense/kernel, shape=(3, 2), ...,
value=[[ 1.02 -0.25]\n [ 0.22 -0.59]\n ...]> of type 'Variable', not tf.Tensor or tf.Variable". Its first line
then ends inside the numbers, before the sentence that explains it. Here values are left out of the reprs
(a Variable's ``value=``/``numpy=``, a tensor's data, an array's numbers, any long run of numbers in brackets),
the lines a repr spans are joined, TensorFlow's op prefix ("{{function_node ...}}") is dropped, and what is still
long is trimmed from its middle, so that both its start and its end (where TensorFlow says what it expected) show.
"""
from __future__ import annotations

import re

from autograder.model.outcomes import ErrorInfo

LIMIT = 300  # characters of a message shown

_FUNCTION_NODE = re.compile(r"\{\{function_node [^}]*\}\}\s*")
_VARIABLE_VALUE = re.compile(r",\s*(?:numpy|value)=.*?>", re.DOTALL)  # <tf.Variable 'w:0' ..., numpy=array(...)>
_TENSOR_DATA = re.compile(r"tf\.Tensor\(\s*.*?,\s*shape=", re.DOTALL)  # tf.Tensor(\n[[1. 2.] ...], shape=(2, 2), ...)
_ARRAY = re.compile(r"array\(\s*\[.*?\]\s*(,\s*dtype=[\w.]+\s*)?\)", re.DOTALL)
_NUMBERS = re.compile(r"\[[\s\d.,eE+\-\[\]naif]{40,}\]")  # [[ 1.0191553  -0.2524178 ]\n [ 0.22 ...]]
_OPENERS, _CLOSERS = "([{<", ")]}>"


def without_values(message: str) -> str:
    """The message with the values in its reprs left out."""
    message = _FUNCTION_NODE.sub("", message)
    message = _VARIABLE_VALUE.sub(", …>", message)
    message = _TENSOR_DATA.sub("tf.Tensor(…, shape=", message)
    message = _ARRAY.sub("array(…)", message)
    return _NUMBERS.sub("[…]", message)


def first_statement(message: str) -> str:
    """The first line, joined with the next ones while a bracket it opened is still open (a repr that spans
    lines), spaces collapsed."""
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()]
    if not lines:
        return ""
    taken, depth = [], 0
    for line in lines:
        taken.append(line)
        depth += sum(line.count(c) for c in _OPENERS if c != "<") - sum(line.count(c) for c in _CLOSERS if c != ">")
        if depth <= 0:
            break
    return " ".join(" ".join(taken).split())


def trimmed(text: str, limit: int = LIMIT) -> str:
    """``text`` at most ``limit`` characters long, cut in its middle ("start … end")."""
    if len(text) <= limit:
        return text
    head = (limit * 2) // 3
    tail = limit - head - 3
    return f"{text[:head].rstrip()} … {text[-tail:].lstrip()}"


def headline(error: ErrorInfo) -> str:
    """What went wrong, as one line: the sentence of the message that explains it, trimmed from the middle.

    An error raised while TensorFlow traces a ``tf.function`` starts with "in user code:" and the traced
    frames; what went wrong is its last line (``ValueError: ...``). Writing past the output limit (the
    child's file-size limit) surfaces as "File too large": it is said as the limit it is.
    """
    message = error.message.strip()
    if not message:
        return ""
    if error.type == "OSError" and "File too large" in message:
        return "the output limit was reached (64 MiB of printed output and written files): print less"
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    if lines[0].startswith("in user code:") and len(lines) > 1:
        last = lines[-1]
        kind, _, said = last.partition(": ")
        message = said if kind.endswith(("Error", "Exception")) and said else last
    return trimmed(first_statement(without_values(message)))
