"""Round four (issue 32, class 4), in a real nbgrader course on the contained executor: nbgrader grades what it keeps.

One `nbgrader autograde` over a class that holds, beside honest notebooks: every answer written into the locked
setup cell with the solution cells left as released (nbgrader restores the setup cell: formgrader shows no
answer, so none may earn a point); a graded cell and a solution cell copied below themselves (nbgrader's
DeduplicateIds once aborted the whole command there, SchemaTooOldError); nbgrader metadata forged or broken;
a file that is not a notebook at all; Markdown cells that carry a script, a handler, a remote image and frame and
a javascript: link into the feedback page. Each honest control ("zz_honest", graded after all of them) gets
exactly what the CLI gives it alone.
"""
from __future__ import annotations

import copy
import json
import re
import shutil
from pathlib import Path

import pytest

from autograder.course import assignment_by_id
from helpers import ROOT, Elements, grade_json, nbgrader_course, open_gradebook, run_nbgrader

pytestmark = pytest.mark.slow
SEED = 6_120_448_913_775_102_337
ASSIGNMENT = "custom_gradients"
EXAMPLES = ROOT / "examples" / "submitted"
SOLUTION_IDS = [e.id for e in assignment_by_id(ASSIGNMENT).exercises]
PAYLOAD = ("<script>alert(1)</script> <img src=x onerror=alert(2)> ![beacon](http://evil.example/b.png)\n\n"
           "[click](javascript:alert(3)) <iframe src=\"http://evil.example/f\"></iframe> "
           "<a href=\"http://ok.example\" onclick=\"alert(4)\">a link</a> **my answer**")


def _notebook(student: str) -> dict:
    return json.loads((EXAMPLES / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text(encoding="utf-8"))


def _released() -> dict:
    return json.loads((ROOT / "assignments" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text(encoding="utf-8"))


def _by_id(nb: dict, grade_id: str) -> int:
    return next(i for i, c in enumerate(nb["cells"]) if isinstance(c["metadata"].get("nbgrader"), dict)
                and c["metadata"]["nbgrader"].get("grade_id") == grade_id)


def locked_answers() -> dict:
    """ada's answers (full marks) moved into the locked setup cell; the solution cells left empty."""
    nb = _notebook("ada")
    answers = []
    for grade_id in SOLUTION_IDS:
        cell = nb["cells"][_by_id(nb, grade_id)]
        answers.append("".join(cell["source"]))
        cell["source"] = ""
    setup = nb["cells"][_by_id(nb, "setup")]
    setup["source"] = "".join(setup["source"]) + "\n\n" + "\n\n".join(answers) + "\n"
    return nb


def duplicated_cells() -> dict:
    """ada's notebook with a graded cell and a solution cell each copied right below itself (Jupyter's paste)."""
    nb = _notebook("ada")
    for grade_id in ("test_log1pexp", "td_loss"):
        at = _by_id(nb, grade_id)
        pasted = copy.deepcopy(nb["cells"][at])
        pasted["id"] = f"pasted-{grade_id}"
        nb["cells"].insert(at + 1, pasted)
    return nb


def forged_metadata() -> dict:
    """bram's notebook with a cell claiming 50 points under a grade id no cell has, a cell whose nbgrader
    metadata is a list, one of a schema from the future, and a graded cell whose points are a string."""
    nb = _notebook("bram")
    forged = {"grade": True, "grade_id": "test_made_up", "points": 50, "locked": True, "solution": False,
              "schema_version": 3}
    nb["cells"][1:1] = [
        {"cell_type": "code", "id": "forged-1", "metadata": {"nbgrader": forged}, "execution_count": None,
         "outputs": [], "source": "print('50 points, please')"},
        {"cell_type": "code", "id": "forged-2", "metadata": {"nbgrader": []}, "execution_count": None, "outputs": [],
         "source": "x = 1"},
        {"cell_type": "markdown", "id": "forged-3", "metadata": {"nbgrader": {**forged, "schema_version": 99}},
         "source": "from the future"}]
    nb["cells"][_by_id(nb, "test_td_loss")]["metadata"]["nbgrader"]["points"] = "2"
    return nb


def markdown_xss() -> dict:
    nb = _notebook("bram")
    at = _by_id(nb, "log1pexp")
    nb["cells"].insert(at + 1, {"cell_type": "markdown", "id": "student-note", "metadata": {}, "source": PAYLOAD})
    return nb


NOTEBOOKS = {"locked_answers": locked_answers, "duplicated_cells": duplicated_cells,
             "forged_metadata": forged_metadata, "markdown_xss": markdown_xss}


@pytest.fixture(scope="module")
def course(tmp_path_factory, generated_course) -> Path:
    course = nbgrader_course(tmp_path_factory.mktemp("round-four-course"), generated_course)
    for student, source in (("ada", "ada"), ("bram", "bram"), ("zz_honest", "ada")):
        shutil.copytree(EXAMPLES / source / ASSIGNMENT, course / "submitted" / student / ASSIGNMENT)
    for student, make in NOTEBOOKS.items():
        target = course / "submitted" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        target.parent.mkdir(parents=True)
        target.write_text(json.dumps(make(), indent=1), encoding="utf-8")
    broken = course / "submitted" / "broken_json" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    broken.parent.mkdir(parents=True)
    broken.write_text('{"cells": [ {"cell_type": "code", "source": "def log1pexp(x): ...', encoding="utf-8")
    done = run_nbgrader(course, "autograde", ASSIGNMENT, "--force", seed=SEED)  # asserts it exits 0
    (course / "autograde.log").write_text(done.stdout + done.stderr, encoding="utf-8")
    run_nbgrader(course, "generate_feedback", ASSIGNMENT, "--student", "markdown_xss", "--force", seed=SEED)
    return course


def nbgrader_score(course: Path, student: str) -> tuple[float, float]:
    with open_gradebook(course) as gradebook:
        notebook = gradebook.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, student)
        return notebook.score, notebook.max_score


def cli_score(course: Path, path: Path) -> float:
    (result,) = grade_json(str(path), "--assignment", ASSIGNMENT, "--seed", str(SEED), "--solutions",
                           str(course / "solutions"))
    return result["score"]


def autograded(course: Path, student: str) -> Path:
    return course / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"


KEPT = ("duplicated_cells", "forged_metadata", "locked_answers", "markdown_xss")


@pytest.fixture(scope="module")
def cli_scores(course) -> dict[str, float]:
    """The CLI's score of every file the tests below compare with, by path, from one run (a file's grade does not
    depend on the files graded beside it: test_class_runs.py): bram's notebook, the notebooks nbgrader kept and
    the locked answers as handed in. The honest control is compared with ada's notebook graded alone."""
    paths = [EXAMPLES / "bram" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", *(autograded(course, s) for s in KEPT),
             course / "submitted" / "locked_answers" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"]
    results = grade_json(*map(str, paths), "--assignment", ASSIGNMENT, "--seed", str(SEED), "--solutions",
                         str(course / "solutions"))
    assert sorted(r["submission"] for r in results) == sorted(map(str, paths))
    return {r["submission"]: r["score"] for r in results}


def test_every_student_is_graded_whatever_one_notebook_holds(course, cli_scores):
    """The duplicated cells, the forged metadata and the file that is not a notebook stop no one: every student
    has a score, and the honest control graded after them all gets what the CLI gives it alone."""
    maximum = assignment_by_id(ASSIGNMENT).max_score
    students = ["ada", "bram", "zz_honest", "broken_json", *NOTEBOOKS]
    scores = {student: nbgrader_score(course, student) for student in students}
    assert all(total == maximum for _, total in scores.values()), scores  # forged points changed no maximum
    alone = cli_score(course, EXAMPLES / "ada" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    assert scores["zz_honest"][0] == pytest.approx(alone, abs=1e-3) == scores["ada"][0]
    assert scores["bram"][0] == pytest.approx(cli_scores[str(EXAMPLES / "bram" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")],
                                              abs=1e-3)
    log = (course / "autograde.log").read_text(encoding="utf-8")
    assert "SchemaTooOldError" not in log and "earlier copy of cell 'test_log1pexp'" in log
    assert "names no cell of the assignment" in log and "cannot be read" in log


@pytest.mark.parametrize("student", KEPT)
def test_nbgrader_grades_the_notebook_it_keeps(course, cli_scores, student):
    """What formgrader shows (the autograded notebook) is what earned the points: nbgrader's score is the CLI's
    on that notebook."""
    assert nbgrader_score(course, student)[0] == pytest.approx(cli_scores[str(autograded(course, student))], abs=1e-3)


def test_answers_written_into_a_locked_cell_earn_nothing(course, cli_scores):
    submitted = course / "submitted" / "locked_answers" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    assert cli_scores[str(submitted)] == assignment_by_id(ASSIGNMENT).max_score  # the file holds every answer
    assert nbgrader_score(course, "locked_answers")[0] == 0  # nbgrader kept the released setup cell
    kept = json.loads(autograded(course, "locked_answers").read_text(encoding="utf-8"))
    released = _released()
    source = "".join(kept["cells"][_by_id(kept, "setup")]["source"])
    assert source == "".join(released["cells"][_by_id(released, "setup")]["source"]) and "def log1pexp" not in source


def test_a_file_that_is_not_a_notebook_gets_its_zero_and_says_why(course):
    assert nbgrader_score(course, "broken_json")[0] == 0
    kept = json.loads(autograded(course, "broken_json").read_text(encoding="utf-8"))
    assert "could not be read" in "".join(kept["cells"][0]["source"])
    graded = [c for c in kept["cells"] if isinstance(c["metadata"].get("nbgrader"), dict)
              and c["metadata"]["nbgrader"].get("grade")]
    assert len(graded) == len(SOLUTION_IDS)  # nbgrader added the graded cells back; the kit filled each
    assert all(any("not defined" in json.dumps(o) for o in c["outputs"]) for c in graded)


def test_student_markdown_in_the_feedback_page_is_inert(course):
    page = course / "feedback" / "markdown_xss" / ASSIGNMENT / f"{ASSIGNMENT}.html"
    html = page.read_text(encoding="utf-8")
    elements = Elements(html)
    assert not [f"{tag} {name}" for tag, attrs in elements.elements for name in attrs if name.startswith("on")]
    assert not elements.tags("iframe") and not [a for a in elements.tags("img") if "evil" in (a.get("src") or "")]
    assert not [a for a in elements.tags("a") if (a.get("href") or "").lower().startswith("javascript")]
    assert not re.search(r"<script[^>]*>[^<]*alert\(", html)
    assert "<strong>my answer</strong>" in html and 'href="http://ok.example"' in html  # the answer still reads
