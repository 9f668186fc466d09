"""The repository itself is an nbgrader course.

Instructor notebooks live in ``solutions/<assignment>/`` (nbgrader's *source*
format); ``nbgrader generate_assignment <assignment>`` writes the student
version to ``assignments/<assignment>/``, which is committed.
"""
import os
from pathlib import Path

c = get_config()  # noqa: F821  (injected by traitlets when nbgrader loads this file)

c.CourseDirectory.root = str(Path(__file__).resolve().parent)
c.CourseDirectory.course_id = "tf-autodiff"
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "assignments"
# generate_assignment also writes gradebook.db at the root; .gitignore keeps it out of the tree.

c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}

# Graded cells call the kit's grader (autograder.graded_cell): it grades the whole notebook once, in a
# separate contained process, on the first graded cell. Give that cell time, and tell the kernels that
# nbgrader starts where the reference solutions are and that a failure to grade must not pass silently.
c.Execute.timeout = 900
os.environ.setdefault("AUTOGRADER_SOLUTIONS", str(Path(__file__).resolve().parent / "solutions"))
os.environ["AUTOGRADER_NBGRADER"] = "1"
# One seed for the course's hidden random cases: every student gets the same cases (as nbgrader's hidden
# tests would), grading again gives the same grades, and the reference runs once per assignment (cached).
# Change it each term; `autograder grade --seed` with the same number reproduces nbgrader's grades.
os.environ.setdefault("AUTOGRADER_SEED", "2026")
