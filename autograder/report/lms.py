"""The kit's totals written into an LMS's own gradebook export, ready to import back (Canvas, Moodle).

The instructor exports the course's gradebook (Canvas: Grades > Export; Moodle: Grades > Export > Plain
text file) and gives it as ``--roster``; the writer keeps the roster's student columns, drops every other
grade column (so that an import changes nothing but this one), and fills one column with each student's
points. Canvas's importer wants the leading columns ``Student, ID, SIS User ID, SIS Login ID, Section``,
an assignment column titled ``Name (id)`` for an existing assignment (a title without ``(id)`` creates a
new one) and reads the ``Points Possible`` row under the header; it matches a row by Canvas ID, then the
SIS ids, then the name. Moodle maps one column to a user field (username, ID number or email) and aborts
the whole import on one unknown user, so only roster students are ever written.

Matching: each graded student's id (nbgrader's folder name, or the file's name) is looked up in the
roster's fields in order (Canvas: ``SIS Login ID``, then ``SIS User ID``, then ``Student``; Moodle:
``Username``, then ``ID number``, then ``Email address``; or the one field ``--match-by`` names), case and
surrounding spaces aside; an email also matches by its part before the ``@``. Graded students the roster
lacks, and roster students with no submission, are returned (the CLI lists them on stderr): nobody is
dropped silently. A student graded twice for one assignment gets the higher score, and the note says so.
"""
from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field

from autograder.model.results import SubmissionResult
from autograder.report.numbers import exact, number
from autograder.report.safe_text import FORMULA_STARTS, line, spreadsheet

CANVAS_ASSIGNMENT = re.compile(r"\A(.*)\s\((\d+)\)\Z")  # Canvas's "Name (id)" header
CANVAS_POINTS_ROW = "Points Possible"
# Identifiers are written as exported (an import matches on them); every other cell is neutralised as a
# spreadsheet formula (OWASP's CSV injection guidance). A row whose identifier a spreadsheet would run as a
# formula (a student's own editable e-mail address "=HYPERLINK(...)@example.com") cannot be both neutralised
# and matched: it is left out, and a note says whose points to enter by hand.
IDENTIFIERS = {"ID", "SIS User ID", "SIS Login ID", "Integration ID", "Username", "ID number", "Email address"}


class RosterError(ValueError):
    """The roster cannot be used (not a CSV export of this LMS): what is wrong, said for the instructor."""


@dataclass(frozen=True)
class Layout:
    """One LMS's export: the columns that identify a student and the order they are matched in."""
    name: str
    leading: tuple[str, ...]  # kept in the output, in this order, where the roster has them
    required: tuple[str, ...]  # the roster must have these
    match_order: tuple[str, ...]
    name_columns: tuple[str, ...]  # a student's name, as the stderr lists show it
    canvas_rules: bool  # the "Points Possible" row, rows of no student, assignment columns titled "Name (id)"


CANVAS = Layout("canvas", ("Student", "ID", "SIS User ID", "SIS Login ID", "Integration ID", "Section"),
                ("Student", "ID", "SIS User ID", "SIS Login ID", "Section"),
                ("SIS Login ID", "SIS User ID", "Student"), ("Student",), canvas_rules=True)
MOODLE = Layout("moodle", ("First name", "Last name", "Username", "ID number", "Email address"),
                (), ("Username", "ID number", "Email address"), ("First name", "Last name"), canvas_rules=False)
LAYOUTS = {"canvas": CANVAS, "moodle": MOODLE}


@dataclass
class Filled:
    text: str  # the CSV to import
    column: str
    matched: dict[str, str] = field(default_factory=dict)  # graded student -> the roster field it matched by
    not_in_roster: list[str] = field(default_factory=list)
    without_submission: list[str] = field(default_factory=list)  # roster rows (their display name)
    notes: list[str] = field(default_factory=list)


def _key(value: str) -> str:
    return " ".join(value.split()).casefold()


def read_roster(layout: Layout, roster: str) -> tuple[list[str], list[dict[str, str]], dict[str, str] | None]:
    """The roster's header, its student rows, and (Canvas) its Points Possible row."""
    rows = list(csv.reader(io.StringIO(roster.lstrip("\ufeff"))))
    if not rows or not any(rows[0]):
        raise RosterError("the roster is empty: give the gradebook export of the course (a CSV file)")
    header = [cell.strip() for cell in rows[0]]
    lacking = [column for column in layout.required if column not in header]
    if lacking:
        raise RosterError(f"the roster lacks the column{'s' if len(lacking) > 1 else ''} {', '.join(lacking)}: "
                          f"export the {layout.name.capitalize()} gradebook as it is (its header row: "
                          f"{', '.join(header[:6])}...)")
    if not any(column in header for column in layout.match_order):
        raise RosterError(f"the roster has none of the columns students are matched by "
                          f"({', '.join(layout.match_order)}): include one in the export")
    points, students = None, []
    for cells in rows[1:]:
        record = {column: (cells[i].strip() if i < len(cells) else "") for i, column in enumerate(header)}
        first = record.get(header[0], "")
        if layout.canvas_rules and CANVAS_POINTS_ROW in first:
            points = record
        elif layout.canvas_rules and not first and not record.get("ID"):
            continue  # Canvas's "Manual Posting" row and other rows of no student
        elif any(record.values()):
            students.append(record)
    return header, students, points


def assignment_column(layout: Layout, header: list[str], assignment: str, wanted: str | None) -> str:
    """The column to fill: the one named ``wanted`` (added when the roster has none), else an existing
    column whose title, without Canvas's ``(id)``, is the assignment's id, else a new one titled so."""
    if wanted:
        return wanted
    for column in header:
        match = CANVAS_ASSIGNMENT.match(column) if layout.canvas_rules else None
        title = match.group(1) if match else column
        if _key(title) == _key(assignment):
            return column
    return assignment


def best_per_student(results: list[SubmissionResult]) -> tuple[dict[str, SubmissionResult], list[str]]:
    best: dict[str, SubmissionResult] = {}
    notes = []
    for result in results:
        kept = best.get(result.student)
        if kept is not None:
            notes.append(f"{line(result.student)} has several submissions: the higher score counts "
                         f"({number(max(kept.score, result.score))})")
        if kept is None or result.score > kept.score:
            best[result.student] = result
    return best, notes


def _match(student: str, students: list[dict[str, str]], fields: tuple[str, ...]) -> tuple[int, str] | None:
    wanted = _key(student)
    for name in fields:
        hits = [i for i, row in enumerate(students)
                if name in row and row[name] and (_key(row[name]) == wanted
                                                  or (name == "Email address" and _key(row[name].split("@")[0]) == wanted))]
        if len(hits) == 1:
            return hits[0], name
    return None


def fill_roster(layout: Layout, roster: str, results: list[SubmissionResult], column: str | None = None,
                match_by: str | None = None) -> Filled:
    """The roster with one column of points filled in (see the module's docstring)."""
    assignments = sorted({r.assignment for r in results})
    if len(assignments) > 1:
        raise RosterError(f"one LMS column holds one assignment; these results hold {', '.join(assignments)}: "
                          "grade (or merge) one assignment at a time")
    header, students, points = read_roster(layout, roster)
    fields = (match_by,) if match_by else tuple(f for f in layout.match_order if f in header)
    if match_by and match_by not in header:
        raise RosterError(f"--match-by {match_by!r}: the roster has no such column "
                          f"(its columns: {', '.join(header)})")
    title = assignment_column(layout, header, assignments[0] if assignments else "autograder", column)
    best, notes = best_per_student(results)
    filled = Filled("", title, notes=notes)
    scores: dict[int, str] = {}
    owners: dict[int, str] = {}  # roster row -> the graded student it holds the points of
    for student, result in sorted(best.items()):
        found = _match(student, students, fields)
        if found is None:
            filled.not_in_roster.append(student)
            continue
        index, by = found
        if index in scores:
            filled.notes.append(f"{line(student)} matches a roster row already filled: left as it was")
            continue
        scores[index] = exact(result.score)
        owners[index] = student
        filled.matched[student] = by
    filled.without_submission = [" ".join(row.get(n, "") for n in layout.name_columns).strip()
                                 or row.get(fields[0], "?") for i, row in enumerate(students) if i not in scores]
    # Canvas: its leading columns in its order; Moodle: the user fields in the export's order
    kept = [c for c in layout.leading if c in header] if layout.canvas_rules else [c for c in header
                                                                                    if c in layout.leading]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([spreadsheet(c) for c in [*kept, title]])
    if layout.canvas_rules:
        maximum = max((r.max_score for r in results), default=0.0)
        marker = (points or {}).get(header[0], "") or f"    {CANVAS_POINTS_ROW}"
        writer.writerow([marker, *[spreadsheet((points or {}).get(c, "")) for c in kept[1:]], exact(maximum)])
    for index, row in enumerate(students):
        formulas = [c for c in kept if c in IDENTIFIERS and row.get(c, "").startswith(FORMULA_STARTS)]
        if formulas:
            filled.matched.pop(owners.get(index, ""), None)
            _refuse(filled, layout, row, formulas, scores.get(index))
            continue
        writer.writerow([row.get(c, "") if c in IDENTIFIERS else spreadsheet(row.get(c, "")) for c in kept]
                        + [scores.get(index, "")])
    filled.text = buffer.getvalue()
    return filled


def _refuse(filled: Filled, layout: Layout, row: dict[str, str], formulas: list[str], points: str | None) -> None:
    """Leave a roster row out: an identifier of it would run as a formula, and neutralised it would not match."""
    name = " ".join(row.get(n, "") for n in layout.name_columns).strip() or "a student"
    filled.notes.append(f"the roster row of {line(name)} is left out of the file: its {', '.join(formulas)} starts "
                        "with a character a spreadsheet runs as a formula (=, +, -, @, a tab or a carriage return; "
                        f"OWASP), and the import must match it as it is: enter {points or 'its points'} by hand")
