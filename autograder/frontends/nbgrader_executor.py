"""nbgrader's ``Execute`` preprocessor replaced by the kit's contained run: no kernel, the CLI's grades.

The course's ``nbgrader_config.py`` puts ``ContainedExecute`` first in ``Autograde.autograde_preprocessors``
where nbgrader has ``Execute``; the rest of nbgrader's pipeline (``LimitOutput``, ``SaveAutoGrades``, late
penalties) runs unchanged on the notebook it returns. For each notebook nbgrader autogrades, the notebook
nbgrader hands over (the submitted one after nbgrader's sanitizing: locked and read-only cells restored,
``nbgrader_kept``) is graded by the kit's pipeline in a contained child forked from the process's one fork
server, with the course's seed (``AUTOGRADER_SEED``, which ``nbgrader_config.py`` keeps in
``.autograder-seed``) and solutions; then ``nbgrader_outputs.fill_notebook`` writes each cell's outputs and
each graded cell's feedback and score. What formgrader shows is what earned the points.

Why not a kernel: a kernel per notebook costs seconds (its own ``import tensorflow``, then the graded cells'
grader process), and the graded cells would run in the student's own process, after the student's cells,
which can change what they record. Here no cell of the notebook runs in nbgrader's process, and no graded
cell runs at all: its outputs are the grader's.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from nbconvert.exporters.exporter import ResourcesDict
from nbformat import NotebookNode
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Integer

from autograder.config import Settings, variable
from autograder.frontends.nbgrader_batch import grader
from autograder.frontends.nbgrader_cell import GradingUnavailable, find_solutions
from autograder.frontends.nbgrader_kept import kept_copy, sanitized_copy
from autograder.frontends.nbgrader_outputs import NotebookGrade, fill_notebook


class ContainedExecute(NbGraderPreprocessor):
    """Grade the notebook with the kit, contained, and write the outputs a kernel would have left."""

    jobs = Integer(0, help="Notebooks graded at once (0: the number of cores).").tag(config=True)

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict) -> tuple[NotebookNode, ResourcesDict]:
        info = resources["nbgrader"]
        converter = getattr(self.parent, "parent", None)  # the exporter's parent: nbgrader's Autograde converter
        coursedir = getattr(converter, "coursedir", None) or CourseDirectory(parent=self)
        notebook = kept_copy(nb, info["student"], info["assignment"], info["notebook"])  # what nbgrader keeps
        try:
            settings = self.settings(coursedir, info["assignment"])
        except GradingUnavailable as reason:
            fill_notebook(nb, NotebookGrade(notebook, problem=str(reason)))
            return nb, resources
        batch = _batch(converter, coursedir, info["assignment"], info["notebook"])
        self.log.info("Grading %s/%s (as nbgrader keeps it) in the kit's contained executor", info["student"],
                      info["notebook"])
        grade = grader().grade(notebook, batch, settings, Path(coursedir.root))
        if grade.problem:
            self.log.error("%s: %s", notebook, grade.problem)
        fill_notebook(nb, grade)
        return nb, resources

    def settings(self, coursedir: CourseDirectory, assignment: str) -> Settings:
        """The CLI's settings for this course: its seed, its solutions, every core, the default limits."""
        seed = variable("AUTOGRADER_SEED")
        if not (seed or "").strip().isdigit():
            raise GradingUnavailable("AUTOGRADER_SEED is not set to a number: the course's nbgrader_config.py sets "
                                     "it from .autograder-seed")
        solutions = find_solutions(Path(coursedir.root), assignment)
        return Settings(seed=int(seed), jobs=self.jobs or os.cpu_count() or 1, solutions=solutions)


def _submitted(coursedir: CourseDirectory, student: str, assignment: str, notebook: str) -> Path:
    return Path(coursedir.format_path(coursedir.submitted_directory, student, assignment)) / f"{notebook}.ipynb"


def _batch(converter, coursedir: CourseDirectory, assignment: str, notebook: str) -> list[Path]:
    """The notebooks of this assignment that this ``nbgrader autograde`` will grade next, as nbgrader will keep
    them (``nbgrader_kept.sanitized_copy``): those it found (``converter.assignments``) and will not skip (an
    autograded copy exists and no ``--force``)."""
    found = getattr(converter, "assignments", None)
    if not isinstance(found, dict):
        return []
    pattern = re.compile(coursedir.format_path(coursedir.submitted_directory, "(?P<student>[^/]+)",
                                               re.escape(assignment), escape=True) + "$")
    excluded = set(filter(None, (coursedir.student_id_exclude or "").split(",")))
    force = bool(getattr(converter, "force", False))
    batch = []
    for folder in sorted(found):
        match = pattern.match(folder)
        if match is None or match["student"] in excluded:
            continue
        done = Path(coursedir.format_path(coursedir.autograded_directory, match["student"], assignment))
        submitted = _submitted(coursedir, match["student"], assignment, notebook)
        if (force or not (done / f"{notebook}.ipynb").exists()) and submitted.is_file():
            batch.append(sanitized_copy(converter, coursedir.db_url, submitted, match["student"], assignment,
                                        notebook))
    return [path for path in batch if path is not None]
