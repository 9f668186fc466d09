"""The class report: DIR/index.html with plots (matplotlib, Agg) and the numbers behind each plot.

Plots, each a PNG file beside index.html:

- ``scores-<assignment>.png``: histogram of the total scores, one per assignment;
- ``pitfalls.png``: in how many graded exercises each pitfall was named;
- ``pass-rate.png``: the share of submissions that passed each exercise.

PNG files rather than data URIs: the instructor can drop a plot into slides or an LMS
as it is, the page stays small and readable as text, and the folder is still
self-contained (relative links only; copy or zip the folder). Every image has alt
text that states its numbers, and a table with the same numbers follows it. The
numbers are computed once (:func:`class_statistics`); the tables and the plots
both read them, and each PNG carries the bar heights read back from the drawn
figure in its metadata (``autograder-bars``), so a test can compare what was drawn
with what the results say.
"""
from __future__ import annotations

import io
import json
import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from autograder.course import ASSIGNMENT_IDS
from autograder.model.pitfalls import CATALOGUE
from autograder.model.results import STATUSES, SubmissionResult
from autograder.report.html import esc, inline, page, scroll_box
from autograder.report.numbers import number
from autograder.report.safe_text import encodable, plot_label
from autograder.store.atomic import write_atomically

__all__ = ["class_statistics", "write_class_report", "matplotlib_missing", "ClassStatistics"]

# Okabe-Ito: distinguishable with every common colour-vision deficiency.
COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442")
METADATA_KEY = "autograder-bars"


def matplotlib_missing() -> str | None:
    """None when the report can be drawn; else what to install (checked before grading starts)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return ("the class report needs matplotlib: pip install 'tf-autodiff-autograder[report]' "
                "(the nbgrader and test extras include it)")
    return None


# --------------------------------------------------------------------------- the numbers

@dataclass
class AssignmentScores:
    assignment: str
    max_score: float
    scores: list[float]
    edges: list[float]  # histogram bins [edges[i], edges[i+1]), the last one closed
    counts: list[int]

    @property
    def n(self) -> int:
        return len(self.scores)


@dataclass
class ExerciseRates:
    assignment: str
    exercise: str
    statuses: Counter
    mean_score: float
    max_score: float

    @property
    def n(self) -> int:
        return sum(self.statuses.values())

    @property
    def passed(self) -> int:
        return self.statuses["passed"]

    @property
    def pass_rate(self) -> float:
        return self.passed / self.n if self.n else 0.0


@dataclass
class ClassStatistics:
    submissions: int
    assignments: list[AssignmentScores]
    pitfalls: list[tuple[str, int]]  # most frequent first
    pitfall_exercises: dict[str, Counter]  # pitfall -> Counter of "assignment/exercise"
    exercises: list[ExerciseRates]
    left_out: list[SubmissionResult] = field(default_factory=list)  # no exercises: assignment unknown


def _assignment_key(assignment: str) -> tuple[int, str]:
    return (ASSIGNMENT_IDS.index(assignment) if assignment in ASSIGNMENT_IDS else len(ASSIGNMENT_IDS), assignment)


def histogram_edges(max_score: float) -> list[float]:
    """One bin per point up to 20 points (0-1, 1-2, ..., 9-10), else ten equal bins."""
    if max_score <= 0:
        return [0.0, 1.0]
    if float(max_score).is_integer() and max_score <= 20:
        return [float(i) for i in range(int(max_score) + 1)]
    return [max_score * i / 10 for i in range(11)]


def histogram_counts(scores: list[float], edges: list[float]) -> list[int]:
    """Counts per bin [a, b), the last bin closed [a, b] (as numpy.histogram)."""
    counts = [0] * (len(edges) - 1)
    for score in scores:
        for i in range(len(counts)):
            last = i == len(counts) - 1
            if edges[i] <= score < edges[i + 1] or (last and score == edges[-1]):
                counts[i] += 1
                break
    return counts


def class_statistics(results: list[SubmissionResult]) -> ClassStatistics:
    graded = [r for r in results if r.exercises]
    assignments = []
    for assignment in sorted({r.assignment for r in graded}, key=_assignment_key):
        mine = [r for r in graded if r.assignment == assignment]
        max_score = max(r.max_score for r in mine)
        scores = [r.score for r in mine]
        edges = histogram_edges(max_score)
        assignments.append(AssignmentScores(assignment, max_score, scores, edges, histogram_counts(scores, edges)))
    counts: Counter = Counter()
    where: dict[str, Counter] = {}
    rates: dict[tuple[str, str], ExerciseRates] = {}
    totals: dict[tuple[str, str], float] = {}
    for result in graded:
        for exercise in result.exercises:
            for pitfall in exercise.pitfalls:
                counts[pitfall] += 1
                where.setdefault(pitfall, Counter())[f"{result.assignment}/{exercise.id}"] += 1
            key = (result.assignment, exercise.id)
            if key not in rates:
                rates[key] = ExerciseRates(result.assignment, exercise.id, Counter(), 0.0, exercise.max_score)
            rates[key].statuses[exercise.status] += 1
            totals[key] = totals.get(key, 0.0) + exercise.score
    for key, rate in rates.items():
        rate.mean_score = totals[key] / rate.n
    # Exercises in the contract's order: the order the results list them, assignment by assignment.
    order = {key: i for i, key in enumerate(rates)}
    exercises = sorted(rates.values(), key=lambda r: (_assignment_key(r.assignment), order[(r.assignment, r.exercise)]))
    pitfalls = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return ClassStatistics(len(results), assignments, pitfalls, where, exercises,
                           [r for r in results if not r.exercises])


# --------------------------------------------------------------------------- the plots

def _figure(width: float, height: float):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(figure)  # the Agg canvas, without touching pyplot's global backend
    return figure


def _save(figure, path: Path, title: str, alt: str) -> dict:
    """Write the PNG with the bars read back from the drawn figure; return what was drawn."""
    axes = figure.axes[0]
    bars = [{"label": label, "value": round(float(value), 6)}
            for label, value in _drawn_bars(axes)]
    drawn = {"title": title, "bars": bars}
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={
        "Title": encodable(title), "Description": encodable(alt), "Software": None, METADATA_KEY: json.dumps(drawn)})
    path.write_bytes(buffer.getvalue())
    return drawn


def _drawn_bars(axes) -> list[tuple[str, float]]:
    """(label, length) of every bar, from the artists themselves (patches of the bar containers)."""
    out = []
    for container in axes.containers:
        labels = getattr(container, "autograder_labels", None)
        for i, patch in enumerate(container.patches):
            horizontal = getattr(container, "orientation", "vertical") == "horizontal"
            value = patch.get_width() if horizontal else patch.get_height()
            out.append((labels[i] if labels else str(i), value))
    return out


def plot_scores(scores: AssignmentScores, path: Path) -> tuple[dict, str]:
    figure = _figure(6.4, 3.4)
    axes = figure.subplots()
    widths = [b - a for a, b in zip(scores.edges, scores.edges[1:])]
    container = axes.bar(scores.edges[:-1], scores.counts, width=widths, align="edge", color=COLOURS[0],
                         edgecolor="white")
    container.autograder_labels = _bin_labels(scores.edges)
    axes.bar_label(container, labels=[str(c) if c else "" for c in scores.counts], padding=2)
    axes.set_xticks(scores.edges)
    axes.set_xticklabels([number(round(e, 2)) for e in scores.edges])
    axes.set_xlim(scores.edges[0], scores.edges[-1])
    axes.set_ylim(0, max(scores.counts + [1]) * 1.18)
    axes.yaxis.get_major_locator().set_params(integer=True)
    axes.set_xlabel(f"total score (out of {number(scores.max_score)})")
    axes.set_ylabel("submissions")
    title = f"{scores.assignment}: score distribution (n = {scores.n})"
    axes.set_title(plot_label(title))
    alt = (f"Histogram of the total scores in {scores.assignment} for {scores.n} submission"
           f"{'s' if scores.n != 1 else ''}, out of {number(scores.max_score)}: median "
           f"{number(statistics.median(scores.scores))}, lowest {number(min(scores.scores))}, "
           f"highest {number(max(scores.scores))}. Submissions per score range: "
           + ", ".join(f"{label}: {count}" for label, count in zip(_bin_labels(scores.edges), scores.counts))
           + ". The table below gives the same numbers.")
    return _save(figure, path, title, alt), alt


def _bin_labels(edges: list[float]) -> list[str]:
    """'0 ≤ score < 1', ..., '9 ≤ score ≤ 10': the last bin holds full marks."""
    last = len(edges) - 2
    return [f"{number(round(a, 2))} ≤ score {'≤' if i == last else '<'} {number(round(b, 2))}"
            for i, (a, b) in enumerate(zip(edges, edges[1:]))]


def plot_pitfalls(stats: ClassStatistics, path: Path) -> tuple[dict, str]:
    names = [p for p, _ in stats.pitfalls]
    counts = [n for _, n in stats.pitfalls]
    figure = _figure(6.4, 1.2 + 0.32 * len(names))
    axes = figure.subplots()
    container = axes.barh([plot_label(name) for name in names], counts, color=COLOURS[1])
    container.autograder_labels = names
    axes.bar_label(container, padding=3)
    axes.invert_yaxis()  # most frequent on top
    axes.set_xlim(0, max(counts) * 1.15)
    axes.xaxis.get_major_locator().set_params(integer=True)
    axes.set_xlabel("graded exercises in which the pitfall was named")
    title = f"Pitfalls named across {stats.submissions} submissions"
    axes.set_title(title)
    alt = ("Bar chart of how many graded exercises named each pitfall, most frequent first: "
           + ", ".join(f"{p} {n}" for p, n in stats.pitfalls) + ". The table below gives the same numbers.")
    return _save(figure, path, title, alt), alt


def plot_pass_rate(stats: ClassStatistics, path: Path) -> tuple[dict, str]:
    rates = stats.exercises
    labels = [plot_label(r.exercise) for r in rates]
    figure = _figure(6.4, 1.7 + 0.3 * len(rates))
    axes = figure.subplots()
    assignments = list(dict.fromkeys(r.assignment for r in rates))
    colour = {a: COLOURS[i % len(COLOURS)] for i, a in enumerate(assignments)}
    container = axes.barh(range(len(rates)), [100 * r.pass_rate for r in rates],
                          color=[colour[r.assignment] for r in rates])
    container.autograder_labels = [f"{r.assignment}/{r.exercise}" for r in rates]
    axes.bar_label(container, labels=[f"{100 * r.pass_rate:.0f}% ({r.passed}/{r.n})" for r in rates], padding=3)
    axes.set_yticks(range(len(rates)), labels)
    axes.invert_yaxis()
    axes.set_xlim(0, 125)
    axes.set_xticks([0, 25, 50, 75, 100])
    axes.set_xlabel("submissions that passed the exercise (%)")
    from matplotlib.patches import Patch

    figure.legend(handles=[Patch(color=colour[a], label=plot_label(a)) for a in assignments], loc="outside lower center",
                  ncols=len(assignments), fontsize="small", frameon=False)
    title = "Pass rate per exercise"
    axes.set_title(title)
    alt = ("Bar chart of the share of submissions that passed each exercise: "
           + ", ".join(f"{r.assignment} {r.exercise} {100 * r.pass_rate:.0f}% ({r.passed} of {r.n})" for r in rates)
           + ". The table below gives the same numbers with every status.")
    return _save(figure, path, title, alt), alt


# --------------------------------------------------------------------------- the page

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
                              for label, count in zip(_bin_labels(scores.edges), scores.counts)],
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
                                  key=lambda pair: (pair[0].student, _assignment_key(pair[0].assignment),
                                                    pair[0].submission))]
    caption = "Every submission" + (" (each score links to its feedback page)" if pages else "")
    body.append(_table(caption, ["student", "assignment", "score", "pitfalls named"], rows, numeric={2}))
    write_atomically(folder / "index.html", page("Class report", "\n".join(body)))
    return folder / "index.html"


def _score_cell(result: SubmissionResult, link: str | None) -> str:
    score = f"{number(result.score)} / {number(result.max_score)}"
    return f'<a href="{esc(link)}">{score}</a>' if link else score


def _file_part(text: str) -> str:
    from autograder.report.feedback_pages import slug

    return slug(text, "assignment")
