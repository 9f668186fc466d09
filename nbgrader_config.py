"""The repository itself is an nbgrader course.

Instructor notebooks live in ``solutions/<assignment>/`` (nbgrader's *source*
format); ``nbgrader generate_assignment <assignment>`` writes the student
version to ``assignments/<assignment>/``, which is committed.
"""
from pathlib import Path

c = get_config()  # noqa: F821  (injected by traitlets when nbgrader loads this file)

c.CourseDirectory.root = str(Path(__file__).resolve().parent)
c.CourseDirectory.course_id = "tf-autodiff"
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "assignments"
# generate_assignment also writes gradebook.db at the root; .gitignore keeps it out of the tree.

c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
