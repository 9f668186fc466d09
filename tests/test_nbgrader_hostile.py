"""Students who try to raise their nbgrader score without doing the work, against the contained executor.

Each trick is one cell a student adds to bram's custom_gradients notebook (honest work: partial credit on
log1pexp). Under the kernel path the graded cells run in the student's kernel, after the student's cells, and
a trick can raise the score (the last test shows the fake-module one doing it; by hand, the variables, the
shadow package, the classmate's folder and the gradebook's manual score did too, reading the solutions did
not); with the kit's contained executor, the course's default, none may: every trick scores in nbgrader no more than bram's own work earns,
and exactly what the CLI gives the same notebook. The notebooks are built here, at test time, because two
tricks need the course's own paths (as a student on a shared JupyterHub would know them).
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from autograder.course import assignment_by_id
from helpers import HOSTILE, ROOT, grade_json, nbgrader_course, open_gradebook, run_nbgrader, secret_forms, with_cell

pytestmark = pytest.mark.slow
SEED = 8305617242907418661  # the course's secret (63 bits, as nbgrader_config.py makes .autograder-seed)
ASSIGNMENT = "custom_gradients"
EXAMPLES = ROOT / "examples" / "submitted"
HONEST = "bram"  # the work every trick starts from
CLASSMATE = "ada"  # full marks: the folder a trick moves into

TRICKS = {
    # (a) a fake grader in sys.modules: the kernel's graded cells would import it and return full marks
    "fake_modules": ("setup", """
import sys, types
def grade_exercise(*args, **kwargs):
    return 2.0
for name in ("autograder", "autograder.graded_cell", "autograder.frontends", "autograder.frontends.nbgrader_cell",
             "autograder.run", "autograder.run.child"):
    module = types.ModuleType(name)
    module.__path__ = []
    module.grade_exercise = grade_exercise
    sys.modules[name] = module
"""),
    # (b) the grader's variables pointing at "solutions" that are the student's own notebook, and a known seed
    "environment": ("setup", """
import os, shutil
fake = os.path.abspath("fake-solutions")
os.makedirs(os.path.join(fake, "custom_gradients"), exist_ok=True)
try:
    shutil.copy("custom_gradients.ipynb", os.path.join(fake, "custom_gradients", "custom_gradients.ipynb"))
except OSError:
    pass
os.environ.update(AUTOGRADER_SOLUTIONS=fake, AUTOGRADER_SEED="1", AUTOGRADER_CACHE="off")
"""),
    # (c) a shadow package named autograder, first on sys.path and PYTHONPATH
    "shadow_package": ("setup", """
import os, sys
shadow = os.path.abspath("shadow-packages")
os.makedirs(os.path.join(shadow, "autograder"), exist_ok=True)
open(os.path.join(shadow, "autograder", "__init__.py"), "w").close()
with open(os.path.join(shadow, "autograder", "graded_cell.py"), "w") as module:
    module.write("def grade_exercise(*args, **kwargs):\\n    return 2.0\\n")
sys.path.insert(0, shadow)
os.environ["PYTHONPATH"] = shadow + os.pathsep + os.environ.get("PYTHONPATH", "")
for name in [n for n in sys.modules if n == "autograder" or n.startswith("autograder.")]:
    del sys.modules[name]
"""),
    # (d) into a classmate's folder: the kernel's graded cells grade the notebook in the working directory
    "chdir_classmate": ("setup", """
import os
for folder in (os.path.join("..", "..", "ada", "custom_gradients"), "COURSE/submitted/ada/custom_gradients"):
    try:
        os.chdir(folder)
        break
    except OSError:
        pass
"""),
    # (e) the course's reference solutions, read and run after the student's own functions
    "read_solutions": ("checkpointed", """
import json
try:
    with open("COURSE/solutions/custom_gradients/custom_gradients.ipynb", encoding="utf-8") as handle:
        for cell in json.load(handle)["cells"]:
            if cell["cell_type"] == "code" and cell["metadata"].get("nbgrader", {}).get("solution"):
                exec("".join(cell["source"]))
except OSError as error:
    print("no solutions:", error)
"""),
    # (e) the gradebook itself: a manual score outranks the autograder's
    "write_gradebook": ("setup", """
import sqlite3
try:
    database = sqlite3.connect("file:COURSE/gradebook.db?mode=rw", uri=True)
    database.execute("UPDATE grade SET manual_score = 2.0")
    database.commit()
except sqlite3.Error as error:
    print("no gradebook:", error)
"""),
}


# Round three (issue 22): a cell that prints everything its frames hold while the cells run (the grader's job,
# its own locals: what the feedback notebook then shows), and functions that carry every hidden input they are
# called on out through every channel (tests/submissions/hostile/leak_all_hidden_channels.py): stdout and stderr
# of a task included, which nbgrader's autograded notebook must never capture.
LEAKER = "leaker"
PRINT_FRAMES = """
import sys


def _shown(value):
    try:
        return repr(value)[:2000]
    except Exception:
        return "?"


frame = sys._getframe()
while frame is not None:
    print({name: _shown(value) for name, value in frame.f_locals.items() if name != "__builtins__"})
    frame = frame.f_back
"""


def leaker_notebook(course: Path) -> Path:
    source = EXAMPLES / HONEST / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    target = course / "submitted" / LEAKER / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    code = PRINT_FRAMES + (HOSTILE / "leak_all_hidden_channels.py").read_text(encoding="utf-8")
    return with_cell(source, target, code, after="checkpointed")


def trick_notebook(course: Path, student: str, trick: str) -> Path:
    after, code = TRICKS[trick]
    source = EXAMPLES / HONEST / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    target = course / "submitted" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    return with_cell(source, target, code.replace("COURSE", str(course)).strip() + "\n", after=after)


@pytest.fixture(scope="module")
def course(tmp_path_factory, generated_course) -> Path:
    course = nbgrader_course(tmp_path_factory.mktemp("hostile-course"), generated_course)
    for student in (HONEST, CLASSMATE):
        shutil.copytree(EXAMPLES / student / ASSIGNMENT, course / "submitted" / student / ASSIGNMENT)
    for trick in TRICKS:
        trick_notebook(course, trick, trick)
    leaker_notebook(course)
    run_nbgrader(course, "autograde", ASSIGNMENT, "--force", seed=SEED)
    run_nbgrader(course, "generate_feedback", ASSIGNMENT, "--student", LEAKER, "--force", seed=SEED)
    return course


@pytest.fixture(scope="module")
def cli(course) -> dict[str, dict]:
    results = grade_json(str(course / "submitted"), "--seed", str(SEED), "--solutions", str(course / "solutions"))
    return {r["student"]: r for r in results}


def nbgrader_points(course: Path, student: str) -> tuple[float, dict[str, float]]:
    with open_gradebook(course) as gradebook:
        notebook = gradebook.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, student)
        return notebook.score, {g.name[len("test_"):]: g.score for g in notebook.grades}


@pytest.mark.parametrize("trick", sorted(TRICKS))
def test_no_trick_scores_more_in_nbgrader_than_the_honest_work_it_starts_from(course, cli, trick):
    honest = {e["id"]: e["score"] for e in cli[HONEST]["exercises"]}
    assert 0 < cli[HONEST]["score"] < assignment_by_id(ASSIGNMENT).max_score, "the honest work must leave room for a trick to show"
    total, points = nbgrader_points(course, trick)
    for exercise, score in points.items():
        assert score <= honest[exercise] + 1e-4, f"{trick} raised {exercise}: {score} > {honest[exercise]}"
    assert total <= cli[HONEST]["score"] + 1e-3
    assert total == pytest.approx(cli[trick]["score"], abs=1e-3), "nbgrader and the CLI disagree"


def test_the_honest_students_grades_and_the_gradebook_are_untouched(course, cli):
    for student in (HONEST, CLASSMATE):
        assert nbgrader_points(course, student)[0] == pytest.approx(cli[student]["score"], abs=1e-3)
    with open_gradebook(course) as gradebook:
        for student in gradebook.students:
            notebook = gradebook.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, student.id)
            assert all(grade.manual_score is None for grade in notebook.grades), student.id


def test_under_the_kernel_path_the_fake_module_trick_does_raise_the_score(tmp_path, cli, generated_course):
    """What the contained executor closes: the same notebook in kernels gets full marks (so the test above can
    fail: it would, on the kernel path)."""
    course = nbgrader_course(tmp_path, generated_course, executor="Execute")
    trick_notebook(course, "fake_modules", "fake_modules")
    run_nbgrader(course, "autograde", ASSIGNMENT, "--force", seed=SEED)
    total, _ = nbgrader_points(course, "fake_modules")
    assert total == assignment_by_id(ASSIGNMENT).max_score > cli[HONEST]["score"]


def test_no_autograded_or_feedback_notebook_holds_the_secret_or_a_hidden_input(course):
    """The contained executor keeps every cell's outputs as the student's text: no case exists in the child while
    a cell runs, and what a task prints is never captured. So the leaker's autograded notebook and its feedback
    show what its frames held while loading (the grader's job: no seed, no case, no folder) and nothing of a
    hidden case, whatever its functions printed or raised on one."""
    forms = secret_forms(ASSIGNMENT, SEED)
    forms.update({"the solutions folder": str(course / "solutions"), "the cache": str(course / "autograder-cache")})
    autograded = list((course / "autograded" / LEAKER).rglob("*.ipynb"))
    feedback = list((course / "feedback" / LEAKER).rglob("*.html"))
    assert autograded and feedback
    texts = {path: path.read_text(encoding="utf-8") for path in [*autograded, *feedback]}
    assert all("ChildJob(" in text for text in texts.values()), "the frames were printed while the cells ran"
    assert not [(path.name, label) for path, text in texts.items() for label, form in forms.items() if form in text]
