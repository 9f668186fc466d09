"""Crashes of the static reading: recorded in the report, never silent, and never failing a grade unless
strict mode asks for it.

Student code can be arbitrarily odd (deep nesting hits RecursionError, new syntax meets old assumptions).
Missing evidence is the safe side for grading, since static findings never stand alone: a check that
crashes gives its fallback (no evidence) and the crash is listed in ``FunctionReport.crashes``. In strict
mode (``analyze(..., strict=True)``, the default when AUTOGRADER_STRICT_STATIC is set to a non-empty
value, as the test suite does) the first crash raises ``StaticCheckCrash`` instead, so a test that expects
no finding cannot pass on a crash.
"""
from __future__ import annotations

from typing import Callable, TypeVar

from autograder.config import variable

STRICT_VARIABLE = "AUTOGRADER_STRICT_STATIC"
T = TypeVar("T")


class StaticCheckCrash(RuntimeError):
    """A check of the static reading failed in strict mode; the exception it raised is the cause."""


def strict_by_default() -> bool:
    return bool(variable(STRICT_VARIABLE))


class Guard:
    """Runs the checks of one reading, keeping the crashes (as "which check: ExceptionType: message")."""

    def __init__(self, strict: bool):
        self.strict = strict
        self.crashes: list[str] = []

    def run(self, check: str, compute: Callable[[], T], fallback: T) -> T:
        try:
            return compute()
        except Exception as error:  # noqa: BLE001 - see the module docstring
            crash = f"{check}: {type(error).__name__}: {error}"
            if self.strict:
                raise StaticCheckCrash(crash) from error
            self.crashes.append(crash)
            return fallback
