"""PrairieLearn: `--format prairielearn`, and examples/prairielearn's question and entrypoint run for real.

The entrypoint runs in a /grade layout made in a temporary folder exactly as examples/prairielearn/README.md
tells the instructor to make it (PRAIRIELEARN_GRADE_ROOT stands for /grade: Docker does not run here), and its
results.json is read back by PrairieLearn's rules (docs, "External Grading" > "Grading results"): gradable,
a score from 0 to 1, tests with name/description/points/max_points/message/output, at most 1 MB, and student
text inert where `<pl-external-grader-results>` puts it into the page as HTML (message and output go through
ansi2html, which PrairieLearn's element uses: escaped, but ANSI colour, link and cursor codes are honoured).
"""
from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import sys
import uuid
from html.parser import HTMLParser
from pathlib import Path

import pytest
from ansi2html import Ansi2HTMLConverter

from autograder.model.results import ExerciseResult, Status, SubmissionResult
from autograder.report.prairielearn import RESULTS_LIMIT, not_gradable, prairielearn_results
from helpers import ASSIGNMENT_IDS, ROOT, hand_made_result, quiet_env, run_autograder, under_load

EXAMPLE = ROOT / "examples" / "prairielearn"
ENTRYPOINT = Path("serverFilesCourse") / "tf_autodiff_autograder" / "entrypoint"
BRAM = ROOT / "examples" / "submitted" / "bram" / "custom_gradients" / "custom_gradients.ipynb"
SEED = 918273645546372819  # distinctive: it must appear nowhere a student reads
# What a student's code can print or raise, aimed at the HTML PrairieLearn makes of message and output: a tag, an
# OSC 8 hyperlink, a colour, and a cursor-up that would erase the grader's line before it.
ATTACK = "<img src=x onerror=alert(1)> \x1b]8;;https://evil.example/\x07click\x1b]8;;\x07 \x1b[31mred\x1b[0m \x1b[A"
HOSTILE = f'''import tensorflow as tf


def log1pexp(x):
    raise ValueError({ATTACK!r})
'''
TEST_KEYS = {"name", "description", "points", "max_points", "message", "output"}


# --------------------------------------------------------------------------- PrairieLearn's rules

class Tags(HTMLParser):
    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.text: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        self.text.append(data)


def as_prairielearn_shows(value: str) -> Tags:
    """message/output as `<pl-external-grader-results>` renders them: ansi2html (escaping on), inserted raw."""
    return Tags(Ansi2HTMLConverter(inline=True).convert(value, full=False))


def check_prairielearn(data: dict) -> None:
    """PrairieLearn's rules for /grade/results/results.json, and inert student text."""
    assert isinstance(data, dict)
    assert len(json.dumps(data).encode("utf-8")) <= RESULTS_LIMIT
    json.dumps(data, allow_nan=False)
    if data.get("gradable") is False:
        assert data["format_errors"] and all(isinstance(e, str) and e for e in data["format_errors"])
        return
    assert data.get("gradable", True) is True
    score = data["score"]
    assert isinstance(score, (int, float)) and not isinstance(score, bool) and 0 <= score <= 1
    assert isinstance(data["tests"], list) and data["tests"]
    for test in data["tests"]:
        assert set(test) <= TEST_KEYS and {"name", "points", "max_points"} <= set(test), set(test)
        assert isinstance(test["name"], str) and test["name"]
        assert 0 <= test["points"] <= test["max_points"] and math.isfinite(test["points"])
    total = sum(t["points"] for t in data["tests"])
    assert score == pytest.approx(total / sum(t["max_points"] for t in data["tests"]), abs=1e-5)
    for place in [data, *data["tests"]]:
        for key in ("message", "output"):
            if place.get(key):
                shown = as_prairielearn_shows(place[key])
                assert shown.tags == [], (key, shown.tags, place[key][:300])  # no element, no styled span, no link
                assert "".join(shown.text) == place[key]  # every character shown as written, nothing erased


# --------------------------------------------------------------------------- the writer

def test_a_result_becomes_results_json_by_prairielearns_rules():
    result = hand_made_result()
    data = prairielearn_results(result)
    check_prairielearn(data)
    assert data["score"] == pytest.approx(2.5 / 6, abs=1e-6)
    assert [t["name"] for t in data["tests"]] == ["td_loss", "checkpointed", "log1pexp"]
    assert data["tests"][0]["description"] == "td_loss(q, reward, next_q, gamma)"
    assert data["tests"][0]["message"] == "partial: 0.5 / 2 points [gradient-cut]"
    assert "keep tensors" in data["tests"][0]["output"] and "<script>" in data["tests"][0]["output"]


def test_ansi_codes_a_student_prints_are_written_as_visible_escapes():
    exercise = ExerciseResult("log1pexp", 0.0, 2.0, Status.ERROR, summary=f"raised ValueError: {ATTACK}")
    data = prairielearn_results(SubmissionResult("x.ipynb", "x", "custom_gradients", [exercise], notes=[ATTACK]))
    check_prairielearn(data)
    assert "\\x1b]8;;https://evil.example/\\x07click" in data["tests"][0]["output"]
    # What the escaping prevents: unescaped, ansi2html makes a link and a styled span, and a cursor-up erases
    # the line it ends (here the whole attack).
    converter = Ansi2HTMLConverter(inline=True)
    raw = converter.convert(ATTACK.replace("\x1b[A", ""), full=False)
    assert "<a href" in raw and "<span" in raw and converter.convert(ATTACK, full=False) == ""


def test_feedback_beyond_a_megabyte_is_cut_to_fit():
    huge = "x" * 900_000
    exercises = [ExerciseResult(f"e{n}", 1.0, 2.0, Status.PARTIAL, summary=huge) for n in range(3)]
    data = prairielearn_results(SubmissionResult("x.ipynb", "x", "custom_gradients", exercises, notes=[huge]))
    check_prairielearn(data)
    assert all("(cut here" in t["output"] for t in data["tests"]) and data["score"] == 0.5


def test_nothing_to_grade_is_not_gradable_with_the_reason():
    data = not_gradable(f"no custom_gradients.ipynb was found {ATTACK}")
    check_prairielearn(data)
    assert data["gradable"] is False and "custom_gradients.ipynb" in data["format_errors"][0]
    assert "\x1b" not in json.dumps(data, ensure_ascii=False)


# --------------------------------------------------------------------------- the question, as PrairieLearn reads it

@pytest.mark.parametrize("assignment", ASSIGNMENT_IDS)
def test_each_question_enables_external_grading_of_its_notebook(assignment):
    """info.json by PrairieLearn's question schema (infoQuestion.json): the keys it allows, a v4 uuid, a timeout
    within 600 s; question.html asks for the notebook by name and shows the grader's results."""
    folder = EXAMPLE / "questions" / "tf_autodiff" / assignment
    info = json.loads((folder / "info.json").read_text())
    assert {"uuid", "type", "title", "topic"} <= set(info) <= {
        "uuid", "type", "title", "topic", "tags", "singleVariant", "gradingMethod", "externalGradingOptions",
        "partialCredit", "comment"}
    assert uuid.UUID(info["uuid"]).version == 4 and info["type"] == "v3" and info["gradingMethod"] == "External"
    options = info["externalGradingOptions"]
    assert set(options) <= {"enabled", "image", "entrypoint", "serverFilesCourse", "timeout", "enableNetworking",
                            "environment", "comment"} and {"image", "entrypoint"} <= set(options)
    assert options["enabled"] is True and options.get("enableNetworking", False) is False
    assert isinstance(options["timeout"], int) and 0 < options["timeout"] <= 600
    assert options["entrypoint"] == f"/grade/{ENTRYPOINT.as_posix()}"
    assert options["serverFilesCourse"] == ["tf_autodiff_autograder/"]
    assert options["environment"]["AUTOGRADER_ASSIGNMENT"] == assignment
    assert int(options["environment"]["AUTOGRADER_TIMEOUT"]) < options["timeout"]  # ours ends first: a result
    html = (folder / "question.html").read_text()
    assert f'<pl-file-upload file-names="{assignment}.ipynb">' in html
    assert "<pl-external-grader-results>" in html
    uuids = {json.loads(p.read_text())["uuid"] for p in EXAMPLE.glob("questions/*/*/info.json")}
    assert len(uuids) == len(ASSIGNMENT_IDS)


# --------------------------------------------------------------------------- the entrypoint, for real

def grade_folder(tmp_path: Path, upload: Path | None, seed: int | None = SEED, kit: bool = True) -> Path:
    """/grade as PrairieLearn lays it out, with serverFilesCourse made as examples/prairielearn/README.md says."""
    grade = tmp_path / "grade"
    (grade / "student").mkdir(parents=True)
    shutil.copytree(EXAMPLE / "serverFilesCourse", grade / "serverFilesCourse")
    files = grade / "serverFilesCourse" / "tf_autodiff_autograder"
    if kit:
        for part in ("autograder", "solutions"):  # cp -r autograder solutions .../kit/
            shutil.copytree(ROOT / part, files / "kit" / part, ignore=shutil.ignore_patterns("__pycache__"))
    if seed is not None:
        (files / "seed").write_text(f"{seed}\n")
    if upload is not None:
        shutil.copy(upload, grade / "student" / f"custom_gradients{upload.suffix}")
    return grade


# Runs the entrypoint as the subreaper of everything it starts (as a container's init would be): a process of the
# run still alive once it exited is then this wrapper's child, however it was started and whatever it is named.
# The wrapper prints those (and kills them, so that the test machine keeps none).
LEFT_BEHIND = r"""
import ctypes, os, signal, subprocess, sys
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)
status = subprocess.call(sys.argv[1:])
left = []
for entry in os.listdir("/proc"):
    if entry.isdigit():
        try:
            fields = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()
            command = open(f"/proc/{entry}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, IndexError):
            continue
        if int(fields[1]) == os.getpid():
            left.append(f"{entry} {command[:200]}")
            os.kill(int(entry), signal.SIGKILL)
print("LEFT BEHIND: " + repr(left), file=sys.stderr)
sys.exit(status)
"""


def run_entrypoint(grade: Path, assignment: str = "custom_gradients",
                   timeout: int | None = None) -> tuple[dict, subprocess.CompletedProcess]:
    entrypoint = grade / ENTRYPOINT
    entrypoint.chmod(0o755)  # as PrairieLearn does for an entrypoint under /grade
    env = quiet_env(PRAIRIELEARN_GRADE_ROOT=str(grade), AUTOGRADER_ASSIGNMENT=assignment,
                    AUTOGRADER_CACHE=str(grade.parent / "cache"),
                    # info.json's environment; by default the entrypoint's 100 s, scaled by the load
                    AUTOGRADER_TIMEOUT=str(timeout if timeout is not None else under_load(100)))
    env.pop("PYTHONPATH", None)
    done = subprocess.run([sys.executable, "-c", LEFT_BEHIND, sys.executable, str(entrypoint)], cwd=grade, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "LEFT BEHIND: []" in done.stderr, done.stderr[-3000:]  # every process of the run ended with it
    return json.loads((grade / "results" / "results.json").read_text(encoding="utf-8")), done


@pytest.mark.slow  # grades a notebook in the entrypoint, and again with the CLI
def test_the_entrypoint_grades_the_upload_as_the_cli_does_and_keeps_the_seed_secret(tmp_path):
    grade = grade_folder(tmp_path, BRAM)
    data, done = run_entrypoint(grade)
    check_prairielearn(data)
    kit = grade / "serverFilesCourse" / "tf_autodiff_autograder" / "kit"
    assert f"grader: {kit}" in done.stdout  # the course's copy of the kit graded, not the one installed
    cli = json.loads(run_autograder("grade", str(BRAM), "--seed", str(SEED), "--format", "json").stdout)[0]
    assert [(t["name"], t["points"], t["max_points"]) for t in data["tests"]] == [
        (e["id"], e["score"], e["max_score"]) for e in cli["exercises"]]
    assert data["score"] == pytest.approx(cli["score"] / cli["max_score"], abs=1e-6) and 0 < data["score"] < 1
    assert data["tests"][0]["message"].startswith("partial: 1.43 / 2 points [unstable-gradient")
    assert data["tests"][0]["output"] == cli["exercises"][0]["feedback"]
    everything = json.dumps(data) + done.stdout + done.stderr
    assert str(SEED) not in everything and not re.search(r"seed\W*\d", json.dumps(data))


@pytest.mark.slow  # grades one hostile file with the CLI
def test_cli_format_prairielearn_makes_a_hostile_message_inert(tmp_path):
    hostile = tmp_path / "custom_gradients.py"
    hostile.write_text(HOSTILE)
    output = tmp_path / "results.json"
    done = run_autograder("grade", str(hostile), "--format", "prairielearn", "--output", str(output),
                          "--seed", "3")
    assert done.returncode == 0, done.stderr[-3000:]
    data = json.loads(output.read_text(encoding="utf-8"))
    check_prairielearn(data)
    log1pexp = next(t for t in data["tests"] if t["name"] == "log1pexp")
    assert log1pexp["points"] == 0 and "ValueError" in log1pexp["output"] and "\\x1b[A" in log1pexp["output"]


@pytest.mark.slow  # starts the entrypoint twice (no grading: nothing to grade, no kit)
def test_the_entrypoint_always_writes_a_result_that_says_why_nothing_was_graded(tmp_path):
    data, _ = run_entrypoint(grade_folder(tmp_path / "empty", None))
    check_prairielearn(data)
    assert data["gradable"] is False and "no custom_gradients.ipynb was found" in data["format_errors"][0]
    data, done = run_entrypoint(grade_folder(tmp_path / "no-kit", BRAM, kit=False))
    check_prairielearn(data)
    assert data["gradable"] is False and "copy of the kit is missing" in data["format_errors"][0], done.stderr
    data, _ = run_entrypoint(grade_folder(tmp_path / "wrong", BRAM), assignment="custom-gradients")
    assert data["gradable"] is False and "AUTOGRADER_ASSIGNMENT" in data["format_errors"][0]


def test_the_readme_steps_are_the_ones_this_test_follows():
    readme = (EXAMPLE / "README.md").read_text()
    for step in ("cp -r examples/prairielearn/serverFilesCourse/tf_autodiff_autograder PL/serverFilesCourse/",
                 "cp -r autograder solutions PL/serverFilesCourse/tf_autodiff_autograder/kit/",
                 "> PL/serverFilesCourse/tf_autodiff_autograder/seed",
                 "docker build -f examples/prairielearn/Dockerfile"):
        assert step in readme, step
    dockerfile = (EXAMPLE / "Dockerfile").read_text()
    assert "COPY solutions" not in dockerfile and "mistakes" not in dockerfile.split("RUN", 1)[1]


# --------------------------------------------------------------------------- round four: always graded, nothing left

SLOW_CELLS = "import time\ntime.sleep(58)\n"  # under the kit's 60 s cell limit; enough of them pass any budget


def slow_notebook(tmp_path: Path, budget: int) -> Path:
    """Bram's notebook with cells of 58 s that together sleep past ``budget`` seconds."""
    notebook = json.loads(BRAM.read_text(encoding="utf-8"))
    at = next(i for i, c in enumerate(notebook["cells"])
              if c["metadata"].get("nbgrader", {}).get("grade_id") == "log1pexp")
    for n in range(budget // 58 + 1):
        notebook["cells"].insert(at, {"cell_type": "code", "id": f"slow-{n}", "metadata": {}, "execution_count": None,
                                      "outputs": [], "source": SLOW_CELLS})
    path = tmp_path / "custom_gradients.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    return path


@pytest.mark.slow  # about 100 s: a notebook whose cells sleep past the entrypoint's budget
def test_a_notebook_slower_than_the_budget_gets_its_time_limits_zero_and_is_graded(tmp_path):
    """Round four: two cells of 58 s (each under the 60 s cell limit) once ran past the entrypoint's 100 s, which
    then wrote 'not gradable' (no attempt used, no zero). The kit's limits now fit the entrypoint's budget: the
    kit's own time limit stops the notebook, and the student gets that limit's zero, graded. The budget is the
    entrypoint's 100 s scaled by the load (on a loaded machine starting the grader alone can take most of 100 s,
    which the entrypoint then rightly calls not gradable), with enough slow cells to pass it."""
    budget = under_load(100)
    data, done = run_entrypoint(grade_folder(tmp_path, slow_notebook(tmp_path, budget)), timeout=budget)
    check_prairielearn(data)
    assert data["gradable"] is True, (data, done.stderr[-2000:])
    assert data["score"] == 0 and "time limit" in json.dumps(data), data


@pytest.mark.slow  # starts the grader and kills it mid-run
def test_every_process_of_the_run_ends_before_the_entrypoint_exits(tmp_path):
    """With a timeout far too short the entrypoint kills the grader mid-run (its fork server, in a session of its
    own, and the children, in namespaces of their own, used to outlive it); run_entrypoint's wrapper, subreaper of
    the whole run, finds none of them alive after the entrypoint exits, and a result is written."""
    data, done = run_entrypoint(grade_folder(tmp_path, BRAM), timeout=12)
    check_prairielearn(data)
