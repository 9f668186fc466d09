"""Pages everyone can read: every kind of HTML page the kit writes, and the docs site, pass axe-core at WCAG 2.2 AA
with no violation, on a laptop's width and a phone's; status is never carried by colour alone; every image has alt
text. (The example class's real pages are checked in test_examples.py, from its one grading run.)

The pages here are written from hand-made results that hold everything a page can show (a pitfall with its place
and excerpt, one with "Look for", a capped exercise, a folded case table, advice, notes, a result read back from
the contract's JSON, long code that scrolls), so that each element's markup is checked, not only what one
submission happens to produce. axe-core runs in headless Chromium (``helpers.axe_script``); it is installed outside the
checkout (``.ci/run``), and these tests are skipped, saying how to install it, where it is missing.
"""
from __future__ import annotations

import functools
import http.server
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from autograder.model.results import (Advice, CaseReport, Explanation, ExerciseResult, Status, SubmissionResult,
                                      Where, from_contract)
from autograder.report.class_report import write_class_report
from autograder.report.contract import submission_json
from autograder.report.feedback_pages import write_feedback_pages
from autograder.report.text import MARKS

from helpers import ROOT, Browser, Elements, assert_accessible, axe_script, violations

pytestmark = pytest.mark.slow  # headless Chromium, a docs build

LONG_CODE = "    return tf.reduce_sum(" + " + ".join(f"weights[{k}] * features[{k}]" for k in range(12)) + ")"
TABLE = "\n".join(f"gradient {k} is not close to the reference\n  index  obtained  expected"
                  + "".join(f"\n  ({r},)   {r}.5       {r}" for r in range(5)) for k in range(3))


def every_feature() -> list[SubmissionResult]:
    where = Where("cell [4], line 3", 4, 3, LONG_CODE.strip(), "the sum is taken over the batch here",
                  ((1, "def f(x):"), (2, "    y = g(x)"), (3, LONG_CODE), (4, "    # done")))
    explained = ExerciseResult(
        "safe_norm", 2 * 3 / 7, 2.0, Status.PARTIAL, ["wrong-norm-axis", "ignores-upstream"],
        summary="3 of 7 cases passed.", notes=["`safe_norm` takes (y) but the exercise asks for `safe_norm(x)`."],
        explanations=[Explanation("wrong-norm-axis", "the norm is taken over axis 0", "reduce over axis 1", where),
                      Explanation("ignores-upstream", "grad_fn drops upstream", "multiply by upstream",
                                  look_for="what your grad_fn returns")],
        cases=[CaseReport("a", "float32 Tensor x of shape (3, 4)", True, TABLE),
               CaseReport("b", "float32 Tensor x of shape (5, 4)", False, "the norm of each row has the wrong shape")],
        more_failing=3, cases_passed=3, cases_total=7)
    capped = ExerciseResult("log1pexp", 1.0, 2.0, Status.PARTIAL, ["no-custom-gradient"], summary="7 of 7 cases "
                            "passed.", cap="capped at half: no `@tf.custom_gradient`", cases_total=7, cases_passed=7)
    advised = ExerciseResult("td_loss", 2.0, 2.0, Status.PASSED, summary="All 3 cases passed.", advice=[
        Advice("f64", "float64 inputs", "your td_loss does not keep float64", "raised TypeError: no")])
    others = [ExerciseResult("clip_gradient_norm", 0.0, 2.0, Status.ERROR, [], summary="It raised."),
              ExerciseResult("straight_through_round", 0.0, 2.0, Status.MISSING, [], summary="Not defined."),
              ExerciseResult("checkpointed", 0.0, 2.0, Status.NOT_IMPLEMENTED, ["not-implemented"],
                             summary="Still raises NotImplementedError."),
              ExerciseResult("x", 0.0, 2.0, Status.TIMEOUT, [], summary="Out of time.")]
    ana = SubmissionResult("submitted/ana/custom_gradients/custom_gradients.ipynb", "ana", "custom_gradients",
                           [explained, capped, advised, *others], notes=["cell [9] was skipped: it did not finish"])
    # a result read back from the contract's JSON (`autograder report`): its feedback is text only
    read_back = from_contract(submission_json(SubmissionResult("submitted/bo/custom_gradients.ipynb", "<b>bo</b>",
                                                               "custom_gradients", [explained, capped])))
    return [ana, read_back]


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> list[Path]:
    folder = tmp_path_factory.mktemp("pages")
    results = every_feature()
    written = write_feedback_pages(results, folder / "feedback", seed=3)
    report = write_class_report(results, folder / "report")
    return [*written, report]


@pytest.fixture(scope="module")
def browser():
    script = axe_script()  # skips before Chromium starts when axe-core is missing
    with Browser() as chromium:
        yield chromium, script


def test_axe_finds_what_it_should_on_a_page_made_inaccessible(browser, tmp_path):
    """The check can fail: an image without alt text, grey on white, and a box that scrolls but takes no focus."""
    chromium, script = browser
    bad = tmp_path / "bad.html"
    bad.write_text('<!DOCTYPE html><html><head><title>x</title></head><body><img src="x.png">'
                   '<p style="color:#bbb">faint</p><pre style="overflow-x:auto;width:100px">'
                   + "a long line of code " * 20 + "</pre></body></html>", encoding="utf-8")
    found = {v["id"] for v in violations(chromium, script, bad, 1280)}
    assert {"image-alt", "color-contrast", "html-has-lang", "scrollable-region-focusable"} <= found, found


def test_every_kind_of_page_the_kit_writes_passes_axe_core(browser, pages):
    chromium, script = browser
    assert len(pages) == 4  # two feedback pages, their index, the class report
    assert_accessible(chromium, script, pages)


def test_status_is_never_carried_by_colour_alone_and_every_image_has_alt_text(pages):
    for page in pages:
        dom = Elements(page.read_text(encoding="utf-8"))
        assert dom.tags("main") and dom.tags("html")[0].get("lang") == "en", page
        assert all(img.get("alt") for img in dom.tags("img")), page
    text = Elements((pages[0]).read_text(encoding="utf-8")).text
    for status in ("passed", "partial", "error", "missing", "not-implemented", "timeout"):
        assert f"{MARKS[status]} {status}" in text  # a mark and the word, beside the colour


def test_the_docs_site_passes_axe_core(browser, tmp_path):
    """Built as the docs test builds it, served over HTTP as a reader gets it (its 404 page links by absolute
    paths, which a file:// address cannot follow)."""
    chromium, script = browser
    site = tmp_path / "site"
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)], cwd=ROOT,
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    handler = functools.partial(QuietHandler, directory=str(site))
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_address[1]}/"
        folders = [p.parent.relative_to(site).as_posix() for p in sorted(site.rglob("index.html"))]
        pages = [base if folder == "." else f"{base}{folder}/" for folder in folders]
        assert len(pages) >= 12, pages
        try:
            assert_accessible(chromium, script, [*pages, base + "404.html"])
        finally:
            server.shutdown()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # noqa: D401  (no request log in the test output)
        pass


def test_the_notebooks_figures_carry_alt_text(monkeypatch):
    """Each notebook's figures go through its `show_figure`, which gives the image a text alternative (its
    titles and axis labels by default) that screen readers and HTML exports (nbconvert's `alt`) read."""
    import json

    import IPython.display
    from matplotlib.figure import Figure

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, **kw: shown.append(kw))
    for root in ("solutions", "assignments"):
        for notebook in sorted((ROOT / root).glob("*/*.ipynb")):
            cells = ["".join(c["source"]) for c in json.loads(notebook.read_text(encoding="utf-8"))["cells"]
                     if c["cell_type"] == "code"]
            shows = [c for c in cells if "display(" in c and "Image(" in c]
            assert len(shows) <= 1 and all("def show_figure" in c for c in shows), notebook
            if not shows:
                continue
            code = shows[0]
            definition = code[code.index("def show_figure"):]
            definition = definition.split("\n\n")[0]  # up to a blank line, or the cell's end
            namespace: dict = {}
            exec(definition, namespace)  # noqa: S102  (the notebook's own helper, on a figure of ours)
            fig = Figure()
            fig.subplots().set(title="a title", xlabel="x", ylabel="y")
            namespace["show_figure"](fig)
            alt = shown[-1]["metadata"]["image/png"]["alt"]
            assert "a title" in alt and "x against y" in alt, (notebook, alt)
            namespace["show_figure"](fig, "my own words")
            assert shown[-1]["metadata"]["image/png"]["alt"] == "my own words"
