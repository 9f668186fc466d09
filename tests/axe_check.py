"""axe-core (Deque's accessibility engine, the npm package `axe-core`) run in headless Chromium on a page.

Why this way: axe-core is a single script, `axe.min.js`; its documented use is to inject it into the page and
call `axe.run()`. The kit's tests already drive headless Chromium over the DevTools protocol (``helpers.Browser``:
a pipe, no port, no Python dependency), so the script is evaluated there (DevTools' evaluation is not bound by a
page's Content-Security-Policy, which forbids every script of the page's own). No Playwright, no Selenium, no
Node process at test time: Node's npm only installs the file, outside the checkout (``.ci/run``).

Where the file is: $AUTOGRADER_AXE_CORE, else the cache folder that ``.ci/run`` installs into. Without it the
checks are skipped with the command that installs it; with AUTOGRADER_AXE_CORE set to a file that is missing,
they fail (CI sets it, so a broken install cannot pass as a skip).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

AXE_VARIABLE = "AUTOGRADER_AXE_CORE"
AXE_VERSION = "4.14.1"  # what .ci/run installs
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "autograder-tests" / "axe"
INSTALLED = CACHE / "node_modules" / "axe-core" / "axe.min.js"
INSTALL = f"npm install --prefix {CACHE} --no-audit --no-fund axe-core@{AXE_VERSION}"
# WCAG 2.0, 2.1 and 2.2, levels A and AA: axe-core's tags for them
WCAG_22_AA = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa")
WIDTHS = (1280, 390)  # a laptop, and a phone (where tables and code scroll in their own boxes)


def axe_script() -> str:
    """axe-core's script, or skip (fail, when AUTOGRADER_AXE_CORE names a file that is not there)."""
    named = os.environ.get(AXE_VARIABLE)
    path = Path(named) if named else INSTALLED
    if path.is_file():
        return path.read_text(encoding="utf-8")
    if named:
        pytest.fail(f"{AXE_VARIABLE}={named}, and there is no such file: install axe-core ({INSTALL})",
                    pytrace=False)
    pytest.skip(f"axe-core is not installed, so the accessibility checks cannot run: `{INSTALL}` (.ci/run does "
                f"it; Node's npm is needed), or set {AXE_VARIABLE} to an axe.min.js")


RUN = """axe.run(document, {runOnly: {type: 'tag', values: TAGS}, resultTypes: ['violations']}).then(r => ({
  version: axe.version, url: location.href,
  violations: r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.slice(0, 5).map(n => n.target.join(' ') + ': ' + n.failureSummary)}))}))"""


def violations(browser, script: str, page: Path | str, width: int) -> list[dict]:
    """axe-core's WCAG 2.2 AA violations on ``page`` (a file, or an http:// address) in a viewport ``width`` pixels
    wide (a phone's, below 500)."""
    browser.call("Emulation.setDeviceMetricsOverride", session=True, width=width, height=900, deviceScaleFactor=1,
                 mobile=width < 500)
    url = page if isinstance(page, str) else page.resolve().as_uri()
    browser.call("Page.navigate", session=True, url=url)
    browser._wait(lambda m: m.get("method") == "Page.loadEventFired", 120)
    loaded = browser.call("Runtime.evaluate", session=True, expression=script)
    assert "exceptionDetails" not in loaded, loaded
    found = browser.call("Runtime.evaluate", session=True, awaitPromise=True, returnByValue=True,
                         expression=RUN.replace("TAGS", json.dumps(list(WCAG_22_AA))))
    assert "exceptionDetails" not in found, found
    report = found["result"]["value"]
    assert report["url"] == url and report["version"], report  # axe ran, on this page
    return report["violations"]


def assert_accessible(browser, script: str, pages: list[Path | str]) -> None:
    """No page of ``pages`` has a violation at any of ``WIDTHS``."""
    assert pages, "no page to check: this would prove nothing"
    found = {f"{page} at {width} px": v for page in pages for width in WIDTHS
             if (v := violations(browser, script, page, width))}
    assert not found, json.dumps(found, indent=1)[:6000]
