"""The class report (`autograder report`, `grade --report-dir`): its numbers, its plots, and a real browser.

One real grading run (five custom_gradients notebooks and one higher_order notebook of the
example class: custom_gradients grades fastest, higher_order makes it two assignments) feeds
every test; the numbers in the page and in the plots are checked against counts computed
here from the contract's JSON.

The browser checks need headless Chromium (`apt-get install -y chromium`; .ci/run
installs it). Without it they fail, with a message, unless AUTOGRADER_SKIP_BROWSER=1
says to skip them: CI must really run them.
"""
from __future__ import annotations

import json
import shutil
import statistics
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest
from PIL import Image

from autograder.report.numbers import number
from helpers import ROOT, Elements, browser_dom, run_autograder

pytestmark = pytest.mark.slow  # every test reads one real grading run

SUBMITTED = ROOT / "examples" / "submitted"
GRADED = [SUBMITTED / student / "custom_gradients" for student in ("ada", "bram", "chiara", "dev", "kwame")] + [
    SUBMITTED / "bram" / "higher_order"]
CHECK_SCRIPT = ("<script nonce=\"check\">window.addEventListener('load', () => {"
                " for (const img of document.images) img.setAttribute('data-natural-width', img.naturalWidth);"
                " document.body.setAttribute('data-loaded', 'yes'); });</script>")


# --------------------------------------------------------------------------- images seen by a browser

def image_widths(page: Path) -> dict[str, int]:
    """naturalWidth of every image of ``page`` once the window has loaded, measured by Chromium.

    A sibling copy of the page gets a script that writes the widths into the DOM; the page's own
    Content-Security-Policy is kept and allows only that script (by its nonce), so images load
    under the same policy as in the real page.
    """
    text = page.read_text(encoding="utf-8")
    policy = "default-src 'none';"
    assert policy in text, "the page has lost its Content-Security-Policy"
    check = page.with_name("check.html")
    check.write_text(text.replace(policy, policy + " script-src 'nonce-check';", 1)
                     .replace("</body>", CHECK_SCRIPT + "</body>", 1), encoding="utf-8")
    try:
        dom = Elements(browser_dom(check))
    finally:
        check.unlink()
    assert dom.tags("body")[0].get("data-loaded") == "yes", "the window's load event never came"
    return {img["src"]: int(img["data-natural-width"]) for img in dom.tags("img")}


# --------------------------------------------------------------------------- one grading run

@pytest.fixture(scope="module")
def run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("class-report")
    results_file = folder / "results.json"
    done = run_autograder("grade", *map(str, GRADED), "--seed", "11", "--jobs", "2", "--format", "json",
                          "--output", str(results_file), "--report-dir", str(folder / "report"))
    assert done.returncode == 0, done.stderr[-3000:]
    return folder, json.loads(results_file.read_text())


@pytest.fixture(scope="module")
def page(run) -> Elements:
    folder, _ = run
    return Elements((folder / "report" / "index.html").read_text(encoding="utf-8"))


class Tables(HTMLParser):
    """Tables by caption: rows of cell texts."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tables: dict[str, list[list[str]]] = {}
        self._caption = self._row = self._cell = None
        self._in_caption = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self._caption, self._rows = "", []
        elif tag == "caption":
            self._in_caption = True
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag == "caption":
            self._in_caption = False
        elif tag in ("td", "th"):
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr":
            self._rows.append(self._row)
        elif tag == "table":
            self.tables[self._caption] = self._rows

    def handle_data(self, data):
        if self._in_caption:
            self._caption += data
        elif self._cell is not None:
            self._cell.append(data)


@pytest.fixture(scope="module")
def tables(run) -> dict[str, list[list[str]]]:
    folder, _ = run
    return Tables((folder / "report" / "index.html").read_text(encoding="utf-8")).tables


def by_assignment(results: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for result in results:
        out.setdefault(result["assignment"], []).append(result)
    return out


def drawn(png: Path) -> dict:
    """What the plot drew: bar labels and lengths, read back from the figure's artists when it was saved."""
    return json.loads(Image.open(png).text["autograder-bars"])


# --------------------------------------------------------------------------- the numbers

def test_the_run_graded_what_the_plots_need(run):
    _, results = run
    assert len(results) == len(GRADED)
    assert set(by_assignment(results)) == {"custom_gradients", "higher_order"}
    assert sum(len(e["pitfalls"]) for r in results for e in r["exercises"]) >= 5


def test_pitfall_table_and_plot_count_what_the_json_names(run, tables):
    folder, results = run
    expected = Counter(p for r in results for e in r["exercises"] for p in e["pitfalls"])
    rows = tables["Pitfalls (one count per graded exercise that named it)"]
    assert rows[0][:2] == ["pitfall", "exercises"]
    assert {row[0]: int(row[1]) for row in rows[1:]} == expected
    counts = [int(row[1]) for row in rows[1:]]
    assert counts == sorted(counts, reverse=True), "most frequent first"
    plot = drawn(folder / "report" / "pitfalls.png")
    assert {bar["label"]: bar["value"] for bar in plot["bars"]} == expected
    assert [bar["label"] for bar in plot["bars"]] == [row[0] for row in rows[1:]]


def test_histograms_count_the_scores_of_each_assignment(run, tables):
    folder, results = run
    for assignment, mine in by_assignment(results).items():
        scores = [r["score"] for r in mine]
        top = int(mine[0]["max_score"])  # 2 points per exercise
        rows = tables[f"Submissions per score range, {assignment}"][1:]
        assert len(rows) == top  # one bin per point
        expected = [sum(1 for s in scores if lo <= s < lo + 1 or (lo == top - 1 and s == top)) for lo in range(top)]
        assert [int(row[1]) for row in rows] == expected
        assert rows[0][0] == "0 ≤ score < 1" and rows[-1][0] == f"{top - 1} ≤ score ≤ {top}"
        plot = drawn(folder / "report" / f"scores-{assignment}.png")
        assert [bar["value"] for bar in plot["bars"]] == expected
        summary = {row[0]: row for row in tables["Scores per assignment"][1:]}[assignment]
        assert summary[1:] == [str(len(mine)), number(statistics.mean(scores)),  # two decimals, as people read them
                               number(statistics.median(scores)), number(min(scores)), number(max(scores)), str(top)]


def test_pass_rate_table_and_plot_follow_the_statuses(run, tables):
    folder, results = run
    rows = tables["Status per exercise"]
    head = rows[0]
    expected_order = [(a, e["id"]) for a, mine in by_assignment(results).items() for e in mine[0]["exercises"]]
    assert [(row[1], row[0]) for row in rows[1:]] == expected_order, "the contract's order"
    plot = {bar["label"]: bar["value"] for bar in drawn(folder / "report" / "pass-rate.png")["bars"]}
    for row in rows[1:]:
        exercise, assignment = row[0], row[1]
        statuses = Counter(e["status"] for r in results if r["assignment"] == assignment
                           for e in r["exercises"] if e["id"] == exercise)
        n = sum(statuses.values())
        assert int(row[head.index("submissions")]) == n
        for status in ("passed", "partial", "failed", "error", "timeout", "missing", "not-implemented"):
            assert int(row[head.index(status)]) == statuses[status], (exercise, status)
        assert row[head.index("pass rate")] == f"{100 * statuses['passed'] / n:.0f}%"
        assert plot[f"{assignment}/{exercise}"] == pytest.approx(100 * statuses["passed"] / n)


def test_every_image_has_alt_text_with_its_numbers_and_exists_beside_the_page(run, page):
    folder, results = run
    images = page.tags("img")
    assert sorted(img["src"] for img in images) == sorted(
        ["scores-custom_gradients.png", "scores-higher_order.png", "pitfalls.png", "pass-rate.png"])
    for img in images:
        assert (folder / "report" / img["src"]).is_file()
        assert len(img.get("alt") or "") > 60, img
    pitfall_alt = next(img["alt"] for img in images if img["src"] == "pitfalls.png")
    for pitfall, count in Counter(p for r in results for e in r["exercises"] for p in e["pitfalls"]).items():
        assert f"{pitfall} {count}" in pitfall_alt


def test_the_page_is_offline_and_has_no_script(page):
    assert not page.tags("script") and not page.tags("link")
    assert any(m.get("http-equiv") == "Content-Security-Policy" for m in page.tags("meta"))
    for _, attrs in page.elements:
        for name in ("src", "href"):
            assert not (attrs.get(name) or "").startswith(("http:", "https:", "//")), attrs


def test_report_command_gives_the_same_report_from_the_json_split_in_two(run, tables, tmp_path):
    folder, results = run
    parts = []
    for assignment, mine in by_assignment(results).items():
        part = tmp_path / f"{assignment}.json"
        part.write_text(json.dumps(mine))
        parts.append(str(part))
    done = run_autograder("report", *parts, "--out", str(tmp_path / "again"), timeout=300)
    assert done.returncode == 0, done.stderr
    again = Tables((tmp_path / "again" / "index.html").read_text(encoding="utf-8")).tables
    assert again == tables
    for png in ("pitfalls.png", "pass-rate.png", "scores-custom_gradients.png", "scores-higher_order.png"):
        assert (tmp_path / "again" / png).read_bytes() == (folder / "report" / png).read_bytes(), png


def test_report_command_refuses_what_is_not_results(tmp_path):
    wrong = tmp_path / "wrong.json"
    wrong.write_text('{"not": "a list"}')
    done = run_autograder("report", str(wrong), "--out", str(tmp_path / "out"), timeout=300)
    assert done.returncode == 2 and "autograder: error:" in done.stderr and "wrong.json" in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()


def test_a_class_without_pitfalls_gets_a_sentence_instead_of_an_empty_plot(run, tmp_path):
    from autograder.report.class_report import write_class_report
    from autograder.model.results import from_contract as load_result

    _, results = run
    perfect = [load_result(r) for r in results if all(e["status"] == "passed" for e in r["exercises"])]
    assert perfect, "the example class has a perfect submission (ada)"
    index = write_class_report(perfect, tmp_path)
    assert "No pitfall was named." in index.read_text(encoding="utf-8")
    assert not (tmp_path / "pitfalls.png").exists()


# --------------------------------------------------------------------------- a real browser

def test_every_image_loads_in_headless_chromium(run):
    folder, _ = run
    widths = image_widths(folder / "report" / "index.html")
    assert len(widths) == 4
    assert all(width > 0 for width in widths.values()), widths
    assert widths["pitfalls.png"] == Image.open(folder / "report" / "pitfalls.png").width


def test_the_browser_check_sees_a_missing_image(run, tmp_path):
    """The check itself: an image that does not load has naturalWidth 0."""
    folder, _ = run
    shutil.copytree(folder / "report", tmp_path / "report")
    (tmp_path / "report" / "pitfalls.png").unlink()
    widths = image_widths(tmp_path / "report" / "index.html")
    assert widths["pitfalls.png"] == 0 and widths["pass-rate.png"] > 0
