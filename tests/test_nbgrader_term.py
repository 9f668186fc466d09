"""A whole nbgrader term, as docs/nbgrader.md walks it: the instructor's commands and formgrader's buttons, the
students' commands on the same machine with their own HOME, and a shared exchange as on a JupyterHub.

The course is `autograder course init`'s (its first printed step, word for word), with the exchange moved to a
shared folder outside it (`c.Exchange.root`, the one line the docs say to change). Three students:

- kwame, the command line all the way: fetch, submit (his ~/.jupyter/nbgrader_config.py names the exchange, the
  course and himself: nbgrader records him, not the Unix account), the instructor's collect, autograde,
  generate_feedback and release_feedback, then his fetch_feedback: the page in his folder;
- ama, formgrader's buttons (the HTTP calls its pages make, on `jupyter server` at 127.0.0.1): collect, autograde,
  generate feedback, release all feedback, then her fetch_feedback;
- chiara, whose notebook the instructor copied into submitted/ by hand: graded, feedback generated, and
  release_feedback (the command and the button) goes on past her with a warning naming the page to hand over,
  where nbgrader alone stops with FileNotFoundError for timestamp.txt.

The course's seed is 1, so every grade must equal the golden JSON's (tests/fixtures/example_class_seed1.json) for
the example notebook each student handed in. The feedback pages must be readable offline and on a phone, and
formgrader's "Current configuration" panel must show the contained executor by name.
"""
from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import ROOT, Browser, Formgrader, layout, open_gradebook, quiet_env

pytestmark = pytest.mark.slow
ASSIGNMENT = "custom_gradients"
EXAMPLES = ROOT / "examples" / "submitted"
WORK = {"kwame": "bram", "ama": "dev", "chiara": "chiara"}  # each student's work: an example student's notebook
GOLDEN = {r["submission"]: r for r in json.loads((ROOT / "tests/fixtures/example_class_seed1.json").read_text())}
TOKEN = "term-test-token"
PHONE = 390
INSTRUCTOR_ONLY = ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "AUTOGRADER_SEED",
                   "AUTOGRADER_SOLUTIONS", "AUTOGRADER_NBGRADER", "AUTOGRADER_CACHE")


def golden_score(student: str) -> float:
    return GOLDEN[f"examples/submitted/{WORK[student]}/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"]["score"]


def shell(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    done = subprocess.run(["bash", "--noprofile", "--norc", "-c", command], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=1800)
    assert done.returncode == 0, f"`{command}` failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    return done


class Student:
    """A student on the same machine: a HOME of their own, nbgrader's config in ~/.jupyter as the docs write it."""

    def __init__(self, base: Path, name: str, exchange: Path):
        self.name, self.home = name, base / f"home-{name}"
        (self.home / ".jupyter").mkdir(parents=True)
        (self.home / ".jupyter" / "nbgrader_config.py").write_text(
            "c = get_config()\n"
            'c.CourseDirectory.course_id = "tf-autodiff"\n'
            f'c.Exchange.root = "{exchange}"\n'
            f'c.CourseDirectory.student_id = "{name}"\n', encoding="utf-8")
        self.env = {k: v for k, v in quiet_env().items() if k not in INSTRUCTOR_ONLY}
        self.env["HOME"] = str(self.home)

    def run(self, command: str) -> subprocess.CompletedProcess:
        return shell(command, self.home, self.env)

    def do_the_work(self) -> None:
        fetched = self.home / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        assert fetched.is_file(), f"{self.name} fetched nothing"
        shutil.copy(EXAMPLES / WORK[self.name] / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", fetched)

    def feedback_pages(self) -> list[Path]:
        return sorted((self.home / ASSIGNMENT / "feedback").glob(f"*/{ASSIGNMENT}.html"))


@pytest.fixture(scope="module")
def term(tmp_path_factory) -> dict:
    base = tmp_path_factory.mktemp("term")
    exchange = base / "srv-exchange"  # as the admin makes it once: mkdir -p ...; chmod ugo+rwx ...
    exchange.mkdir()
    exchange.chmod(0o777)
    instructor = quiet_env(HOME=str(base / "home-instructor"), AUTOGRADER_SEED="1",
                           AUTOGRADER_CACHE=str(base / "cache"), JUPYTER_DATA_DIR=str(base / "jupyter-data"),
                           JUPYTER_RUNTIME_DIR=str(base / "jupyter-runtime"),
                           JUPYTER_CONFIG_DIR=str(base / "jupyter-config"))
    course = base / "course"
    init = shell(f"autograder course init {course}", base, instructor)
    config = (course / "nbgrader_config.py").read_text(encoding="utf-8")
    line = 'c.Exchange.root = str(Path(__file__).resolve().parent / "exchange")'
    assert config.count(line) == 1, "nbgrader_config.py has no c.Exchange.root line to change"
    (course / "nbgrader_config.py").write_text(config.replace(line, f'c.Exchange.root = "{exchange}"'))
    seen: dict = {"course": course, "exchange": exchange, "init": init.stdout, "said": {}}

    first = [line.split("#")[0].strip() for line in init.stdout.split("once students")[0].splitlines()
             if line.strip().startswith("nbgrader ")]
    assert first == [f"nbgrader release_assignment {ASSIGNMENT}"], init.stdout
    for command in first:  # course init's first step, word for word
        shell(command, course, instructor)
    students = {name: Student(base, name, exchange) for name in ("kwame", "ama")}
    for student in students.values():
        student.run(f"nbgrader fetch_assignment {ASSIGNMENT}")
        student.do_the_work()
        student.run(f"nbgrader submit {ASSIGNMENT}")
    seen["inbound"] = sorted(p.name.split("+")[0] for p in (exchange / "tf-autodiff" / "inbound").iterdir())
    hand = course / "submitted" / "chiara" / ASSIGNMENT
    hand.mkdir(parents=True)
    shutil.copy(EXAMPLES / "chiara" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", hand)  # placed by hand

    # kwame (and chiara, placed by hand): the instructor's command line
    for command in (f"nbgrader collect {ASSIGNMENT} --student kwame", f"nbgrader autograde {ASSIGNMENT} --student kwame",
                    f"nbgrader autograde {ASSIGNMENT} --student chiara", f"nbgrader generate_feedback {ASSIGNMENT}",
                    f"nbgrader release_feedback {ASSIGNMENT}"):
        seen["said"][command] = shell(command, course, instructor)
    students["kwame"].run(f"nbgrader fetch_feedback {ASSIGNMENT}")

    # ama: formgrader's buttons
    formgrader = Formgrader(course, instructor, base / "jupyter-server.log", TOKEN, "--FormgradeExtension.debug=True")
    try:
        seen["manage_page"] = formgrader.page("/formgrader/manage_assignments")
        seen["collect"] = formgrader.click(f"/formgrader/api/assignment/{ASSIGNMENT}/collect")
        seen["autograde"] = formgrader.click(f"/formgrader/api/submission/{ASSIGNMENT}/ama/autograde")
        seen["generate"] = formgrader.click(f"/formgrader/api/assignment/{ASSIGNMENT}/ama/generate_feedback")
        seen["release"] = formgrader.click(f"/formgrader/api/assignment/{ASSIGNMENT}/release_feedback")
        seen["submissions"] = formgrader.get(f"/formgrader/api/submissions/{ASSIGNMENT}")
    finally:
        formgrader.stop()
    seen["server_log"] = (base / "jupyter-server.log").read_text(encoding="utf-8", errors="replace")
    students["ama"].run(f"nbgrader fetch_feedback {ASSIGNMENT}")
    seen["students"] = students
    return seen


def test_nbgrader_records_the_students_named_in_their_config_not_the_unix_account(term):
    assert term["inbound"] == ["ama", "kwame"]
    assert sorted(p.name for p in (term["course"] / "submitted").iterdir()) == ["ama", "chiara", "kwame"]
    with open_gradebook(term["course"]) as gradebook:
        assert sorted(s.id for s in gradebook.students) == ["ama", "chiara", "kwame"]


def test_every_grade_of_the_term_is_the_clis(term):
    for button in ("collect", "autograde", "generate", "release"):
        assert term[button]["success"] is True, (button, term[button].get("error", "")[-3000:])
    with open_gradebook(term["course"]) as gradebook:
        for student in WORK:
            notebook = gradebook.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, student)
            assert notebook.score == pytest.approx(golden_score(student), abs=1e-3), student
            assert not notebook.needs_manual_grade, student
    shown = {s["student"]: s["score"] for s in term["submissions"]}  # formgrader's own list
    assert shown == pytest.approx({student: golden_score(student) for student in WORK}, abs=1e-3)


def test_each_student_fetches_their_own_feedback_and_only_theirs(term):
    for name, student in term["students"].items():
        [page] = student.feedback_pages()
        text = page.read_text(encoding="utf-8")
        assert f"(Score: {round(golden_score(name), 2)} / 12.0)" in text, (name, re.findall(r"\(Score: [^)]*\)", text)[:1])
        generated = term["course"] / "feedback" / name / ASSIGNMENT / f"{ASSIGNMENT}.html"
        assert text == generated.read_text(encoding="utf-8"), name


def test_release_feedback_goes_past_a_notebook_placed_by_hand_and_names_it(term):
    said = term["said"][f"nbgrader release_feedback {ASSIGNMENT}"]
    for log in (said.stdout + said.stderr, term["release"].get("log", "")):
        assert "FileNotFoundError" not in log and "timestamp.txt" in log, log[-3000:]
        assert re.search(r"Not releasing the feedback in \S*feedback/chiara/custom_gradients: chiara's notebook was "
                         r"placed in submitted/ by hand", log), log[-3000:]
        assert "hand over" in log and "chiara/custom_gradients/*.html" in log, log[-3000:]
    released = sorted(p.name for p in (term["exchange"] / "tf-autodiff" / "feedback").iterdir())
    assert len(released) == 2, released  # kwame's and ama's, under names made from their secrets


def test_the_feedback_pages_need_no_network_and_fit_a_phone(term):
    pages = [page for student in term["students"].values() for page in student.feedback_pages()]
    pages.append(term["course"] / "feedback" / "chiara" / ASSIGNMENT / f"{ASSIGNMENT}.html")
    with Browser() as browser:
        for page in pages:
            text = page.read_text(encoding="utf-8")
            assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in text, page
            assert not re.search(r'<(script|link|img)\b[^>]*\b(src|href)="(https?:)?//', text), page  # nothing fetched
            assert "mathjax" not in " ".join(re.findall(r"<script\b[^>]*>", text)).lower(), page
            assert text.count("<math") > 50 and "$\\sigma(x)$" not in text, page  # formulas drawn, not TeX
            measured = layout(browser, page, PHONE)
            assert measured["scrollWidth"] <= PHONE and not measured["wide"], (page, measured)
            drawn = browser.evaluate("[...document.querySelectorAll('math')].filter(m => m.getBoundingClientRect()"
                                     ".width > 0).length")
            assert drawn > 50, f"{page}: the browser drew {drawn} formulas"


def test_formgraders_configuration_panel_names_the_executor(term):
    """Each autograde step by its import name (classes showed as blanks: `<class ...>` read as tags). The course's
    config is JSON; formgrader still logs "not serializable" for jupyter-server's own values (its extensions list,
    options from the command line), which no course config can change."""
    page = term["manage_page"]
    assert "Current configuration" in page
    panel = html.unescape(page[page.index("Current configuration"):page.index("</pre>")])
    steps = re.search(r"""'autograde_preprocessors': \[([^\]]*)\]|"autograde_preprocessors": \[([^\]]*)\]""", panel)
    assert steps, panel[-3000:]
    names = [name.strip(" '\"\n") for name in (steps.group(1) or steps.group(2)).split(",")]
    assert names[0] == "autograder.frontends.nbgrader_executor.ContainedExecute" and len(names) == 7, names
    assert all(re.fullmatch(r"[a-z_]+(\.[a-z_]+)+\.[A-Z]\w+", name) for name in names), names
    assert "<class" not in panel and "autograder.frontends.nbgrader_feedback.FeedbackExporter" in panel
    loading = ("import json; from traitlets.config.loader import PyFileConfigLoader; "
               "print(json.dumps(PyFileConfigLoader('nbgrader_config.py', path='.').load_config()))")
    done = subprocess.run([sys.executable, "-c", loading], cwd=term["course"], env=quiet_env(AUTOGRADER_SEED="1"),
                          capture_output=True, text=True, timeout=300)  # its own process: the file sets variables
    assert done.returncode == 0, done.stderr[-3000:]  # the course's own configuration is plain data
    assert json.loads(done.stdout)["GenerateFeedback"] == {
        "exporter_class": "autograder.frontends.nbgrader_feedback.FeedbackExporter",
        "preprocessors": ["nbgrader.preprocessors.getgrades.GetGrades",
                          "nbconvert.preprocessors.csshtmlheader.CSSHTMLHeaderPreprocessor",
                          "autograder.frontends.nbgrader_markdown.SanitizeStudentMarkdown"]}


def test_course_init_says_what_works_on_the_course_it_made(term):
    said = term["init"]
    assert "submitted/ holds no student yet" in said and "once students have submitted" in said
    later = [line.split("#")[0].strip() for line in said.split("once students")[1].splitlines()
             if line.strip().startswith("nbgrader ")]
    assert later == [f"nbgrader {step} {ASSIGNMENT}" for step in ("collect", "autograde", "generate_feedback",
                                                                 "release_feedback")]
    assert "its token logs you in" in said
    ignore = (term["course"] / ".gitignore").read_text(encoding="utf-8")
    assert ignore.endswith("\n") and "/exchange/" in ignore.splitlines()
    assert os.access(term["exchange"], os.W_OK)
