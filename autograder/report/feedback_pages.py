"""Feedback pages: one HTML page per submission (a student's work on one assignment), and an index.

Layout, as nbgrader's ``feedback/<student>/<assignment>/``::

    DIR/<student>/<assignment>.html     for the student: hand each student their own folder
    DIR-index.html                      for the instructor, beside DIR: every page of this run, with scores

One page per submission rather than one per student: grading assignment 2 a week
after assignment 1 into the same DIR adds pages beside the old ones instead of
overwriting a student's page with half of it. DIR holds students' folders only (``page_folders``: one per
student, stable, never another's): the index, which lists every score and the seed, is written beside DIR, and
no student's page links to it, so DIR can be handed out or served as it is.

The pages read offline: no script, no external CSS, fonts or images; the CSS is
inline and a Content-Security-Policy forbids everything else, so a page shows the
same thing on a laptop, an LMS or a USB stick; on a phone, tables and code scroll
in their own box (``html.scroll_box``) and the page never scrolls sideways. Everything
that comes from a submission (names, paths, error messages, code) is HTML-escaped.

Each exercise is rendered from its structure: the summary, each pitfall's explanation, where it is (with
the student's own lines around it, as they were when graded) and its fix, then the failing cases. A
result read back from the contract's JSON (``autograder report``) has its feedback as text only: it is
shown as that text, with the catalogue's words for each pitfall it names.
"""
from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from urllib.parse import quote

from autograder.course import ASSIGNMENT_IDS
from autograder.model.pitfalls import CATALOGUE
from autograder.model.results import Advice, CaseReport, Explanation, ExerciseResult, SubmissionResult, Where
from autograder.report.feedback_text import ADVICE_HEAD, advice_lines, case_title, folded, points_text, sentence
from autograder.report.gradebook import gradebook
from autograder.report.html import code_box, esc, inline, page, scroll_box
from autograder.report.numbers import number
from autograder.report.page_folders import index_path, page_paths, slug
from autograder.report.text import MARKS
from autograder.store.atomic import write_atomically

__all__ = ["write_feedback_pages", "feedback_page", "page_paths", "page_links", "slug", "index_path"]
OLD_INDEX = "index.html"  # where the index was before round four (inside DIR): removed when found


# --------------------------------------------------------------------------- one page

def _status(status: str) -> str:
    return f'<span class="status {esc(status)}">{esc(MARKS.get(status, ""))} {esc(status)}</span>'


def _anchor(exercise_id: str) -> str:
    return "ex-" + re.sub(r"[^A-Za-z0-9_-]", "_", exercise_id)


def _where_html(where: Where) -> str:
    place = where.place + (f": `{where.code}`" if where.code else "")
    parts = [f'<div class="where"><p><strong>Where:</strong> {inline(place)}</p>']
    if where.excerpt:
        width = len(str(where.excerpt[-1][0]))
        rows = []
        for line_number, text in where.excerpt:
            row = f"{str(line_number).rjust(width)} │ {esc(text)}"
            rows.append(f"<mark>{row}</mark>" if line_number == where.line else row)
        label = f"cell [{where.cell}]" if where.cell is not None else "your file"
        parts.append(code_box("<code>" + "\n".join(rows) + "</code>", f"your code, {label}, line {where.line} marked"))
    if where.detail:
        parts.append(f"<p>{inline(where.detail)}</p>")
    parts.append("</div>")
    return "".join(parts)


def _pitfall_box(pitfall_id: str, exercise_id: str) -> str:
    return (f'<div class="pitfall" id="{_anchor(exercise_id)}-{esc(pitfall_id)}" data-pitfall="{esc(pitfall_id)}">'
            f"<h4>Pitfall <code>{esc(pitfall_id)}</code></h4>")


def _explanation_html(explanation: Explanation, exercise_id: str) -> str:
    parts = [_pitfall_box(explanation.pitfall, exercise_id), f"<p>{inline(sentence(explanation.text))}</p>"]
    if explanation.where is not None:
        parts.append(_where_html(explanation.where))
    elif explanation.look_for:
        parts.append(f'<div class="where"><p><strong>Look for:</strong> {inline(explanation.look_for)}</p></div>')
    parts.append(f'<p class="fix"><strong>Fix:</strong> {inline(explanation.fix + ".")}</p></div>')
    return "".join(parts)


def _catalogue_html(pitfall_id: str, exercise_id: str) -> str:
    """A pitfall named in the result without an explanation of its own: the catalogue's words."""
    entry = CATALOGUE.get(pitfall_id)
    if entry is None:
        return _pitfall_box(pitfall_id, exercise_id) + "</div>"
    return (_pitfall_box(pitfall_id, exercise_id)
            + f"<p>{inline(sentence(entry.what))}</p>"
            f'<p class="fix"><strong>Fix:</strong> {inline(entry.fix + ".")}</p></div>')


def _advice_html(advice: Advice) -> str:
    lines = advice_lines(advice)
    return (f'<div class="advice"><p><strong>{esc(ADVICE_HEAD)}:</strong> {inline(sentence(advice.text))}</p>'
            f"<p>{inline(lines[1].strip())}</p></div>")


def _case_html(case: CaseReport) -> str:
    """A failing case: its message, the part past its first rows folded in a `<details>` the reader opens."""
    shown, rest = folded(case.message)
    html = (f'<div class="case"><p class="case-title">{inline(case_title(case))}:</p>'
            f"<pre>{esc(chr(10).join(shown))}</pre>")
    if rest:  # the summary says what the text says in its place ("(7 more lines of tables folded)")
        tables = sum(1 for line in rest if line.startswith(" "))
        html += (f"<details><summary>The other outputs ({tables} more lines of tables folded)</summary>"
                 f"<pre>{esc(chr(10).join(rest))}</pre></details>")
    return html + "</div>"


def exercise_html(exercise: ExerciseResult) -> str:
    parts = [f'<section class="exercise" id="{_anchor(exercise.id)}">',
             f"<h3><code>{esc(exercise.id)}</code> · {inline(points_text(exercise))}"
             f" · {_status(exercise.status)}</h3>"]
    explained = {e.pitfall for e in exercise.explanations}
    if exercise.text is not None:  # read back from the contract's JSON: the text as it is
        if exercise.text.strip():
            parts.append(code_box(esc(exercise.text), f"feedback on {exercise.id}", ' class="feedback"'))
    else:
        parts += [f"<p>{inline(line)}</p>" for line in (exercise.summary, *exercise.notes) if line.strip()]
        parts += [_explanation_html(e, exercise.id) for e in exercise.explanations]
        parts += [_case_html(case) for case in exercise.cases]
        if exercise.more_failing > 0:
            parts.append(f"<p>({exercise.more_failing} more failing case{'s' if exercise.more_failing > 1 else ''} "
                         "not shown)</p>")
        parts += [_advice_html(advice) for advice in exercise.advice]
    parts += [_catalogue_html(p, exercise.id) for p in exercise.pitfalls if p not in explained]
    parts.append("</section>")
    return "\n".join(parts)


def feedback_page(result: SubmissionResult, seed: int | None = None) -> str:
    """The page of one submission, for its student: a summary table, then each exercise's feedback. It never
    shows the seed (``seed`` is accepted and left out: the hidden cases derive from it), and links to no other
    page: the instructor's index, which shows every score and the seed, is not in the student's folder."""
    title = f"{result.assignment} — feedback for {result.student}"
    body = [f"<h1>{esc(result.assignment)}: {number(result.score)} / {number(result.max_score)}</h1>",
            f'<p class="meta">Feedback for <strong>{esc(result.student)}</strong> on '
            f"<code>{esc(result.submission)}</code>.</p>"]
    body += [f'<p class="note">{inline(note)}</p>' for note in result.notes]
    if result.exercises:
        rows = "".join(
            f'<tr><td><a href="#{_anchor(e.id)}"><code>{esc(e.id)}</code></a></td>'
            f'<td class="num">{inline(points_text(e))}</td><td>{_status(e.status)}</td>'
            f"<td>{', '.join(f'<code>{esc(p)}</code>' for p in e.pitfalls)}</td></tr>"
            for e in result.exercises)
        body.append(scroll_box('<table><caption>Exercises</caption><thead><tr><th scope="col">exercise</th>'
                               '<th scope="col" class="num">score</th><th scope="col">status</th>'
                               f'<th scope="col">pitfalls</th></tr></thead><tbody>{rows}</tbody></table>',
                               "Exercises"))
        body.append("<p>Each exercise below says how many of its cases passed, which mistake the grader "
                    "recognised (with where it is in your code and how to fix it) and what went wrong on "
                    "the first failing cases.</p>")
    body += [exercise_html(e) for e in result.exercises]
    return page(title, "\n".join(body))


# --------------------------------------------------------------------------- the folder

def _assignment_order(assignment: str) -> tuple[int, str]:
    return (ASSIGNMENT_IDS.index(assignment) if assignment in ASSIGNMENT_IDS else len(ASSIGNMENT_IDS), assignment)


def page_links(results: list[SubmissionResult], feedback_dir: Path, from_dir: Path) -> list[str]:
    """Each result's page as a relative link from another folder (the class report's), in result order."""
    return [quote(Path(os.path.relpath(Path(feedback_dir) / path, Path(from_dir))).as_posix())
            for path in page_paths(results)]


def index_page(results: list[SubmissionResult], paths: list[str], seed: int | None = None) -> str:
    """Every student's scores, each linking its page (``paths``: links from where the index is); the totals are
    the CSV gradebook's (``report.gradebook``): every row is out of the points of every assignment in the run, a
    skipped one counting 0."""
    book = gradebook(results)
    link = {id(result): path for result, path in zip(results, paths)}
    head = "".join(f'<th scope="col" class="num">{esc(a)}</th>' for a in book.assignments)
    rows = []
    for row in book.rows:
        cells = "".join(
            f'<td class="num"><a href="{esc(link[id(row.results[a])])}">{number(row.results[a].score)} / '
            f"{number(row.results[a].max_score)}</a></td>" if a in row.results else '<td class="num">—</td>'
            for a in book.assignments)
        rows.append(f'<tr><th scope="row">{esc(row.label)}</th>{cells}'
                    f'<td class="num">{number(row.total)} / {number(book.max_score)}</td></tr>')
    body = (f"<h1>Feedback pages</h1>"
            f'<p class="meta">{len(results)} submission{"s" if len(results) != 1 else ""}'
            + (f", seed {int(seed)}" if seed is not None else "") + ". "
            "This index is for the instructor: it lists every student's score and is written beside the folder "
            "of pages, not in it; no student's page links here. Each student's pages are in their own folder "
            "(<code>&lt;student&gt;/&lt;assignment&gt;.html</code>); hand each student only their folder. A "
            "missing assignment (—) counts 0 in the total, as in the CSV gradebook.</p>"
            + scroll_box(f'<table><caption>Scores (each links to the feedback page)</caption><thead><tr>'
                         f'<th scope="col">student</th>{head}<th scope="col" class="num">total</th></tr></thead>'
                         f"<tbody>{''.join(rows)}</tbody></table>", "Scores"))
    return page("Feedback pages", body)


def write_feedback_pages(results: list[SubmissionResult], folder: Path, seed: int | None = None) -> list[Path]:
    """Write every submission's page in DIR and the instructor's index beside it (``index_path``); returns the
    pages written (index last). An index an older version left inside DIR is removed."""
    folder = Path(folder)
    paths = page_paths(results)
    written = []
    for result, relative in zip(results, paths):
        target = folder / relative
        write_atomically(target, feedback_page(result, seed))
        written.append(target)
    _remove_old_index(folder)
    index = index_path(folder)
    links = page_links(results, folder, index.parent)
    write_atomically(index, index_page(results, links, seed))
    written.append(index)
    return written


def _remove_old_index(folder: Path) -> None:
    """The index that versions before round four wrote inside DIR (scores and seed beside students' folders)."""
    old = folder / OLD_INDEX
    try:
        if old.is_file() and not old.is_symlink() and "<title>Feedback pages</title>" in old.read_text("utf-8"):
            old.unlink()
            print(f"autograder: removed {old}: the instructor's index is now {index_path(folder)}", file=sys.stderr)
    except (OSError, UnicodeDecodeError):
        pass
