"""Feedback pages, their index and the class report on a phone (390 CSS pixels), and the links between them.

One real grading run writes the three kinds of page for bram's custom_gradients and higher_order and chiara's
custom_gradients (chiara skipped higher_order), with the CSV gradebook beside them. Headless Chromium lays each
page out in a 390-pixel phone viewport (DevTools' device emulation: a window cannot be that narrow): no page
may scroll sideways (tables and code scroll inside their own box or wrap), and the boxes that do scroll must be
there (the test would prove nothing on pages narrow enough anyway).
"""
from __future__ import annotations

import csv
import io
from pathlib import Path
from urllib.parse import unquote

import pytest

from autograder.report.numbers import number
from helpers import ROOT, Browser, Elements, layout, run_autograder

pytestmark = pytest.mark.slow  # one real grading run
SUBMITTED = ROOT / "examples" / "submitted"
PHONE = 390  # CSS pixels: an iPhone 12 to 15's width


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("phone")
    done = run_autograder("grade", *(str(SUBMITTED / s / a) for s, a in (
        ("bram", "custom_gradients"), ("bram", "higher_order"), ("chiara", "custom_gradients"))),
        "--seed", "5", "--jobs", "2", "--format", "csv", "--output", str(folder / "gradebook.csv"),
        "--feedback-dir", str(folder / "feedback"), "--report-dir", str(folder / "report"))
    assert done.returncode == 0, done.stderr[-3000:]
    return folder


def pages(run: Path) -> list[Path]:
    return [run / "feedback-index.html", *sorted((run / "feedback").glob("*/*.html")), run / "report" / "index.html"]


def test_no_page_scrolls_sideways_on_a_phone_and_wide_content_scrolls_in_its_own_box(run):
    assert len(pages(run)) == 5
    with Browser() as browser:
        for page in pages(run):
            measured = layout(browser, page, PHONE)
            assert measured["clientWidth"] == PHONE, (page, measured)
            assert measured["innerWidth"] == PHONE and measured["scrollWidth"] <= PHONE, (page, measured)
            assert measured["wide"] == [], (page, measured["wide"])
            boxes = browser.evaluate("[...document.querySelectorAll('.scroll, pre')]"
                                     ".filter(b => b.scrollWidth > b.clientWidth).length")
            assert boxes > 0, f"{page}: nothing here is wider than a phone, so this page proves nothing"
        browser.open(run / "feedback" / "bram" / "custom_gradients.html", PHONE)
        shot = browser.screenshot(run / "bram-on-a-phone.png", full_page=False)
    assert shot.stat().st_size > 10_000  # a real picture (look at it: the table scrolls inside its box)


def test_no_feedback_page_links_out_of_itself_and_the_index_is_beside_the_folder(run):
    """Round four: a student's page links only to its own anchors (the index shows every score and the seed)."""
    for page in sorted((run / "feedback").glob("*/*.html")):
        links = [a["href"] for a in Elements(page.read_text(encoding="utf-8")).tags("a")]
        assert links and all(link.startswith("#") for link in links), (page, links)
    assert sorted(p.name for p in run.iterdir() if p.name.startswith("feedback")) == ["feedback", "feedback-index.html"]


def test_the_class_report_links_each_submission_to_its_feedback_page(run):
    report = run / "report" / "index.html"
    links = [a["href"] for a in Elements(report.read_text(encoding="utf-8")).tags("a")]
    targets = sorted((report.parent / unquote(href)).resolve() for href in links)
    assert targets == sorted(p.resolve() for p in (run / "feedback").glob("*/*.html"))


def test_a_student_who_skipped_an_assignment_is_out_of_the_same_total_in_the_index_and_the_csv(run):
    rows = {row["student"]: row for row in csv.DictReader(io.StringIO((run / "gradebook.csv").read_text()))}
    assert rows["chiara"]["higher_order"] == ""  # she skipped it
    index = Elements((run / "feedback-index.html").read_text(encoding="utf-8"))
    for student, row in rows.items():  # the same total, shown with two decimals (the CSV keeps four)
        total = f"{number(float(row['total']))} / {number(float(row['max_score']))}"
        assert total in index.text, (student, total)
    assert rows["chiara"]["max_score"] == rows["bram"]["max_score"] == "24"  # two assignments of 12
