"""The checks every decoder of the codec is built from: ``WireError``, totality, and scalars checked by exact type.

Whatever a child sent is JSON data of unknown shape: each field is taken only through one of these, which
either return the checked value (text cut and made writable, an integer or number within bounds) or raise
``WireError``; ``total`` turns any other exception a decoder meets into a ``WireError``.
"""
from __future__ import annotations

import functools
import math
import re
from typing import Any, Callable, TypeVar

MAX_TEXT = 4_000  # characters kept of an exception message or a type name
MAX_ITEMS = 64  # outputs of one outcome, names in `defined`, parameters of one function, measures
MAX_INT = 2**53  # integers (task and cell numbers, line numbers): anything beyond is not the grader's
_SURROGATE = re.compile("[\ud800-\udfff]")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")

T = TypeVar("T")


class WireError(ValueError):
    """Data that is not what the protocol allows."""


def total(decode: Callable[..., T]) -> Callable[..., T]:
    """Make a decoder total: any exception while decoding untrusted data is a WireError, never another one."""
    @functools.wraps(decode)
    def checked(*args, **kwargs):
        try:
            return decode(*args, **kwargs)
        except WireError:
            raise
        except Exception as error:  # noqa: BLE001  (RecursionError, MemoryError, OverflowError, ValueError...)
            raise WireError(f"malformed data ({type(error).__name__})") from None
    return checked


def without_surrogates(value: str) -> str:
    """A lone surrogate is not text (no writer can encode it): each becomes U+FFFD."""
    return _SURROGATE.sub("\ufffd", value)


def text(value: Any, what: str) -> str:
    """A string, cut to MAX_TEXT characters, with any lone surrogate replaced by U+FFFD."""
    if type(value) is not str:
        raise WireError(f"{what} must be a string")
    return without_surrogates(value[:MAX_TEXT])


def one_line(value: Any, what: str) -> str:
    """A name that is one line by nature (an exception's type or module, a file, a function, a line of
    code): ``text``, with every control character written as its escape (a type named "Evil\\nFAKE" must
    not start a line of its own in any report)."""
    return _CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}" if ord(match.group()) < 0x100
                        else f"\\u{ord(match.group()):04x}", text(value, what))


def number(value: Any, what: str) -> float:
    if type(value) is int and abs(value) <= MAX_INT:
        return float(value)
    if type(value) is not float or not math.isfinite(value):
        raise WireError(f"{what} must be a finite number")
    return value


def as_int(value: Any) -> int:
    if type(value) is not int or abs(value) > MAX_INT:
        raise WireError("expected an integer")
    return value


def as_dict(value: Any) -> dict:
    if type(value) is not dict:
        raise WireError("expected an object")
    return value


def as_list(value: Any) -> list:
    if type(value) is not list:
        raise WireError("expected a list")
    return value
