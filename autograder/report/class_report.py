"""The class report's page: DIR/index.html, its tables, and its plots written beside it.

The numbers are computed once (``class_statistics``); the plots (``class_plots``, PNG files beside the page)
and the tables here both read them. Every image has alt text that states its numbers, and a table with the
same numbers follows it. The folder is self-contained (relative links only; copy or zip it), and the page
stays small and readable as text.
"""
from __future__ import annotations

import statistics
from pathlib import Path

from autograder.model.pitfalls import CATALOGUE
from autograder.model.results import STATUSES, SubmissionResult
from autograder.report.class_plots import plot_pass_rate, plot_pitfalls, plot_scores
from autograder.report.class_statistics import assignment_order, bin_labels, class_statistics
from autograder.report.html import esc, inline, page, scroll_box
from autograder.report.numbers import number
from autograder.report.page_folders import slug
from autograder.store.atomic import write_atomically


def _figure_html(src: str, alt: str, caption: str) -> str:
    return (f'<figure><img src="{esc(src)}" alt="{esc(alt)}">'
            f"<figcaption>{esc(caption)}</figcaption></figure>")


def _table(caption: str, head: list[str], rows: list[list[str]], numeric: set[int], css: str = "") -> str:
    """A table; cells are already HTML (escape before)."""
    th = "".join(f'<th scope="col"{" class=num" if i in numeric else ""}>{h}</th>' for i, h in enumerate(head))
    body = "".join("<tr>" + "".join(
        (f'<th scope="row">{cell}</th>' if i == 0 else f'<td{" class=num" if i in numeric else ""}>{cell}</td>')
        for i, cell in enumerate(row)) + "</tr>" for row in rows)
    return scroll_box(f'<table{css}><caption>{esc(caption)}</caption><thead><tr>{th}</tr></thead>'
                      f'<tbody>{body}</tbody></table>', caption)


def write_class_report(results: list[SubmissionResult], folder: Path, sources: list[str] | None = None,
                       seed: int | None = None, pages: list[str] | None = None) -> Path:
    """Write DIR/index.html and its PNG plots; returns the index's path. ``pages``: each result's feedback page,
    as a link from DIR (when the feedback pages are written too), for the table of submissions."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    stats = class_statistics(results)
    body = ["<h1>Class report</h1>"]
    origin = f" from {', '.join(f'<code>{esc(s)}</code>' for s in sources)}" if sources else ""
    body.append(f'<p class="meta">{stats.submissions} submission{"s" if stats.submissions != 1 else ""}{origin}'
                + (f"; seed {int(seed)}" if seed is not None else "") + ".</p>")
    if stats.left_out:
        body.append('<p class="note">Left out of the plots (no exercise graded): '
                    + ", ".join(f"<code>{esc(r.submission)}</code>" for r in stats.left_out) + ".</p>")
    if not stats.assignments:
        body.append("<p>No graded submission: nothing to plot.</p>")
        write_atomically(folder / "index.html", page("Class report", "\n".join(body)))
        return folder / "index.html"

    body.append(_table("Scores per assignment", ["assignment", "submissions", "mean", "median", "lowest", "highest",
                                                 "out of"],
                       [[f"<code>{esc(a.assignment)}</code>", str(a.n), number(statistics.mean(a.scores)),
                         number(statistics.median(a.scores)), number(min(a.scores)),
                         number(max(a.scores)), number(a.max_score)] for a in stats.assignments],
                       numeric={1, 2, 3, 4, 5, 6}))

    body.append('<h2 id="scores">Score distribution per assignment</h2>')
    for scores in stats.assignments:
        name = f"scores-{_file_part(scores.assignment)}.png"
        _, alt = plot_scores(scores, folder / name)
        body.append(f'<h3 id="scores-{esc(_file_part(scores.assignment))}"><code>{esc(scores.assignment)}</code></h3>')
        body.append('<div class="plot">'
                    + _figure_html(name, alt, f"Total scores in {scores.assignment} ({scores.n} submissions).")
                    + _table(f"Submissions per score range, {scores.assignment}", ["score range", "submissions"],
                             [[esc(label), str(count)]
                              for label, count in zip(bin_labels(scores.edges), scores.counts)],
                             numeric={1}, css=' class="histogram" data-assignment="' + esc(scores.assignment) + '"')
                    + "</div>")

    body.append('<h2 id="pitfalls">How often each pitfall occurred</h2>')
    if stats.pitfalls:
        _, alt = plot_pitfalls(stats, folder / "pitfalls.png")
        body.append(_figure_html("pitfalls.png", alt, "Graded exercises in which each pitfall was named."))
        rows = []
        for pitfall, count in stats.pitfalls:
            places = ", ".join(f"<code>{esc(place)}</code>" + (f" ×{n}" if n > 1 else "")
                               for place, n in sorted(stats.pitfall_exercises[pitfall].items()))
            entry = CATALOGUE.get(pitfall)
            rows.append([f"<code>{esc(pitfall)}</code>", str(count), places, inline(entry.what) if entry else ""])
        body.append(_table("Pitfalls (one count per graded exercise that named it)",
                           ["pitfall", "exercises", "where", "what the student did"], rows, numeric={1},
                           css=' class="pitfalls"'))
    else:
        body.append("<p>No pitfall was named.</p>")

    body.append('<h2 id="pass-rate">Pass rate per exercise</h2>')
    _, alt = plot_pass_rate(stats, folder / "pass-rate.png")
    body.append(_figure_html("pass-rate.png", alt, "Share of submissions that passed each exercise (full marks)."))
    status_rows = [[f"<code>{esc(r.exercise)}</code>", f"<code>{esc(r.assignment)}</code>", str(r.n),
                    *(str(r.statuses[s]) for s in STATUSES), f"{100 * r.pass_rate:.0f}%",
                    f"{number(r.mean_score)} / {number(r.max_score)}"] for r in stats.exercises]
    body.append(_table("Status per exercise", ["exercise", "assignment", "submissions", *STATUSES, "pass rate",
                                               "mean score"], status_rows,
                       numeric=set(range(2, 4 + len(STATUSES))), css=' class="pass-rate"'))

    body.append('<h2 id="submissions">Submissions</h2>')
    links = pages if pages is not None and len(pages) == len(results) else [None] * len(results)
    rows = [[esc(r.student), f"<code>{esc(r.assignment)}</code>", _score_cell(r, link),
             ", ".join(f"<code>{esc(p)}</code>" for p in sorted({p for e in r.exercises for p in e.pitfalls}))]
            for r, link in sorted(zip(results, links),
                                  key=lambda pair: (pair[0].student, assignment_order(pair[0].assignment),
                                                    pair[0].submission))]
    caption = "Every submission" + (" (each score links to its feedback page)" if pages else "")
    body.append(_table(caption, ["student", "assignment", "score", "pitfalls named"], rows, numeric={2}))
    write_atomically(folder / "index.html", page("Class report", "\n".join(body)))
    return folder / "index.html"


def _score_cell(result: SubmissionResult, link: str | None) -> str:
    score = f"{number(result.score)} / {number(result.max_score)}"
    return f'<a href="{esc(link)}">{score}</a>' if link else score


def _file_part(text: str) -> str:
    return slug(text, "assignment")
