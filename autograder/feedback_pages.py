"""Feedback pages: one HTML page per submission (a student's work on one assignment), and an index.

Layout, as nbgrader's ``feedback/<student>/<assignment>/``::

    DIR/index.html                      for the instructor: every page of this run, with scores
    DIR/<student>/<assignment>.html     for the student: hand each student their own folder

One page per submission rather than one per student: grading assignment 2 a week
after assignment 1 into the same DIR adds pages beside the old ones instead of
overwriting a student's page with half of it. (index.html lists this run's pages.)

The pages read offline: no script, no external CSS, fonts or images; the CSS is
inline and a Content-Security-Policy forbids everything else, so a page shows the
same thing on a laptop, an LMS or a USB stick. Everything that comes from a
submission (names, paths, error messages, code) is HTML-escaped.

Only the result model is read (the contract's JSON gives the same pages); the
feedback text is laid out, not rewritten: the grader's explanation and fix for each
pitfall (``[id] ...``, ``Where:``, ``Fix:``), the per-case details in monospace. Where
a static check points at a line, the student's own lines around it are shown, read
(never run) from the submission when it is still there and still has that line.
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from autograder.exercises import ASSIGNMENT_IDS
from autograder.journal import write_atomically
from autograder.loader import SubmissionSource, read_submission
from autograder.pitfalls import CATALOGUE
from autograder.reports import MARKS
from autograder.results import PITFALLS, SubmissionResult

__all__ = ["write_feedback_pages", "feedback_page", "page_paths", "parse_feedback", "page", "esc", "inline",
           "score_text", "slug", "CSP"]

# Nothing but inline styles and same-folder images: no script, no remote anything.
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'"

STYLE = """
:root { color-scheme: light; --ink: #1b1b1b; --muted: #555; --line: #d0d0d0; --soft: #f5f5f2; }
body { font: 16px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: var(--ink);
       max-width: 62rem; margin: 1.5rem auto; padding: 0 1rem; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; } h2 { font-size: 1.3rem; margin-top: 2rem; }
h3 { font-size: 1.1rem; } .meta { color: var(--muted); margin-top: 0; }
code, pre { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: .88rem; }
code { background: var(--soft); padding: 0 .2em; border-radius: 3px; }
pre { background: var(--soft); border: 1px solid var(--line); padding: .6rem .8rem; overflow-x: auto;
      line-height: 1.35; }
pre code { background: none; padding: 0; }
table { border-collapse: collapse; margin: .8rem 0; }
th, td { border: 1px solid var(--line); padding: .3rem .6rem; text-align: left; vertical-align: top; }
th { background: var(--soft); } td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
caption { text-align: left; font-weight: 600; padding-bottom: .3rem; }
.status { font-weight: 600; white-space: nowrap; }
.passed { color: #1a6e2e; } .partial { color: #8a5a00; } .failed, .error, .timeout { color: #a3161a; }
.missing, .not-implemented, .unknown { color: #555; }
section.exercise { border-top: 2px solid var(--line); margin-top: 1.6rem; }
.pitfall { border-left: 5px solid #c47f00; background: #fff8eb; padding: .5rem .9rem; margin: .8rem 0; }
.pitfall h4 { margin: .2rem 0 .4rem; font-size: 1rem; }
.where { border-left: 3px solid #a3161a; padding-left: .7rem; margin: .5rem 0; }
.where pre mark { background: #ffd9d9; color: inherit; font-weight: 600; }
.fix { background: #eaf6ec; border-left: 3px solid #1a6e2e; padding: .3rem .6rem; }
.note { background: #fdecec; border-left: 4px solid #a3161a; padding: .4rem .8rem; }
.case-title { margin-bottom: .2rem; font-weight: 600; }
.case pre { white-space: pre-wrap; overflow-wrap: anywhere; }
figure { margin: 1rem 0; } figcaption { color: var(--muted); }
img { max-width: 100%; height: auto; }
.plot { display: flex; flex-wrap: wrap; gap: 0 1.5rem; align-items: flex-start; }
.plot figure { flex: 0 1 640px; } .wide { overflow-x: auto; }
"""


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def page(title: str, body: str, lang: str = "en") -> str:
    """A complete offline HTML document: inline CSS, and a policy that allows nothing else."""
    return (f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{esc(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n")


def score_text(value: float) -> str:
    return f"{value:g}"


_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def inline(text: str) -> str:
    """Escape a line of feedback; `backticked` parts become <code>."""
    parts = _CODE_SPAN.split(text)
    return "".join(f"<code>{esc(part)}</code>" if i % 2 else esc(part) for i, part in enumerate(parts))


# --------------------------------------------------------------------------- reading the feedback text

_PITFALL_LINE = re.compile(r"^\[([a-z0-9/-]+)\] (.*)$")
_CASE_LINE = re.compile(r"^(?:Hidden case|Case) .*:$")
_WHERE = re.compile(r"^(?:cell (\d+), )?line (\d+)(?:: `(.*)`)?$")


@dataclass
class Where:
    place: str  # "cell 11, line 11: `code`" as the grader wrote it
    details: list[str] = field(default_factory=list)  # what the static reading saw there
    cell: int | None = None
    line: int | None = None
    code: str | None = None


@dataclass
class PitfallBlock:
    id: str
    text: str
    wheres: list[Where] = field(default_factory=list)
    fix: list[str] = field(default_factory=list)
    other: list[str] = field(default_factory=list)  # indented lines that are neither (kept, never dropped)


@dataclass
class CaseBlock:
    title: str
    body: list[str] = field(default_factory=list)


@dataclass
class TextLine:
    text: str


def parse_feedback(text: str) -> list[TextLine | PitfallBlock | CaseBlock]:
    """The grader's feedback as blocks; every line lands in exactly one block."""
    blocks: list[TextLine | PitfallBlock | CaseBlock] = []
    current = None
    for line in text.splitlines():
        pitfall = _PITFALL_LINE.match(line)
        if pitfall and pitfall.group(1) in PITFALLS:
            current = PitfallBlock(pitfall.group(1), pitfall.group(2))
            blocks.append(current)
        elif _CASE_LINE.match(line):
            current = CaseBlock(line)
            blocks.append(current)
        elif isinstance(current, PitfallBlock) and line.startswith("  "):
            stripped = line.strip()
            if line.startswith("  Where: "):
                place = line[len("  Where: "):].strip()
                where = Where(place)
                found = _WHERE.match(place)
                if found:
                    where.cell = int(found.group(1)) if found.group(1) else None
                    where.line = int(found.group(2))
                    where.code = found.group(3)
                current.wheres.append(where)
            elif line.startswith("  Fix: "):
                current.fix.append(line[len("  Fix: "):].strip())
            elif line.startswith("    ") and current.wheres and not current.fix:
                current.wheres[-1].details.append(stripped)
            elif current.fix:
                current.fix.append(stripped)
            else:
                current.other.append(stripped)
        elif isinstance(current, CaseBlock) and line.startswith("    "):
            current.body.append(line[4:])
        else:
            current = None
            blocks.append(TextLine(line))
    return blocks


# --------------------------------------------------------------------------- the student's own lines

_LINE_NUMBERS = re.compile(r"\blines? (\d+)(?:-(\d+))?")
CONTEXT_LINES = 3
MAX_EXCERPT_LINES = 30


class Sources:
    """Submissions read (not run) once each, to show the lines a static check points at."""

    def __init__(self):
        self._cache: dict[str, SubmissionSource | None] = {}

    def get(self, submission: str) -> SubmissionSource | None:
        if submission not in self._cache:
            path = Path(submission)
            source = None
            if path.suffix in (".ipynb", ".py") and path.is_file():
                source = read_submission(path)
                if source.problem:
                    source = None
            self._cache[submission] = source
        return self._cache[submission]

    def excerpt(self, submission: str, where: Where) -> tuple[int, list[str]] | None:
        """(first line number, lines) around ``where``, or None when the file no longer has that line."""
        source = self.get(submission) if where.line is not None else None
        if source is None:
            return None
        cell = source.cell(where.cell) if where.cell is not None else (source.cells[0] if source.cells else None)
        if cell is None or (source.kind == "notebook") != (where.cell is not None):
            return None
        lines = cell.source.splitlines()
        if not 0 < where.line <= len(lines):
            return None
        if where.code is not None and lines[where.line - 1].strip() != where.code.strip():
            return None  # the file changed since grading: show only what the grader quoted
        wanted = [where.line]
        for detail in where.details:  # "the block ends (lines 6-10) ... on line 12": show those too
            for start, end in _LINE_NUMBERS.findall(detail):
                wanted += [int(start), int(end or start)]
        wanted = [n for n in wanted if 0 < n <= len(lines) and abs(n - where.line) <= MAX_EXCERPT_LINES]
        first = max(1, min(wanted) - CONTEXT_LINES)
        last = min(len(lines), max(wanted) + CONTEXT_LINES)
        return first, lines[first - 1:last]


# --------------------------------------------------------------------------- one page

def _status(status: str) -> str:
    return f'<span class="status {esc(status)}">{esc(MARKS.get(status, ""))} {esc(status)}</span>'


def _anchor(exercise_id: str) -> str:
    return "ex-" + re.sub(r"[^A-Za-z0-9_-]", "_", exercise_id)


def _where_html(where: Where, submission: str, sources: Sources) -> str:
    parts = [f'<div class="where"><p><strong>Where:</strong> {inline(where.place)}</p>']
    excerpt = sources.excerpt(submission, where)
    if excerpt:
        first, lines = excerpt
        width = len(str(first + len(lines) - 1))
        rows = []
        for number, text in enumerate(lines, start=first):
            row = f"{str(number).rjust(width)} │ {esc(text)}"
            rows.append(f"<mark>{row}</mark>" if number == where.line else row)
        label = f"cell {where.cell}" if where.cell is not None else "your file"
        parts.append(f'<pre aria-label="your code, {esc(label)}, line {where.line} marked"><code>'
                     + "\n".join(rows) + "</code></pre>")
    parts += [f"<p>{inline(detail)}</p>" for detail in where.details]
    parts.append("</div>")
    return "".join(parts)


def _pitfall_box(pitfall_id: str, exercise_id: str) -> str:
    return (f'<div class="pitfall" id="{_anchor(exercise_id)}-{esc(pitfall_id)}" data-pitfall="{esc(pitfall_id)}">'
            f"<h4>Pitfall <code>{esc(pitfall_id)}</code></h4>")


def _pitfall_html(block: PitfallBlock, exercise_id: str, submission: str, sources: Sources) -> str:
    parts = [_pitfall_box(block.id, exercise_id),
             f"<p>{inline(block.text)}</p>"]
    parts += [_where_html(where, submission, sources) for where in block.wheres]
    parts += [f"<p>{inline(line)}</p>" for line in block.other]
    if block.fix:
        parts.append(f'<p class="fix"><strong>Fix:</strong> {inline(" ".join(block.fix))}</p>')
    parts.append("</div>")
    return "".join(parts)


def _catalogue_html(pitfall_id: str, exercise_id: str) -> str:
    """A pitfall named in the result but not explained in the feedback text: the catalogue's words."""
    entry = CATALOGUE.get(pitfall_id)
    if entry is None:
        return _pitfall_box(pitfall_id, exercise_id) + "</div>"
    return (_pitfall_box(pitfall_id, exercise_id)
            + f"<p>{inline(entry.what[0].upper() + entry.what[1:])}.</p>"
            f'<p class="fix"><strong>Fix:</strong> {inline(entry.fix)}.</p></div>')


def exercise_html(exercise, submission: str, sources: Sources) -> str:
    parts = [f'<section class="exercise" id="{_anchor(exercise.id)}">',
             f"<h3><code>{esc(exercise.id)}</code> · {score_text(exercise.score)} / {score_text(exercise.max_score)}"
             f" · {_status(exercise.status)}</h3>"]
    blocks = parse_feedback(exercise.feedback)
    explained = {b.id for b in blocks if isinstance(b, PitfallBlock)}
    for block in blocks:
        if isinstance(block, PitfallBlock):
            parts.append(_pitfall_html(block, exercise.id, submission, sources))
        elif isinstance(block, CaseBlock):
            parts.append(f'<div class="case"><p class="case-title">{inline(block.title)}</p>'
                         f"<pre>{esc(chr(10).join(block.body))}</pre></div>")
        elif block.text.strip():
            parts.append(f"<p>{inline(block.text)}</p>")
    parts += [_catalogue_html(p, exercise.id) for p in exercise.pitfalls if p not in explained]
    parts.append("</section>")
    return "\n".join(parts)


def feedback_page(result: SubmissionResult, seed: int | None = None, sources: Sources | None = None) -> str:
    """The page of one submission: a summary table, then each exercise's feedback."""
    sources = sources or Sources()
    title = f"{result.assignment} — feedback for {result.student}"
    body = [f"<h1>{esc(result.assignment)}: {score_text(result.score)} / {score_text(result.max_score)}</h1>",
            f'<p class="meta">Feedback for <strong>{esc(result.student)}</strong> on '
            f"<code>{esc(result.submission)}</code>"
            + (f"; graded with seed {int(seed)}" if seed is not None else "") + ".</p>"]
    body += [f'<p class="note">{inline(note)}</p>' for note in result.notes]
    if result.exercises:
        rows = "".join(
            f'<tr><td><a href="#{_anchor(e.id)}"><code>{esc(e.id)}</code></a></td>'
            f'<td class="num">{score_text(e.score)} / {score_text(e.max_score)}</td><td>{_status(e.status)}</td>'
            f"<td>{', '.join(f'<code>{esc(p)}</code>' for p in e.pitfalls)}</td></tr>"
            for e in result.exercises)
        body.append('<table><caption>Exercises</caption><thead><tr><th scope="col">exercise</th>'
                    '<th scope="col" class="num">score</th><th scope="col">status</th>'
                    f'<th scope="col">pitfalls</th></tr></thead><tbody>{rows}</tbody></table>')
        body.append("<p>Each exercise below says how many of its cases passed, which mistake the grader "
                    "recognised (with where it is in your code and how to fix it) and what went wrong on "
                    "the first failing cases.</p>")
    body += [exercise_html(e, result.submission, sources) for e in result.exercises]
    return page(title, "\n".join(body))


# --------------------------------------------------------------------------- the folder

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
RESERVED = {"index.html", "con", "prn", "aux", "nul"}


def slug(text: str, fallback: str) -> str:
    """A file name made of [A-Za-z0-9._-] only, never empty, hidden, or a reserved name."""
    name = _UNSAFE.sub("_", text).strip("._")[:80] or fallback
    return f"_{name}" if name.lower() in RESERVED else name


def _assignment_order(assignment: str) -> tuple[int, str]:
    return (ASSIGNMENT_IDS.index(assignment) if assignment in ASSIGNMENT_IDS else len(ASSIGNMENT_IDS), assignment)


def page_paths(results: list[SubmissionResult]) -> list[str]:
    """Each result's page, relative to the folder: '<student>/<assignment>.html', unique (case-insensitively)."""
    folders: dict[str, str] = {}  # student -> folder
    used_folders: set[str] = set()
    used_pages: set[str] = set()
    paths = []
    for result in results:
        if result.student not in folders:
            base = slug(result.student, "student")
            folder, n = base, 1
            while folder.lower() in used_folders:
                n += 1
                folder = f"{base}-{n}"
            folders[result.student] = folder
            used_folders.add(folder.lower())
        base = f"{folders[result.student]}/{slug(result.assignment, 'assignment')}"
        name, n = f"{base}.html", 1
        while name.lower() in used_pages:  # the same student submitted twice for one assignment
            n += 1
            name = f"{base}-{n}.html"
        used_pages.add(name.lower())
        paths.append(name)
    return paths


def index_page(results: list[SubmissionResult], paths: list[str], seed: int | None = None) -> str:
    assignments = sorted({r.assignment for r in results}, key=_assignment_order)
    cells: dict[tuple[str, str], list[str]] = {}
    totals: dict[str, list[float]] = {}
    for result, path in zip(results, paths):
        link = (f'<a href="{esc(quote(path))}">{score_text(result.score)} / {score_text(result.max_score)}</a>')
        cells.setdefault((result.student, result.assignment), []).append(link)
        total = totals.setdefault(result.student, [0.0, 0.0])
        total[0] += result.score
        total[1] += result.max_score
    head = "".join(f'<th scope="col" class="num">{esc(a)}</th>' for a in assignments)
    rows = []
    for student in sorted(totals):
        row = "".join(f'<td class="num">{"<br>".join(cells.get((student, a), ["—"]))}</td>' for a in assignments)
        total, maximum = totals[student]
        rows.append(f'<tr><th scope="row">{esc(student)}</th>{row}'
                    f'<td class="num">{score_text(round(total, 4))} / {score_text(maximum)}</td></tr>')
    body = (f"<h1>Feedback pages</h1>"
            f'<p class="meta">{len(results)} submission{"s" if len(results) != 1 else ""}'
            + (f", seed {int(seed)}" if seed is not None else "") + ". "
            "This index is for the instructor: it lists every student's score. Each student's pages are in "
            "their own folder (<code>&lt;student&gt;/&lt;assignment&gt;.html</code>); hand each student only "
            "their folder.</p>"
            f'<table><caption>Scores (each links to the feedback page)</caption><thead><tr>'
            f'<th scope="col">student</th>{head}<th scope="col" class="num">total</th></tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>")
    return page("Feedback pages", body)


def write_feedback_pages(results: list[SubmissionResult], folder: Path, seed: int | None = None) -> list[Path]:
    """Write every submission's page and DIR/index.html; returns the pages written (index last)."""
    folder = Path(folder)
    paths = page_paths(results)
    sources = Sources()
    written = []
    for result, relative in zip(results, paths):
        target = folder / relative
        write_atomically(target, feedback_page(result, seed, sources))
        written.append(target)
    write_atomically(folder / "index.html", index_page(results, paths, seed))
    written.append(folder / "index.html")
    return written
