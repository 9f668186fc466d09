"""The course: its assignments in the contract's order, each exercise described in a module of its own.

Each assignment is a package (``custom_gradients``, ``higher_order``, ``jacobians``, ``implicit``) with one
module per exercise: its cases (built from a seed with NumPy), its probe (run in the child, with TensorFlow) and the
descriptions of its mistake models. The mistake models' code, and the correct helpers some of them need,
live apart in the assignment's ``mistakes`` module (or package, models looked up in its namespace): trusted
code that only reference children import, never a student's (``autograder.run.child_modules`` lists what a
student's child holds).

May import: ``autograder.model``.
"""
from __future__ import annotations

import importlib
from functools import cache

from autograder.model.course import Assignment, Exercise

ASSIGNMENT_IDS = ("custom_gradients", "higher_order", "jacobians", "implicit")


class UnknownAssignment(KeyError):
    def __str__(self) -> str:
        return f"unknown assignment {self.args[0]!r}; known: {', '.join(ASSIGNMENT_IDS)}"


@cache
def assignment_by_id(assignment_id: str) -> Assignment:
    if assignment_id not in ASSIGNMENT_IDS:
        raise UnknownAssignment(assignment_id)
    return importlib.import_module(f"autograder.course.{assignment_id}").ASSIGNMENT


def all_assignments() -> list[Assignment]:
    return [assignment_by_id(assignment_id) for assignment_id in ASSIGNMENT_IDS]


def find_exercise(exercise_id: str) -> tuple[Assignment, Exercise]:
    """The assignment and description of an exercise, by its id (ids are unique across the course)."""
    for assignment in all_assignments():
        for exercise in assignment.exercises:
            if exercise.id == exercise_id:
                return assignment, exercise
    raise KeyError(f"no exercise {exercise_id!r} in the course")


def mistake_implementation(assignment_id: str, exercise: Exercise, index: int):
    """The code of mistake model ``index`` of ``exercise``: trusted, for reference children only."""
    module = importlib.import_module(f"autograder.course.{assignment_id}.mistakes")
    return getattr(module, exercise.mistakes[index].implementation)
