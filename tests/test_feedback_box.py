"""The red box of a failing public check wraps its lines between words in JupyterLab, not inside them.

JupyterLab's output area styles every `<pre>` with `word-break: break-all` (packages/outputarea/style/base.css),
which broke the box's lines anywhere ("lin es"). The box's own style overrides it. Rendered in headless Chromium
under JupyterLab's rule (read from the installed JupyterLab when it is there), a script in the page finds every
place where a line ends: in the box each is between two words; in a bare `<pre>` under the same rule (the control)
words are cut, so the rule is in force. (A line may end after a hyphen, as typography allows:
`[tape-outside-` / `context]`.)
"""
from __future__ import annotations

import html
import json
import re
import sys
from pathlib import Path

import pytest

from autograder.frontends.selfcheck import FailedCheck
from helpers import ROOT, browser_dom

pytestmark = pytest.mark.slow  # starts Chromium

# JupyterLab 4's rule, as packages/outputarea/style/base.css writes it (used when JupyterLab is not installed).
JUPYTERLAB_OUTPUT_PRE = """.jp-OutputArea-output pre {
  border: none;
  margin: 0;
  padding: 0;
  overflow-x: auto;
  overflow-y: auto;
  word-break: break-all;
  word-wrap: break-word;
  white-space: pre-wrap;
}"""

MEASURE = """
<script>
function cuts(id) {
  const pre = document.querySelector('#' + id + ' pre');
  const text = pre.textContent, node = pre.firstChild, found = [];
  let last = null, gap = false;
  for (let i = 0; i < text.length; i++) {
    if (/\\s/.test(text[i])) { gap = true; continue; }
    const range = document.createRange();
    range.setStart(node, i); range.setEnd(node, i + 1);
    const top = range.getBoundingClientRect().top;
    if (last !== null && top > last.top + 1 && !gap && text[i - 1] !== '-') {  // after a hyphen: a break
      const start = text.lastIndexOf(' ', i), end = text.indexOf(' ', i);
      found.push(text.slice(start + 1, end < 0 ? undefined : end).split('\\n')[0]);
    }
    last = {top: top}; gap = false;
  }
  return found;
}
document.body.setAttribute('data-box', JSON.stringify(cuts('box')));
document.body.setAttribute('data-plain', JSON.stringify(cuts('plain')));
</script>"""


def jupyterlab_rule() -> str:
    """The `.jp-OutputArea-output pre` rule of the JupyterLab installed beside the kit, else the copy above."""
    static = Path(sys.prefix) / "share" / "jupyter" / "lab" / "static"
    for bundle in sorted(static.glob("*.js")) if static.is_dir() else []:
        match = re.search(r"\.jp-OutputArea-output pre \{[^}]*\}", bundle.read_text(encoding="utf-8", errors="ignore"))
        if match:
            return match.group(0).replace("\\n", "\n")
    return JUPYTERLAB_OUTPUT_PRE


def test_the_failed_checks_box_breaks_lines_between_words_under_jupyterlabs_css(tmp_path):
    golden = json.loads((ROOT / "tests" / "fixtures" / "example_class_seed1.json").read_text(encoding="utf-8"))
    feedback = next(e["feedback"] for r in golden for e in r["exercises"] if len(e["feedback"]) > 600)
    text = "derivatives: public checks failed [tape-outside-context]\n" + feedback  # as check() builds it
    rule = jupyterlab_rule()
    assert "break-all" in rule, rule  # the rule that cut words is what the page is styled with
    page = tmp_path / "box.html"
    page.write_text(
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><style>{rule}\n"
        ".jp-OutputArea-output { width: 31em; font: 14px monospace; }</style></head><body>"
        f"<div class='jp-OutputArea-output' id='box'>{FailedCheck(text)._repr_html_()}</div>"
        f"<div class='jp-OutputArea-output' id='plain'><pre>{html.escape(text)}</pre></div>{MEASURE}</body></html>",
        encoding="utf-8")
    dom = browser_dom(page)
    box = json.loads(html.unescape(re.search(r'data-box="([^"]*)"', dom).group(1)))
    plain = json.loads(html.unescape(re.search(r'data-plain="([^"]*)"', dom).group(1)))
    assert len(plain) >= 3, "the control <pre> under JupyterLab's rule cuts words: otherwise this page measures nothing"
    long_words = [w for w in box if len(w) > 31]  # a word longer than the line may still break (overflow-wrap)
    assert [w for w in box if w not in long_words] == [], f"words cut across lines in the red box: {box}"
