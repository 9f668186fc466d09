"""JUnit XML: one ``<testsuite>`` per submission, one ``<testcase>`` per exercise (CI dashboards)."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Iterable

from autograder.model.results import ExerciseResult, Status, SubmissionResult
from autograder.report.feedback_text import feedback_text
from autograder.report.numbers import exact, number
from autograder.report.safe_text import line, text

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
    for result in results:
        suite = ET.SubElement(root, "testsuite", name=_xml(result.submission))
        properties = ET.SubElement(suite, "properties")
        for key, value in (("student", result.student), ("assignment", result.assignment),
                           ("score", exact(result.score)), ("max_score", exact(result.max_score)),
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
            message = f"{exercise.status}: {number(exercise.score)} / {number(exercise.max_score)} points" + (
                f" ({exercise.cap})" if exercise.cap else "")
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
        suite.set("time", "0")  # a submission's time is its code's to choose (hidden cases too): not shown
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("time", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _xml(value: str) -> str:
    """Text XML can hold and a dashboard shows as written: ``safe_text.text`` (controls, surrogates, bidi
    overrides escaped), then anything XML 1.0 still cannot hold."""
    return _XML_ILLEGAL.sub(lambda match: f"\\x{ord(match.group()):02x}", text(value))
