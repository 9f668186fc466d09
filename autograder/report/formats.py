"""Writers for other tools: Gradescope, JUnit XML, a CSV gradebook, GitHub Classroom.

Every writer reads the result model (``SubmissionResult`` / ``ExerciseResult``) and never
recomputes a score: an exercise's points are ``round(exercise.score, 4)`` as in the
contract's JSON, and a submission's total is ``SubmissionResult.score``.

- ``gradescope``: Gradescope's ``results.json`` for ONE submission (Gradescope grades one
  student at a time). One test per exercise, ``status`` "passed" only for full marks,
  ``output`` = the feedback. Given several submissions the writer refuses
  (``ValueError``; the CLI says so before grading) rather than guess which one counts:
  ``autograder gradescope-bundle`` makes that choice inside Gradescope.
- ``junit``: one ``<testsuite>`` per submission, one ``<testcase>`` per exercise.
- ``csv``: a wide gradebook, one row per student.
- ``classroom``: GitHub Classroom's runner result (what ``autograding-grading-reporter`` reads).
"""
from __future__ import annotations

import base64
import csv
import io
import json
import math
import os
import re
import xml.etree.ElementTree as ET
from typing import Iterable, Mapping

from autograder.course import ASSIGNMENT_IDS
from autograder.model.results import ExerciseResult, Status, SubmissionResult
from autograder.report.feedback_text import feedback_text
from autograder.report.numbers import number, points
from autograder.report.safe_text import line, spreadsheet, text
from autograder.report.text import submission_text

FORMATS = ("gradescope", "junit", "csv", "classroom")
# Gradescope's allowed values (gradescope-autograders.readthedocs.io, "Autograder Specifications").
VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")
OUTPUT_FORMATS = ("text", "html", "simple_format", "md", "ansi")
CLASSROOM_MESSAGE_LIMIT = 4000  # characters per test: the result travels base64'd through an environment variable


# --------------------------------------------------------------------------- Gradescope

def gradescope_results(result: SubmissionResult, seed: int | None = None, seconds: float | None = None,
                       visibility: str = "visible", preamble: Iterable[str] = ()) -> dict:
    """Gradescope's results.json for one submission.

    Students read it: it never shows the seed (``seed`` is accepted and left out; run_autograder's own
    log, which only instructors see, names it), and every text in it is safe (``safe_text``). The top-level ``score`` is the submission's total (as the contract's JSON); each test's
    ``score`` is that exercise's points rounded to 4 decimals, so the tests add up to the
    total up to that rounding (at most 0.0001 per exercise). ``status`` is "passed" for full
    marks and "failed" otherwise (partial credit included: the points say how much).
    """
    if visibility not in VISIBILITIES:
        raise ValueError(f"visibility must be one of {', '.join(VISIBILITIES)}, not {visibility!r}")
    seconds = result.seconds if seconds is None else seconds
    heading = f"{line(result.assignment)}: {number(result.score)} / {number(result.max_score)}"
    output = [*map(text, preamble), heading, *(f"Note: {line(note)}" for note in result.notes)]
    if not result.exercises:
        output.append("Nothing was graded.")
    tests = [{
        "name": line(exercise.id),
        "number": str(index),
        "score": points(exercise.score),
        "max_score": exercise.max_score,
        "status": "passed" if exercise.status == "passed" else "failed",
        "output": _exercise_output(exercise),
        "output_format": "text",
        "tags": [line(p) for p in exercise.pitfalls],
        "visibility": visibility,
        "extra_data": {"status": exercise.status, "pitfalls": [line(p) for p in exercise.pitfalls]},
    } for index, exercise in enumerate(result.exercises, start=1)]
    return {
        "score": result.score,
        "execution_time": max(0, math.ceil(seconds)),
        "output": "\n".join(output),
        "output_format": "text",
        "test_output_format": "text",
        "test_name_format": "text",
        "visibility": visibility,
        "stdout_visibility": "hidden",  # run_autograder's stdout is for instructors (debugging)
        "extra_data": {"submission": line(result.submission), "student": line(result.student),
                       "assignment": line(result.assignment), "max_score": result.max_score},
        "tests": tests,
    }


def to_gradescope(results: list[SubmissionResult], seed: int | None = None) -> str:
    if len(results) != 1:
        raise ValueError(f"Gradescope's results.json holds one submission; got {len(results)}")
    return json.dumps(gradescope_results(results[0], seed), indent=2) + "\n"


def _exercise_output(exercise: ExerciseResult) -> str:
    head = f"{exercise.status}: {number(exercise.score)} / {number(exercise.max_score)} points"
    if exercise.pitfalls:
        head += f"\nPitfalls: {', '.join(line(p) for p in exercise.pitfalls)}"
    feedback = text(feedback_text(exercise))
    return head + (f"\n\n{feedback}" if feedback else "")


# --------------------------------------------------------------------------- JUnit XML

# XML 1.0 cannot hold these characters at all, even escaped; student output can contain them (ANSI colours).
_XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
JUNIT_ERRORS = {"error", "timeout"}  # it raised, or ran out of time


def to_junit(results: Iterable[SubmissionResult], seed: int | None = None) -> str:
    """JUnit XML: one <testsuite> per submission, one <testcase> per exercise.

    Written with the standard library's ElementTree: the format is a few elements, and a
    writer without dependencies runs wherever the grader runs. (Readers such as junitparser,
    Jenkins or GitLab read it back; the tests read it with junitparser.)

    - ``classname`` is ``student/assignment``, ``name`` the exercise id; the suite's
      ``name`` is the submission's path (unique even when a student submitted twice).
    - passed: a plain testcase. partial, failed, missing, not-implemented: ``<failure>``
      (``type`` = the status, ``message`` = points and pitfalls, text = the feedback).
      error, timeout: ``<error>``. Nothing is ``<skipped>``: every exercise is worth points,
      and a skipped test reads as harmless on CI dashboards, while a missing function cost
      the student its points.
    - A submission with no exercises (its assignment could not be told) gets one
      ``<error>`` testcase, so that its suite is not an empty, green one.
    - Points: the suite's properties hold ``student``, ``assignment``, ``score``,
      ``max_score`` and ``seed`` (when known: merged results have none); an exercise's
      points are in its failure or error ``message`` ("partial: 1.3333 / 2 points
      [pitfalls]"), or in its ``<system-out>`` when it passed. (No ``<properties>`` inside a
      testcase: strict JUnit schemas reject them.)
    """
    root = ET.Element("testsuites", name="autograder")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    total_time = 0.0
    for result in results:
        suite = ET.SubElement(root, "testsuite", name=_xml(result.submission))
        properties = ET.SubElement(suite, "properties")
        for key, value in (("student", result.student), ("assignment", result.assignment),
                           ("score", number(result.score)), ("max_score", number(result.max_score)),
                           ("seed", None if seed is None else str(seed))):
            if value is not None:  # merged results carry no seed
                ET.SubElement(properties, "property", name=key, value=_xml(value))
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        classname = f"{result.student}/{result.assignment}"
        exercises = result.exercises or [ExerciseResult("assignment", 0.0, 0.0, Status.ERROR, [],
                                                        "; ".join(result.notes) or "nothing was graded")]
        for exercise in exercises:
            case = ET.SubElement(suite, "testcase", name=_xml(exercise.id), classname=_xml(classname), time="0")
            counts["tests"] += 1
            message = f"{exercise.status}: {number(exercise.score)} / {number(exercise.max_score)} points"
            if exercise.pitfalls:
                message += f" [{', '.join(exercise.pitfalls)}]"
            if exercise.status in JUNIT_ERRORS:
                tag, key = "error", "errors"
            elif exercise.status != "passed":  # partial, failed, missing, not-implemented
                tag, key = "failure", "failures"
            else:
                ET.SubElement(case, "system-out").text = _xml(message)
                continue
            counts[key] += 1
            problem = ET.SubElement(case, tag, message=_xml(message), type=exercise.status)
            problem.text = _xml(feedback_text(exercise))
        if result.notes:
            ET.SubElement(suite, "system-err").text = _xml("\n".join(line(note) for note in result.notes))
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
        suite.set("time", f"{result.seconds:.3f}")
        total_time += result.seconds
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("time", f"{total_time:.3f}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _xml(value: str) -> str:
    """Text XML can hold and a dashboard shows as written: ``safe_text.text`` (controls, surrogates, bidi
    overrides escaped), then anything XML 1.0 still cannot hold."""
    return _XML_ILLEGAL.sub(lambda match: f"\\x{ord(match.group()):02x}", text(value))


# --------------------------------------------------------------------------- CSV gradebook

def to_csv(results: Iterable[SubmissionResult], seed: int | None = None) -> str:
    """A wide gradebook: one row per student, what spreadsheets and LMS imports expect.

    Columns: ``student``; then, per assignment in the contract's order, one column per
    exercise (``<assignment>:<exercise>``, its points) and the assignment's total
    (``<assignment>``); then ``total`` and ``max_score``. A cell is empty where the student
    submitted nothing for that assignment; ``total`` counts it as 0 and ``max_score`` is the
    same for every row (the points of every assignment in the file), so ``total / max_score``
    is the grade. A student with two submissions for one assignment gets one row per
    submission, labelled by its path (as the class table does). A label that a spreadsheet
    would run as a formula (starting with =, +, -, @, a tab or a carriage return: OWASP's CSV
    injection guidance) is prefixed with a single quote, and its control characters are escaped.
    """
    results = list(results)
    order = {assignment: n for n, assignment in enumerate(ASSIGNMENT_IDS)}
    assignments = sorted({r.assignment for r in results}, key=lambda a: (order.get(a, len(order)), a))
    exercises: dict[str, list[str]] = {assignment: [] for assignment in assignments}
    maxima: dict[str, float] = {}
    for result in results:
        for exercise in result.exercises:
            if exercise.id not in exercises[result.assignment]:
                exercises[result.assignment].append(exercise.id)
        maxima[result.assignment] = max(maxima.get(result.assignment, 0.0), result.max_score)
    twice = {key for key in {(r.student, r.assignment) for r in results}
             if sum((r.student, r.assignment) == key for r in results) > 1}
    rows: dict[str, dict[str, str]] = {}
    totals: dict[str, float] = {}
    for result in results:
        label = result.submission if (result.student, result.assignment) in twice else result.student
        row = rows.setdefault(label, {"student": spreadsheet(label)})
        for exercise in result.exercises:
            row[f"{result.assignment}:{exercise.id}"] = number(exercise.score)
        row[result.assignment] = number(result.score)
        totals[label] = totals.get(label, 0.0) + result.score
    columns = ["student"]
    for assignment in assignments:
        columns += [f"{assignment}:{exercise}" for exercise in exercises[assignment]] + [assignment]
    header = {column: spreadsheet(column) for column in columns + ["total", "max_score"]}
    columns += ["total", "max_score"]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, restval="", lineterminator="\n")
    writer.writerow(header)
    max_score = number(sum(maxima.values()))
    for label in sorted(rows):
        writer.writerow({**rows[label], "total": number(totals[label]), "max_score": max_score})
    return buffer.getvalue()



# --------------------------------------------------------------------------- GitHub Classroom

def classroom_result(results: Iterable[SubmissionResult]) -> dict:
    """The runner result that GitHub Classroom's ``autograding-grading-reporter`` reads.

    Its shape is the one the ``classroom-resources/autograding-*-grader`` actions emit:
    ``{"version": 1, "status": "pass"|"fail"|"error", "max_score", "tests": [{"name",
    "status", "score", "message", "test_code", "filename", "line_no", "duration"}]}``. The
    reporter adds up the tests' ``score`` for the points it reports, so each exercise
    carries its partial credit. A test's status is "pass" for full marks, "error" when the
    function raised or timed out, else "fail"; the result's status is "pass" only when every
    test passed (the reporter fails the run otherwise, as Classroom does for any lost point).
    """
    results = list(results)
    several = len({r.assignment for r in results}) < len(results)
    tests = []
    for result in results:
        prefix = (f"{result.submission}: " if several else f"{result.assignment}: ") if len(results) > 1 else ""
        if not result.exercises:
            tests.append({"name": line(f"{prefix}{result.submission}"), "status": "error", "score": 0,
                          "max_score": 0, "message": _limit(line("; ".join(result.notes) or "nothing was graded")),
                          "test_code": "", "filename": line(result.submission), "line_no": 0, "duration": 0})
        for exercise in result.exercises:
            status = "pass" if exercise.status == "passed" else "error" if exercise.status in JUNIT_ERRORS else "fail"
            tests.append({
                "name": line(f"{prefix}{exercise.id}"),
                "status": status,
                "score": points(exercise.score),
                "max_score": exercise.max_score,
                "message": _limit(_exercise_output(exercise)),
                "test_code": line(f"autograder grade {result.submission} --assignment {result.assignment}"),
                "filename": line(result.submission),
                "line_no": 0,
                "duration": 0,
            })
    statuses = {test["status"] for test in tests}
    overall = "error" if not tests or statuses == {"error"} else "pass" if statuses == {"pass"} else "fail"
    return {"version": 1, "status": overall, "max_score": sum(r.max_score for r in results), "tests": tests}


def classroom_encoded(results: Iterable[SubmissionResult]) -> str:
    return base64.b64encode(json.dumps(classroom_result(results)).encode("utf-8")).decode("ascii")


def to_classroom(results: list[SubmissionResult], seed: int | None = None) -> str:
    """What a run's log shows (students read it): each submission's feedback, then the points as the reporter
    counts them; never the seed (``seed`` is accepted and left out)."""
    result = classroom_result(results)
    total = sum(test["score"] for test in result["tests"])
    details = "\n".join(submission_text(r) for r in results)
    return details + f"Points {number(total)}/{number(result['max_score'])}\n"


def publish_classroom(results: list[SubmissionResult], environ: Mapping[str, str] = os.environ) -> str | None:
    """Append ``result=<base64 JSON>`` to $GITHUB_OUTPUT (a step's outputs file) when it is set.

    Returns the file written, or None outside GitHub Actions.
    """
    target = environ.get("GITHUB_OUTPUT")
    if not target:
        return None
    with open(target, "a", encoding="utf-8") as handle:
        handle.write(f"result={classroom_encoded(results)}\n")
    return target


def decode_classroom(encoded: str) -> dict:
    return json.loads(base64.b64decode(encoded))


def _limit(text: str, limit: int = CLASSROOM_MESSAGE_LIMIT) -> str:
    return text if len(text) <= limit else text[:limit - 40].rstrip() + "\n… (cut; run the grader for the rest)"


# --------------------------------------------------------------------------- dispatch

WRITERS = {"gradescope": to_gradescope, "junit": to_junit, "csv": to_csv, "classroom": to_classroom}


def render(fmt: str, results: list[SubmissionResult], seed: int | None = None) -> str:
    return WRITERS[fmt](results, seed=seed)
