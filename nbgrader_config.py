"""The repository itself is an nbgrader course (and `autograder course init DIR` copies this file into a new one).

Instructor notebooks live in ``solutions/<assignment>/`` (nbgrader's *source*
format); ``nbgrader generate_assignment <assignment>`` writes the student
version to ``assignments/<assignment>/``, which is committed. Students' work is in
``submitted/<student>/<assignment>/``: in the kit's checkout, the bundled example class
(copied from ``examples/submitted/`` by the first nbgrader command; git ignores the copy).
"""
import os
from pathlib import Path

c = get_config()  # noqa: F821  (injected by traitlets when nbgrader loads this file)

c.CourseDirectory.root = str(Path(__file__).resolve().parent)
c.CourseDirectory.course_id = "tf-autodiff"
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "assignments"
# generate_assignment also writes gradebook.db at the root; .gitignore keeps it out of the tree.
# The exchange (release_assignment, fetch, submit, collect, list) is the course's own folder, which the course can
# write. On a JupyterHub where students fetch and submit from their own accounts, point every account (this file
# and the students' ~/.jupyter/nbgrader_config.py) at the shared exchange instead, e.g.
#   c.Exchange.root = "/srv/nbgrader/exchange"   (made once by the admin: mkdir -p ...; chmod ugo+rw ...)
c.Exchange.root = str(Path(__file__).resolve().parent / "exchange")

c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}

# How `nbgrader autograde` runs a notebook. This course's default, the kit's contained executor: no kernel;
# the kit grades each submitted notebook as `autograder grade` does (contained child, one fork server for the
# whole run, the course's seed and solutions) and writes every cell's outputs and every graded cell's feedback
# and score itself, so nothing a student's cell does can change a graded cell (autograder/frontends/
# nbgrader_executor.py). The kernel path, with this one line instead: EXECUTOR = Execute
# (nbgrader's own: a Jupyter kernel per notebook, about 5x slower, and the graded cells run in the student's
# kernel, after the student's cells, with no containment).
from nbgrader.converters import Autograde  # noqa: E402
from nbgrader.preprocessors import Execute  # noqa: E402

EXECUTOR = "autograder.frontends.nbgrader_executor.ContainedExecute"


def import_name(step) -> str:
    """A step as nbgrader reads it: formgrader's "Current configuration" panel shows classes as `<class ...>`."""
    return step if isinstance(step, str) else f"{step.__module__}.{step.__qualname__}"


c.Autograde.autograde_preprocessors = [EXECUTOR if step is Execute else import_name(step)
                                       for step in Autograde.class_traits()["autograde_preprocessors"].default()]

# Feedback pages (generate_feedback) readable on a phone and offline: a viewport, formulas as MathML, no MathJax
# from a CDN (autograder/frontends/nbgrader_feedback.py). release_feedback releases every page a student can
# fetch and names those of notebooks placed in submitted/ by hand, which nbgrader's own release stops at
# (autograder/frontends/nbgrader_release.py).
c.GenerateFeedback.exporter_class = "autograder.frontends.nbgrader_feedback.FeedbackExporter"
c.ExchangeFactory.release_feedback = "autograder.frontends.nbgrader_release.ReleaseFeedback"
# One student's notebook never stops `nbgrader autograde` for the class: a graded cell copied below itself, or
# nbgrader metadata a student broke or forged, makes that cell the student's own (nbgrader's DeduplicateIds would
# leave metadata that aborts the whole command), every graded cell that went missing is added back, and a
# notebook nobody can read is graded as one without the student's cells: 0 points, saying why
# (autograder/frontends/nbgrader_repair.py). Student Markdown in the feedback pages is cleaned of scripts,
# handlers, frames, images and javascript: links (autograder/frontends/nbgrader_markdown.py).
from nbgrader.converters import GenerateFeedback  # noqa: E402
from nbgrader.preprocessors import DeduplicateIds  # noqa: E402

c.Autograde.sanitize_preprocessors = [
    "autograder.frontends.nbgrader_repair.RepairGradedCells" if step is DeduplicateIds else import_name(step)
    for step in Autograde.class_traits()["sanitize_preprocessors"].default()]
c.Autograde.exporter_class = "autograder.frontends.nbgrader_repair.ReadableNotebooks"
c.GenerateFeedback.preprocessors = [*map(import_name, GenerateFeedback.class_traits()["preprocessors"].default()),
                                    "autograder.frontends.nbgrader_markdown.SanitizeStudentMarkdown"]

# On the kernel path, graded cells call the kit's grader (autograder.graded_cell): it grades the whole notebook
# once, in a separate contained process, on the first graded cell. Give that cell time, and tell the kernels
# that nbgrader starts where the reference solutions are and that a failure to grade must not pass silently.
c.Execute.timeout = 900
os.environ.setdefault("AUTOGRADER_SOLUTIONS", str(Path(__file__).resolve().parent / "solutions"))
os.environ["AUTOGRADER_NBGRADER"] = "1"
# One seed for the course's hidden random cases: every student gets the same cases (as nbgrader's hidden
# tests would), grading again gives the same grades, and the reference runs once per assignment (cached).
# It is the course's secret: the case generators ship in the students' wheel, so whoever knows the seed can
# recompute every hidden input. It comes from AUTOGRADER_SEED when set, else from .autograder-seed beside this
# file, made once with 63 random bits (git ignores it: keep a copy, the same seed regrades the same cases;
# delete it each term for new cases). `autograder grade --seed $(cat .autograder-seed)` reproduces nbgrader's
# grades.
if "AUTOGRADER_SEED" not in os.environ:
    seed_file = Path(__file__).resolve().parent / ".autograder-seed"
    if not seed_file.exists():
        import secrets

        with os.fdopen(os.open(seed_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as handle:
            handle.write(f"{secrets.randbits(63)}\n")
    os.environ["AUTOGRADER_SEED"] = seed_file.read_text().strip()

# Last, with everything above set: the gradebook knows every assignment of solutions/ and every student of
# submitted/ before the first command (formgrader's first Autograde click included), submitted/ holds the example
# class in the kit's checkout, and the exchange folder exists (autograder/frontends/nbgrader_course.py).
from autograder.frontends.nbgrader_course import prepare_course  # noqa: E402

prepare_course(c)
