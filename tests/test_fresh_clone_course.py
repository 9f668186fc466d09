"""A fresh clone is a working nbgrader course, and `autograder course init` lays out another: as the README says.

The repository is cloned (`git clone`: what is committed, nothing else) into a temporary folder, and everything
runs there with the kit's venv active and the clone's own `autograder` package first on the path:

1. formgrader, before any other nbgrader command: `jupyter server` with nbgrader's server extension on
   127.0.0.1, the HTTP calls its Autograde and Generate Feedback buttons make (formgrader's own JavaScript:
   a POST with the `_xsrf` cookie in an X-CSRFToken header) for bram's custom_gradients. The gradebook must know
   the assignment and the example students before that first click, record the CLI's points, and the feedback
   page must wrap the graded cells' long lines;
2. the README's nbgrader lines, word for word, at the clone's root: `nbgrader autograde`, `generate_feedback`,
   `list`, `collect`, `generate_assignment`; the gradebook equals the CLI's JSON for every student (the README's
   `autograder grade submitted --seed "$(cat .autograder-seed)" --solutions solutions`), and the clone's git
   status stays clean;
3. `autograder course init` in a fresh folder, then nbgrader's exchange round trip in it (release, a student's
   fetch and submit, collect), autograde and generate_feedback: the collected notebook gets the CLI's points.
"""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from autograder.course import assignment_by_id
from helpers import ROOT, Browser, Formgrader, open_gradebook, quiet_env

pytestmark = pytest.mark.slow
ASSIGNMENT = "custom_gradients"  # the fastest assignment of the example class
EXAMPLE_STUDENTS = sorted(p.name for p in (ROOT / "examples" / "submitted").iterdir() if p.is_dir())


def shell(command: str, cwd: Path, env: dict[str, str], ok: bool = True) -> subprocess.CompletedProcess:
    """A README line as a person types it (bash, the venv's tools first on PATH)."""
    done = subprocess.run(["bash", "--noprofile", "--norc", "-c", command], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=1800)
    if ok:
        assert done.returncode == 0, f"`{command}` failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    base = tmp_path_factory.mktemp("fresh-clone")
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(base / "course")], check=True,
                   capture_output=True, timeout=300)
    course = base / "course"
    env = quiet_env(PYTHONPATH=str(course), AUTOGRADER_CACHE=str(base / "cache"),
                    JUPYTER_DATA_DIR=str(base / "jupyter-data"), JUPYTER_RUNTIME_DIR=str(base / "jupyter-runtime"),
                    JUPYTER_CONFIG_DIR=str(base / "jupyter-config"))
    env.pop("AUTOGRADER_SEED", None)  # the course makes its own
    imported = shell("python -c 'import autograder; print(autograder.__file__)'", course, env).stdout.strip()
    assert imported == str(course / "autograder" / "__init__.py"), imported  # the clone's package, not the venv's
    assert not (course / "gradebook.db").exists() and not (course / "submitted").exists()
    return course, env


@pytest.fixture(scope="module")
def first_click(clone) -> dict:
    course, env = clone
    formgrader = Formgrader(course, env, course.parent / "jupyter-server.log", "fresh-clone-test-token")
    try:
        seen = {"page": formgrader.first_page.url,
                "assignments": formgrader.get("/formgrader/api/assignments"),
                "submissions": formgrader.get(f"/formgrader/api/submissions/{ASSIGNMENT}"),
                "students": formgrader.get("/formgrader/api/students")}
        seen["autograde"] = formgrader.click(f"/formgrader/api/submission/{ASSIGNMENT}/bram/autograde")
        seen["feedback"] = formgrader.click(f"/formgrader/api/assignment/{ASSIGNMENT}/bram/generate_feedback")
        seen["bram"] = formgrader.get(f"/formgrader/api/submission/{ASSIGNMENT}/bram")
    finally:
        formgrader.stop()
    return seen


@pytest.fixture(scope="module")
def readme_run(clone, first_click) -> dict:
    """The README's nbgrader lines at the clone's root, after formgrader's click; then the CLI's grades."""
    course, env = clone
    done = {line: shell(line, course, env) for line in (
        f"nbgrader autograde {ASSIGNMENT}", f"nbgrader generate_feedback {ASSIGNMENT}", "nbgrader list",
        f"nbgrader collect {ASSIGNMENT}", f"nbgrader generate_assignment {ASSIGNMENT} --force")}
    cli = shell(f'autograder grade submitted/*/{ASSIGNMENT} --seed "$(cat .autograder-seed)" --solutions solutions '
                "--format json", course, env)
    return {"done": done, "cli": {r["student"]: r for r in json.loads(cli.stdout)}}


def test_formgrader_knows_the_class_before_the_first_autograde_and_its_buttons_grade(clone, first_click, readme_run):
    course, _ = clone
    assert first_click["page"].endswith("/formgrader/manage_assignments")
    assert {a["name"] for a in first_click["assignments"]} >= {"custom_gradients", "higher_order", "jacobians",
                                                               "implicit"}
    submitted = {s["student"] for s in first_click["submissions"]}
    assert submitted == {p.parent.parent.name for p in (ROOT / "examples" / "submitted").glob(f"*/{ASSIGNMENT}/*.ipynb")}
    assert sorted(s["id"] for s in first_click["students"]) == EXAMPLE_STUDENTS  # known before any autograde
    assert first_click["autograde"]["success"] is True, first_click["autograde"].get("error", "")[-3000:]
    assert first_click["feedback"]["success"] is True, first_click["feedback"].get("error", "")[-3000:]
    bram = readme_run["cli"]["bram"]
    assert first_click["bram"]["autograded"] and not first_click["bram"]["needs_manual_grade"]
    assert first_click["bram"]["score"] == pytest.approx(bram["score"], abs=1e-3)
    assert 0 < bram["score"] < assignment_by_id(ASSIGNMENT).max_score
    with open_gradebook(course) as gradebook:
        grades = {g.name: g.score for g in gradebook.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, "bram").grades}
    assert grades == {f"test_{e['id']}": pytest.approx(e["score"], abs=1e-4) for e in bram["exercises"]}


def test_formgraders_feedback_page_wraps_the_graded_cells_long_lines(clone, first_click):
    course, _ = clone
    page = course / "feedback" / "bram" / ASSIGNMENT / f"{ASSIGNMENT}.html"
    assert page.is_file() and "[unstable-gradient]" in page.read_text(encoding="utf-8")
    with Browser() as browser:
        browser.open(page, 1000, 900, mobile=False)
        boxes = browser.evaluate("""[...document.querySelectorAll('.output_html pre')]
            .map(pre => [pre.clientWidth, pre.scrollWidth, pre.textContent.split('\\n').some(l => l.length > 130)])""")
    assert len(boxes) == len(assignment_by_id(ASSIGNMENT).exercises), boxes  # one per graded cell
    assert any(long for _, _, long in boxes), "no graded cell has a line long enough to need wrapping"
    assert all(scroll <= client for client, scroll, _ in boxes), boxes


def test_the_readmes_nbgrader_commands_grade_the_example_class_as_the_cli_does(clone, readme_run):
    course, env = clone
    cli = readme_run["cli"]
    assert sorted(cli) == sorted(p.name for p in (course / "submitted").iterdir()
                                 if (p / ASSIGNMENT).is_dir())
    with open_gradebook(course) as gradebook:
        for student, result in cli.items():
            notebook = gradebook.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, student)
            assert notebook.score == pytest.approx(result["score"], abs=1e-3), student
            assert (course / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html").is_file(), student
    full = assignment_by_id(ASSIGNMENT).max_score
    assert any(0 < r["score"] < full for r in cli.values()) and any(r["score"] == full for r in cli.values())
    listed = readme_run["done"]["nbgrader list"]
    assert "Released assignments" in listed.stdout + listed.stderr
    status = shell("git status --porcelain", course, env).stdout
    assert status == "", f"nbgrader's commands changed the clone's tracked files or left untracked ones:\n{status}"


@pytest.fixture(scope="module")
def own_course(clone, readme_run, tmp_path_factory) -> dict:
    """`autograder course init` in a fresh folder, then a release, a student's fetch and submit, and grading."""
    clone_root, env = clone
    base = tmp_path_factory.mktemp("own-course")
    course, student = base / "my-course", base / "student-home"
    student.mkdir()
    init = shell(f"autograder course init {course}", base, env)
    seeded = dict(env, AUTOGRADER_SEED=(clone_root / ".autograder-seed").read_text().strip())  # the clone's cases
    first_steps = [line.split("#")[0].strip() for line in init.stdout.split("once students")[0].splitlines()
                   if line.strip().startswith("nbgrader ")]  # what it says to type first, word for word
    assert first_steps == [f"nbgrader release_assignment {ASSIGNMENT}"], init.stdout
    for line in (f"nbgrader collect {ASSIGNMENT}", *first_steps):
        shell(line, course, seeded)
    exchange = f"--course tf-autodiff --Exchange.root={course / 'exchange'}"
    shell(f"nbgrader fetch_assignment {ASSIGNMENT} {exchange}", student, env)
    fetched = student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    assert fetched.read_bytes() == (clone_root / "assignments" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_bytes()
    shutil.copy(ROOT / "examples" / "submitted" / "bram" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", fetched)  # her work
    shell(f"nbgrader submit {ASSIGNMENT} {exchange}", student, env)
    for line in (f"nbgrader collect {ASSIGNMENT}", f"nbgrader autograde {ASSIGNMENT}",
                 f"nbgrader generate_feedback {ASSIGNMENT}"):
        shell(line, course, seeded)
    return {"course": course, "init": init, "cli": readme_run["cli"]}


def test_course_init_lays_out_a_course_where_nbgraders_round_trip_grades_as_the_cli(own_course):
    course = own_course["course"]
    for name in ("solutions", "assignments", "nbgrader_config.py", "exchange", "submitted", "gradebook.db",
                 ".autograder-seed", ".gitignore"):
        assert (course / name).exists(), name
    assert "nbgrader autograde custom_gradients" in own_course["init"].stdout  # it says what to type next
    [collected] = [p for p in (course / "submitted").iterdir() if p.is_dir()]  # the student who submitted
    with open_gradebook(course) as gradebook:
        assert {a.name for a in gradebook.assignments} == {"custom_gradients", "higher_order", "jacobians", "implicit"}
        notebook = gradebook.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, collected.name)
        assert notebook.score == pytest.approx(own_course["cli"]["bram"]["score"], abs=1e-3)
    assert (course / "feedback" / collected.name / ASSIGNMENT / f"{ASSIGNMENT}.html").is_file()


def test_course_init_refuses_a_folder_that_is_not_empty(tmp_path, clone):
    _, env = clone
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "notes.txt").write_text("mine")
    done = shell(f"autograder course init {tmp_path / 'taken'}", tmp_path, env, ok=False)
    assert done.returncode == 2 and "is not an empty folder" in done.stderr
    assert sorted(p.name for p in (tmp_path / "taken").iterdir()) == ["notes.txt"]
