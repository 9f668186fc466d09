"""Writers on hand-made results (nothing is graded): each renders the structure, escapes what students control.

The slow modules (test_feedback_pages, test_formats, test_class_report) read the same writers' output of a
real grading run with real parsers and a real browser; these pin what the structure becomes.
"""
from __future__ import annotations

import re

from autograder.model.results import SubmissionResult
from autograder.report.feedback_pages import feedback_page, page_paths
from autograder.report.formats import gradescope_results, to_csv, to_junit
from helpers import SCRIPT_TAG, Elements, hand_made_result as result

def test_a_page_renders_each_explanation_with_its_place_its_lines_and_its_fix():
    html = feedback_page(result())
    page = Elements(html)
    assert not page.tags("script")
    boxes = [attrs["data-pitfall"] for attrs in page.tags("div") if attrs.get("class") == "pitfall"]
    assert boxes == ["gradient-cut", "not-implemented"]  # the stub's pitfall gets the catalogue's words
    marked = re.findall(r"<mark>(.*?)</mark>", html)
    assert len(marked) == 1 and Elements(marked[0]).text.startswith("2 │ g = x.numpy()")
    text = page.text
    for part in ("Where: cell 7, line 2: g = x.numpy()", "x.numpy() on line 2 cuts it", "Fix: keep tensors.",
                 "The gradient stops at .numpy().", "Case float32, batch 2:", "(2 more failing cases not shown)",
                 SCRIPT_TAG, "td_loss · 0.5 / 2"):
        assert part in text.replace("`", ""), part


def test_file_names_are_safe_and_unique():
    names = ["a b", "a_b", "A_B", "index.html", "..", "", "../../etc", "ümlaut", "a b"]
    results = [SubmissionResult(f"{i}.ipynb", name, "custom_gradients", []) for i, name in enumerate(names)]
    paths = page_paths(results)
    assert len({p.lower() for p in paths}) == len(paths)
    for path in paths:
        folder, page = path.split("/")
        assert re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9._-]*", folder) and folder.lower() != "index.html", path
        assert page.startswith("custom_gradients")
    # "a_b" is its own folder; "a b" is changed visibly (its digest), the same for both of its submissions
    assert paths[1] == "a_b/custom_gradients.html"
    assert re.fullmatch(r"a_b--[0-9a-f]{16}/custom_gradients\.html", paths[0])
    assert paths[-1] == paths[0].replace(".html", "-2.html")


def test_gradescope_junit_and_csv_render_the_same_points_and_feedback():
    graded = result()
    gradescope = gradescope_results(graded)
    assert gradescope["score"] == 2.5 and [t["score"] for t in gradescope["tests"]] == [0.5, 0.0, 2.0]
    assert gradescope["tests"][0]["tags"] == ["gradient-cut"] and "Pitfall `gradient-cut`" in gradescope["tests"][0]["output"]
    junit = to_junit([graded])
    assert 'type="partial"' in junit and 'type="not-implemented"' in junit and "&lt;script&gt;" in junit
    rows = to_csv([graded]).splitlines()
    assert rows[0].split(",")[:2] == ["student", "custom_gradients:td_loss"] and rows[1].endswith(",2.5,6")
