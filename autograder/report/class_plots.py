"""The class report's plots: PNG files drawn with matplotlib (Agg, without pyplot's global state).

- ``scores-<assignment>.png``: histogram of the total scores, one per assignment;
- ``pitfalls.png``: in how many graded exercises each pitfall was named;
- ``pass-rate.png``: the share of submissions that passed each exercise.

PNG files rather than data URIs: the instructor can drop a plot into slides or an LMS as it is. Each plot
returns its alt text, which states its numbers, and each PNG carries the bar heights read back from the drawn
figure in its metadata (``autograder-bars``), so a test can compare what was drawn with what the results say.
"""
from __future__ import annotations

import io
import json
import statistics
from pathlib import Path

from autograder.report.class_statistics import AssignmentScores, ClassStatistics, bin_labels
from autograder.report.numbers import number
from autograder.report.safe_text import encodable, plot_label

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
    container.autograder_labels = bin_labels(scores.edges)
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
           + ", ".join(f"{label}: {count}" for label, count in zip(bin_labels(scores.edges), scores.counts))
           + ". The table below gives the same numbers.")
    return _save(figure, path, title, alt), alt


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
