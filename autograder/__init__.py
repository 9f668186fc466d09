"""Grades TensorFlow automatic-differentiation assignments against reference solutions.

The pipeline (docs/how-it-works.md): load a submission, run it apart in a child process,
compare its plain-data outputs with the reference's, name the mistake, report.
"""

__version__ = "0.1.0"
__all__ = ["__version__"]
