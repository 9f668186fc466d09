"""Where courses run: Gradescope's Markdown, Classroom 50's result.json, a GitHub job summary, Canvas and Moodle
gradebooks. Hand-made results (nothing is graded) read back as each platform reads them; `merge` for the CLI."""
from __future__ import annotations

import csv
import datetime as dt
import io
import json
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from autograder.model.results import ExerciseResult, Status, SubmissionResult
from autograder.report import classroom50, lms
from autograder.report.gradescope import gradescope_results
from autograder.report.markdown import code_block, inline, submission_markdown
from autograder.report.step_summary import step_summary
from helpers import (CLASSROOM50_RUNNER_ENV, SCRIPT_TAG, ROOT, check_gradescope, classroom50_problem, hand_made_result,
                     run_autograder)

MARKDOWN = MarkdownIt("commonmark").enable("table")  # CommonMark with GitHub's tables


def tokens_of(markdown: str) -> list:
    flat = []
    for token in MARKDOWN.parse(markdown):
        flat.append(token)
        flat += token.children or []
    return flat


def assert_inert(markdown: str) -> None:
    """No HTML and no link reaches the page from student text, whatever it held."""
    kinds = {token.type for token in tokens_of(markdown)}
    assert not kinds & {"html_inline", "html_block", "link_open", "image"}, kinds
    assert "<script" not in MARKDOWN.render(markdown)


# --------------------------------------------------------------------------- Markdown and Gradescope

def test_gradescope_feedback_is_markdown_with_cases_code_and_callouts():
    data = gradescope_results(hand_made_result())
    check_gradescope(data)
    assert data["output_format"] == data["test_output_format"] == "md"
    td_loss, checkpointed, log1pexp = data["tests"]
    assert [t["number"] for t in data["tests"]] == ["1", "2", "3"]
    assert td_loss["tags"] == ["gradient-cut"] and log1pexp["tags"] == [] and td_loss["output_format"] == "md"
    tokens = tokens_of(td_loss["output"])
    fences = [t.content for t in tokens if t.type == "fence"]
    assert "g = x.numpy()\n" in fences  # the student's line, as code
    assert any(SCRIPT_TAG in fence for fence in fences)  # the case's message, as code (shown, never run)
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open" and t.tag == "h3"]
    assert headings == ["Case float32, batch 2"]
    quote = MARKDOWN.render(td_loss["output"]).split("<blockquote>")[1].split("</blockquote>")[0]
    assert "Pitfall <code>gradient-cut</code>" in quote and "<strong>Fix:</strong> Keep tensors." in quote
    assert "<code>.numpy()</code>" in quote  # the judge's own code spans stay code
    for text in (td_loss["output"], data["output"], checkpointed["output"]):
        assert_inert(text)
    assert "seed" not in json.dumps(data)


@pytest.mark.parametrize("attack", [SCRIPT_TAG, "[click](https://evil.example)", "![x](https://evil.example/i.png)",
                                    "# fake heading", "1. fake list", "> fake quote", "a | b | c", "**bold** _it_",
                                    "<img src=x onerror=alert(1)>", "https://evil.example", "`<b>x</b>`",
                                    "x\n## injected\n", "\x1b[31mred", "\ud800 lone"])
def test_student_text_is_inert_in_every_markdown_place(attack):
    rendered = MARKDOWN.render(inline(attack))
    assert rendered.count("<p>") == 1 and "<h" not in rendered and "<ol" not in rendered and "<a " not in rendered
    assert_inert(inline(attack))
    block = code_block(f"{attack}\n```\n# after the fence")
    [fence] = [t for t in tokens_of(block) if t.type == "fence"]  # one block: nothing inside can close it
    assert "# after the fence" in fence.content


def test_a_result_read_back_from_the_contract_json_shows_its_text_as_code():
    exercise = ExerciseResult("jvp", 1.0, 2.0, Status.PARTIAL, ["unwatched-tensor"], text=f"1 of 2 cases passed.\n{SCRIPT_TAG}")
    markdown = submission_markdown(SubmissionResult("a.py", "a", "jacobians", [exercise]))
    [fence] = [t for t in tokens_of(markdown) if t.type == "fence"]
    assert SCRIPT_TAG in fence.content
    assert_inert(markdown)


# --------------------------------------------------------------------------- Classroom 50

NOW = dt.datetime(2026, 12, 1, 10, 5, 0, tzinfo=dt.timezone.utc)


def test_classroom50_result_is_what_classroom50_accepts_with_its_runner_environment():
    result = hand_made_result()
    context = classroom50.RunnerContext.from_environ(CLASSROOM50_RUNNER_ENV)
    data = classroom50.classroom50_result(result, context, NOW - dt.timedelta(minutes=5), NOW)
    assert classroom50_problem(data) is None
    assert context.missing == ()
    assert (data["datetime"], data["graded_at"]) == ("2026-12-01T10:00:00Z", "2026-12-01T10:05:00Z")
    assert [(t["test-name"], t["score"], t["max-score"], t["passed"]) for t in data["tests"]] == [
        ("td_loss", 50, 200, False), ("checkpointed", 0, 200, False), ("log1pexp", 200, 200, True)]
    assert data["score"] == 250 == round(result.score * classroom50.POINT_SCALE) and data["max-score"] == 600
    assert data["tests"][0]["points"] == 0.5 and data["tests"][0]["pitfalls"] == ["gradient-cut"]
    assert json.loads(classroom50.to_json(data)) == data


def test_classroom50_partial_credit_never_exceeds_and_full_marks_stay_full():
    thirds = [ExerciseResult(f"e{i}", 2 * i / 3, 2.0, Status.PARTIAL if i < 3 else Status.PASSED) for i in range(4)]
    result = SubmissionResult("n.ipynb", "n", "jacobians", thirds)
    data = classroom50.classroom50_result(result, classroom50.RunnerContext.from_environ(CLASSROOM50_RUNNER_ENV),
                                          NOW, NOW)
    assert [t["score"] for t in data["tests"]] == [0, 67, 133, 200]
    assert classroom50_problem(data) is None and data["tests"][-1]["passed"]


def test_classroom50_outside_its_runner_says_what_is_missing():
    context = classroom50.RunnerContext.from_environ({"GITHUB_SERVER_URL": "https://github.com",
                                                      "GITHUB_REPOSITORY": "o/r", "GITHUB_SHA": "abc"})
    assert context.missing == classroom50.RUNNER_VARIABLES
    assert context.classroom == "unset:CLASSROOM" and context.commit == "https://github.com/o/r/commit/abc"
    data = classroom50.classroom50_result(hand_made_result(), context, NOW, NOW)
    assert classroom50_problem(data) == "classroom 'unset:CLASSROOM' is not 'autodiff-fall-2026'"


def test_classroom50_release_body_and_step_outputs_are_safe():
    result = hand_made_result()
    result.exercises[0].id = "td_loss\nstatus=success"  # a line break must not forge a step output
    data = classroom50.classroom50_result(result, classroom50.RunnerContext.from_environ(CLASSROOM50_RUNNER_ENV),
                                          NOW, NOW)
    outputs = classroom50.step_outputs(result, data).splitlines()
    assert outputs[0] == "status=failure" and len(outputs) == 2 and outputs[1].startswith("summary=autograder: 2.5/6")
    body = classroom50.release_body(result, data)
    assert body.startswith("### Autograder: 2.5 / 6 points (Classroom 50 counts 250 / 600")
    assert_inert(body)


# --------------------------------------------------------------------------- GitHub job summary

@pytest.mark.parametrize("runner, name", [
    ({"OWNER": "octo-ada", "USERNAME": "ada-user", "GITHUB_ACTOR": "someone"}, "octo-ada"),
    ({"USERNAME": "ada-user", "GITHUB_ACTOR": "someone"}, "ada-user"),
    ({"GITHUB_ACTOR": "octo-bram", "GITHUB_REPOSITORY": "org/repo"}, "octo-bram"),
    ({"GITHUB_REPOSITORY": "octo-chiara/custom-gradients"}, "octo-chiara"),
    ({}, None),
])
def test_a_runner_names_the_student_whose_repository_it_grades(monkeypatch, runner, name):
    from autograder.frontends.platform_outputs import named_by_runner

    for variable in ("OWNER", "USERNAME", "GITHUB_ACTOR", "GITHUB_REPOSITORY"):
        monkeypatch.delenv(variable, raising=False)
    for variable, value in runner.items():
        monkeypatch.setenv(variable, value)
    loose = SubmissionResult("custom_gradients.ipynb", "custom_gradients", "custom_gradients", [])
    laid_out = SubmissionResult("submitted/zoe/custom_gradients/custom_gradients.ipynb", "zoe", "custom_gradients", [])
    shown = named_by_runner([loose, laid_out])
    assert [r.student for r in shown] == [name or "custom_gradients", "zoe"]  # nbgrader's layout names stay
    assert loose.student == "custom_gradients"  # the results themselves (the contract's JSON) are not changed


def test_step_summary_has_the_points_table_and_the_feedback():
    summary = step_summary([hand_made_result()], fail_under=5)
    html = MARKDOWN.render(summary)
    assert "<table>" in html and "<td><strong>total</strong></td>" in html
    assert "1 of 1 below 5 points: the check fails." in summary
    assert summary.count("<details>") == 1 and "&lt;script&gt;" in summary.split("<summary>")[1].split("</summary>")[0]
    assert "<script>" not in html


# --------------------------------------------------------------------------- Canvas

CANVAS_EXPORT = """\
Student,ID,SIS User ID,SIS Login ID,Section,Custom gradients (1234),Quiz 1 (77),Current Score,Final Score
    Points Possible,,,,,10,5,(read only),(read only)
,,,,,Manual Posting,,,
"Lovelace, Ada",101,S-0001,ada,Autodiff 2026,,4,80,80
"Bram, Stoker",102,S-0002,BRAM ,Autodiff 2026,3,5,90,90
"=HYPERLINK(""http://evil""),Eve",103,S-0003,eve@example.edu,Autodiff 2026,,1,10,10
"Student, Test",104,,,Autodiff 2026,,,0,0
"""


def custom(student: str, score: float, assignment: str = "custom_gradients") -> SubmissionResult:
    return SubmissionResult(f"submitted/{student}/{assignment}/{assignment}.ipynb", student, assignment,
                            [ExerciseResult(f"e{i}", score / 5, 2.0, Status.PARTIAL) for i in range(5)])


def read_as_canvas(text: str) -> tuple[list[str], dict[str, str], dict[str, dict[str, str]]]:
    """Canvas's importer's reading: the leading columns, ``Name (id)`` titles, the Points Possible row."""
    rows = list(csv.reader(io.StringIO(text)))
    header = rows[0]
    assert header[:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert "Points Possible" in rows[1][0]
    points = dict(zip(header, rows[1]))
    students = {row[1]: dict(zip(header, row)) for row in rows[2:]}
    return header, points, students


def test_canvas_gradebook_is_filled_in_the_assignment_column_and_reads_back_as_canvas_reads_it():
    results = [custom("ada", 10), custom("bram", 7.5), custom("zoe", 4)]
    filled = lms.fill_roster(lms.CANVAS, CANVAS_EXPORT, results, column="Custom gradients (1234)")
    header, points, students = read_as_canvas(filled.text)
    assert header == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Custom gradients (1234)"]
    assert lms.CANVAS_ASSIGNMENT.match(header[-1]).groups() == ("Custom gradients", "1234")
    assert points["Custom gradients (1234)"] == "10"
    assert {sid: row["Custom gradients (1234)"] for sid, row in students.items()} == {
        "101": "10", "102": "7.5", "103": "", "104": ""}
    assert filled.matched == {"ada": "SIS Login ID", "bram": "SIS Login ID"}
    assert filled.not_in_roster == ["zoe"]
    assert filled.without_submission == ['=HYPERLINK("http://evil"),Eve', "Student, Test"]  # stderr escapes it
    assert students["103"]["Student"].startswith("'=")  # a formula typed as a name stays text
    assert "Quiz 1 (77)" not in header and "Current Score" not in header  # nothing else is imported


def test_canvas_without_a_column_adds_one_named_after_the_assignment_or_finds_it():
    filled = lms.fill_roster(lms.CANVAS, CANVAS_EXPORT, [custom("ada", 9)])
    assert filled.column == "Custom gradients (1234)" or filled.column == "custom_gradients"
    header, points, students = read_as_canvas(filled.text)
    assert lms.CANVAS_ASSIGNMENT.match(header[-1]) is None and header[-1] == "custom_gradients"  # a new assignment
    assert points["custom_gradients"] == "10" and students["101"]["custom_gradients"] == "9"
    renamed = CANVAS_EXPORT.replace("Custom gradients (1234)", "custom_gradients (1234)")
    assert lms.fill_roster(lms.CANVAS, renamed, [custom("ada", 9)]).column == "custom_gradients (1234)"


def test_canvas_matching_falls_back_to_sis_user_id_then_name_and_match_by_is_exact():
    results = [custom("S-0002", 6), custom("Lovelace, Ada", 8)]
    filled = lms.fill_roster(lms.CANVAS, CANVAS_EXPORT, results)
    assert filled.matched == {"S-0002": "SIS User ID", "Lovelace, Ada": "Student"}
    assert lms.fill_roster(lms.CANVAS, CANVAS_EXPORT, results, match_by="ID").not_in_roster == ["Lovelace, Ada", "S-0002"]
    with pytest.raises(lms.RosterError, match="no such column"):
        lms.fill_roster(lms.CANVAS, CANVAS_EXPORT, results, match_by="Login")


def test_several_submissions_count_once_with_the_higher_score():
    filled = lms.fill_roster(lms.CANVAS, CANVAS_EXPORT, [custom("ada", 4), custom("ada", 9), custom("ada", 6)])
    assert read_as_canvas(filled.text)[2]["101"]["custom_gradients"] == "9"
    assert filled.notes and "higher score counts" in filled.notes[0]


def test_a_roster_that_is_not_an_export_is_refused_with_what_to_do():
    with pytest.raises(lms.RosterError, match="lacks the columns"):
        lms.fill_roster(lms.CANVAS, "name,score\nada,1\n", [custom("ada", 1)])
    with pytest.raises(lms.RosterError, match="empty"):
        lms.fill_roster(lms.MOODLE, "", [custom("ada", 1)])
    with pytest.raises(lms.RosterError, match="one assignment"):
        lms.fill_roster(lms.CANVAS, CANVAS_EXPORT, [custom("ada", 1), custom("ada", 1, "jacobians")])


# --------------------------------------------------------------------------- Moodle

MOODLE_EXPORT = """\
First name,Last name,ID number,Institution,Department,Email address,Assignment: Custom gradients (Real),Last downloaded from this course
Ada,Lovelace,1001,Uni,CS,ada@example.edu,,1764583200
Bram,Stoker,1002,Uni,CS,bram.stoker@example.edu,,1764583200
"""


def test_moodle_gradebook_maps_students_by_their_email_or_id_number_and_lists_the_rest():
    results = [custom("ada", 8), custom("1002", 7), custom("zoe", 3)]
    filled = lms.fill_roster(lms.MOODLE, MOODLE_EXPORT, results, column="Assignment: Custom gradients (Real)")
    rows = list(csv.DictReader(io.StringIO(filled.text)))
    assert list(rows[0]) == ["First name", "Last name", "ID number", "Email address",
                             "Assignment: Custom gradients (Real)"]
    # Moodle's import maps one column to a user field and aborts on an unknown user: only roster users are written.
    assert [(r["Email address"], r["Assignment: Custom gradients (Real)"]) for r in rows] == [
        ("ada@example.edu", "8"), ("bram.stoker@example.edu", "7")]
    assert filled.matched == {"ada": "Email address", "1002": "ID number"} and filled.not_in_roster == ["zoe"]


# --------------------------------------------------------------------------- the CLI

def test_merge_fills_a_canvas_export_and_lists_who_is_missing(tmp_path: Path):
    golden = json.loads((ROOT / "tests" / "fixtures" / "example_class_seed1.json").read_text())
    custom_only = [item for item in golden if item["assignment"] == "custom_gradients"]
    (tmp_path / "results.json").write_text(json.dumps(custom_only))
    (tmp_path / "export.csv").write_text(CANVAS_EXPORT)
    done = run_autograder("merge", str(tmp_path / "results.json"), "--format", "canvas", "--roster",
                          str(tmp_path / "export.csv"), "--lms-column", "Custom gradients (1234)", timeout=120)
    assert done.returncode == 0, done.stderr
    students = read_as_canvas(done.stdout)[2]
    by_student = {item["student"]: item["score"] for item in custom_only}
    assert students["101"]["Custom gradients (1234)"] == f"{by_student['ada']:g}"
    assert students["102"]["Custom gradients (1234)"] == f"{by_student['bram']:g}"
    unmatched = sorted(set(by_student) - {"ada", "bram"})
    assert re.search(rf"{len(unmatched)} graded students are not in the roster .*: {'; '.join(unmatched)}\n",
                     done.stderr)
    assert "roster students have no submission" in done.stderr and "Student, Test" in done.stderr
    refused = run_autograder("merge", str(tmp_path / "results.json"), "--format", "moodle", timeout=120)
    assert refused.returncode == 2 and "--roster EXPORT.csv" in refused.stderr
    # A roster that is not the LMS's export is said before anything is graded.
    (tmp_path / "names.csv").write_text("name,score\nada,1\n")
    wrong = run_autograder("grade", str(ROOT / "examples"), "--format", "canvas", "--roster",
                           str(tmp_path / "names.csv"), timeout=120)
    assert wrong.returncode == 2 and "the roster lacks the columns" in wrong.stderr and wrong.stdout == ""
