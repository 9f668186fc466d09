"""The notebooks' graded cells call ``autograder.graded_cell.grade_exercise``: a stable import path that every
released notebook holds (the code is ``autograder.frontends.nbgrader_cell``)."""
from autograder.frontends.nbgrader_cell import GradingUnavailable, grade_exercise

__all__ = ["grade_exercise", "GradingUnavailable"]
