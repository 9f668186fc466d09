"""Feedback pages (`autograder grade --feedback-dir`): one page per submission, nothing lost, nothing injected.

One real grading run: four custom_gradients notebooks of the example class (bram, chiara,
dev, kwame: several pitfalls among them, one pointed at a line by a static check), greta's
(a stub left: not-implemented) and a hostile .py submission whose student name, error
message and code carry HTML.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from urllib.parse import unquote

import pytest

from autograder.report.page_folders import index_path, student_folder
from autograder.report.numbers import number
from helpers import ROOT, Elements, browser_dom, run_autograder


pytestmark = pytest.mark.slow  # every test reads one real grading run

SUBMITTED = ROOT / "examples" / "submitted"
STUDENTS = ("bram", "chiara", "dev", "greta", "kwame")
HOSTILE_STUDENT = "<script>alert(1)"
HOSTILE = '''import tensorflow as tf


def log1pexp(x):
    raise ValueError("<script>alert(2)</script><img src=x onerror=alert(3)>")


def td_loss(q, reward, next_q, gamma):
    target = reward + gamma * tf.reduce_max(next_q, axis=-1)
    err = q.numpy() - target.numpy()  # <script>alert(4)</script>
    return tf.reduce_mean(tf.constant(err) ** 2)
'''


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("feedback")
    hostile = folder / "class" / "submitted" / HOSTILE_STUDENT / "custom_gradients" / "custom_gradients.py"
    hostile.parent.mkdir(parents=True)
    hostile.write_text(HOSTILE)
    results_file = folder / "results.json"
    done = run_autograder("grade", *(str(SUBMITTED / s / "custom_gradients") for s in STUDENTS),
                          str(folder / "class"), "--seed", "7", "--jobs", "2", "--format", "json",
                          "--output", str(results_file), "--feedback-dir", str(folder / "pages"))
    assert done.returncode == 0, done.stderr[-3000:]
    return folder / "pages", json.loads(results_file.read_text())


def page_of(pages: Path, result: dict) -> Path:
    return pages / student_folder(result["student"]) / f"{result['assignment']}.html"


def hostile_result(results: list[dict]) -> dict:
    return next(r for r in results if r["student"] == HOSTILE_STUDENT)


def test_one_page_per_submission_in_its_students_folder_and_an_index_linking_them(run):
    pages, results = run
    assert len(results) == len(STUDENTS) + 1
    index = Elements(index_path(pages).read_text(encoding="utf-8"))  # beside the folder, not in it
    links = {unquote(a["href"]) for a in index.tags("a")}
    assert links == {str(page_of(pages, r).relative_to(pages.parent)) for r in results}
    for result in results:
        assert page_of(pages, result).is_file()
    for result in results:  # every score is in the index
        assert f"{number(result['score'])} / {number(result['max_score'])}" in index.text  # two decimals
    assert sorted(p.name for p in pages.iterdir()) == sorted([student_folder(HOSTILE_STUDENT), *STUDENTS])


def test_every_line_of_the_feedback_is_on_the_page(run):
    pages, results = run
    for result in results:
        text = Elements(page_of(pages, result).read_text(encoding="utf-8")).text
        for exercise in result["exercises"]:
            assert f"{exercise['id']} · {number(exercise['score'])} / {number(exercise['max_score'])}" in text
            for line in exercise["feedback"].splitlines():
                named = re.match(r"\[([a-z-]+)\] (.*)", line)  # "[id] text": a box headed "Pitfall id", then the text
                for part in ([f"Pitfall {named.group(1)}", named.group(2)] if named else [line]):
                    assert " ".join(part.replace("`", "").split()) in text.replace("`", ""), (
                        result["student"], exercise["id"], line)


def test_each_pitfall_is_named_explained_and_has_a_fix(run):
    pages, results = run
    named = Counter()
    for result in results:
        html_text = page_of(pages, result).read_text(encoding="utf-8")
        page = Elements(html_text)
        boxes = [attrs["data-pitfall"] for attrs in page.tags("div") if attrs.get("class") == "pitfall"]
        expected = [p for e in result["exercises"] for p in e["pitfalls"]]
        assert sorted(boxes) == sorted(expected), result["student"]
        ids = [attrs["id"] for _, attrs in page.elements if attrs.get("id")]
        assert len(ids) == len(set(ids)), "ids are unique"
        assert html_text.count('class="fix"') == len(expected)
        named.update(expected)
    assert len(named) >= 6 and {"gradient-cut", "not-implemented"} <= set(named), named


def test_a_pitfall_the_text_does_not_explain_gets_the_catalogues_words(run):
    from autograder.model.pitfalls import CATALOGUE

    pages, results = run
    greta = next(r for r in results if r["student"] == "greta")
    stub = next(e for e in greta["exercises"] if e["status"] == "not-implemented")
    assert "[not-implemented]" not in stub["feedback"]
    text = Elements(page_of(pages, greta).read_text(encoding="utf-8")).text
    entry = CATALOGUE["not-implemented"]
    assert entry.what[1:] in text and entry.fix.replace("`", "") in text


def test_the_students_own_lines_are_shown_where_a_static_check_points(run):
    pages, results = run
    kwame = next(r for r in results if r["student"] == "kwame")
    feedback = next(e for e in kwame["exercises"] if e["id"] == "td_loss")["feedback"]
    where = re.search(r"Where: cell \[(\d+)\], line (\d+): `(.*)`", feedback)
    assert where, feedback
    excerpts = re.findall(r"<pre aria-label=[^>]*><code>(.*?)</code></pre>",
                          page_of(pages, kwame).read_text(encoding="utf-8"), re.DOTALL)
    excerpts = [e for e in excerpts if "def td_loss" in e]  # his safe_norm's findings have excerpts too
    assert len(excerpts) == 1
    marked = re.findall(r"<mark>(.*?)</mark>", excerpts[0])
    assert len(marked) == 1 and len(excerpts[0].splitlines()) >= 4  # the line, and lines around it
    number, _, code = Elements(marked[0]).text.partition(" │ ")
    assert int(number) == int(where.group(2)) and code.split() == where.group(3).split()


def test_excerpts_are_the_code_as_graded_and_a_page_from_the_json_shows_its_text(run):
    """The lines around a Where travel with the result (taken while grading): no page re-reads a file that may
    have changed since. A result read back from the contract's JSON has only its feedback text: shown as it is."""
    from autograder.model.results import from_contract
    from autograder.report.feedback_pages import feedback_page

    pages, results = run
    graded = Elements(page_of(pages, hostile_result(results)).read_text(encoding="utf-8"))
    excerpt = " ".join(text for text in graded.text.split("\n") if "│" in text)
    assert "err = q.numpy() - target.numpy()" in excerpt
    from_json = feedback_page(from_contract(hostile_result(results)))
    assert "<mark>" not in from_json and "<pre aria-label" not in from_json
    text = " ".join(Elements(from_json).text.split())
    for exercise in hostile_result(results)["exercises"]:
        for line in exercise["feedback"].splitlines():
            assert " ".join(line.split()) in text, line
        for pitfall in exercise["pitfalls"]:
            assert f"Pitfall {pitfall}" in text


def test_student_html_is_text_not_markup(run):
    pages, results = run
    result = hostile_result(results)
    feedback = "\n".join(e["feedback"] for e in result["exercises"])
    assert "<script>alert(2)</script>" in feedback and "<script>alert(4)</script>" in feedback
    page = Elements(page_of(pages, result).read_text(encoding="utf-8"))
    assert not page.tags("script") and not page.tags("img")
    assert not [attrs for _, attrs in page.elements if any(name.startswith("on") for name in attrs)]
    for text in (HOSTILE_STUDENT, "<script>alert(2)</script><img src=x onerror=alert(3)>",
                 "# <script>alert(4)</script>"):
        assert text in page.text
    index = Elements(index_path(pages).read_text(encoding="utf-8"))
    assert not index.tags("script") and HOSTILE_STUDENT in index.text


def test_pages_are_offline(run):
    pages, results = run
    for path in [index_path(pages), *(page_of(pages, r) for r in results)]:
        page = Elements(path.read_text(encoding="utf-8"))
        assert not page.tags("script") and not page.tags("link") and not page.tags("img")
        assert any(m.get("http-equiv") == "Content-Security-Policy" for m in page.tags("meta"))
        for _, attrs in page.elements:
            assert not (attrs.get("href") or "").startswith(("http:", "https:", "//")), (path, attrs)


# --------------------------------------------------------------------------- a real browser

def test_chromium_renders_a_feedback_page_without_running_student_html(run):
    pages, results = run
    dom = Elements(browser_dom(page_of(pages, hostile_result(results))))
    assert not dom.tags("script") and not dom.tags("img")
    assert "<script>alert(2)</script><img src=x onerror=alert(3)>" in dom.text
    assert "log1pexp · 0 / 2" in dom.text and "Pitfall gradient-cut" in dom.text
    bram = next(r for r in results if r["student"] == "bram")
    assert "Pitfall unstable-gradient" in Elements(browser_dom(page_of(pages, bram))).text
