"""The assignments, each described in its own module, in the contract's order."""
from __future__ import annotations

import importlib
from functools import cache

from autograder.spec import Assignment

ASSIGNMENT_IDS = ("custom_gradients", "higher_order", "jacobians")


class UnknownAssignment(KeyError):
    def __str__(self) -> str:
        return f"unknown assignment {self.args[0]!r}; known: {', '.join(ASSIGNMENT_IDS)}"


@cache
def assignment_by_id(assignment_id: str) -> Assignment:
    if assignment_id not in ASSIGNMENT_IDS:
        raise UnknownAssignment(assignment_id)
    return importlib.import_module(f"autograder.exercises.{assignment_id}").ASSIGNMENT


def all_assignments() -> list[Assignment]:
    return [assignment_by_id(assignment_id) for assignment_id in ASSIGNMENT_IDS]
