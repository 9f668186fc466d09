"""The documentation: docs/ builds with MkDocs in strict mode, and the README's links lead somewhere.

MkDocs' strict build fails on every warning, and mkdocs.yml turns every broken link between pages and every
missing anchor into one, so a page renamed or a heading reworded breaks this test, not a reader's click.
"""
from __future__ import annotations

import re
import subprocess
import sys

from pathlib import Path

import pytest

from helpers import ROOT, Browser, layout, under_load

PHONE = 390  # CSS pixels: an iPhone 12 to 15's width


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    folder = tmp_path_factory.mktemp("docs") / "site"
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(folder)],
                           cwd=ROOT, capture_output=True, text=True, timeout=under_load(120))
    return folder, built


def built_pages(folder: Path) -> dict[Path, Path]:
    """docs/<page>.md -> its built page."""
    pages = {path.relative_to(ROOT / "docs").with_suffix("") for path in (ROOT / "docs").rglob("*.md")}
    return {page: folder / ("index.html" if page.name == "index" else f"{page}/index.html") for page in pages}


def test_the_documentation_builds_with_no_warning(site):
    folder, built = site
    assert built.returncode == 0, built.stderr
    assert "WARNING" not in built.stderr, built.stderr
    for page, built_page in built_pages(folder).items():
        assert built_page.is_file(), f"docs/{page}.md was not built (missing from mkdocs.yml's nav?)"


def test_no_page_of_the_documentation_scrolls_sideways_on_a_phone(site):
    """The Students page's TensorFlow table, the Speed page's tables: each scrolls in its own box (docs/css)."""
    folder, built = site
    assert built.returncode == 0, built.stderr
    with Browser() as browser:
        for page, built_page in sorted(built_pages(folder).items()):
            measured = layout(browser, built_page, PHONE)
            assert measured["scrollWidth"] <= PHONE and not measured["wide"], (f"docs/{page}.md", measured)


def test_every_relative_link_of_the_readme_exists():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = [target for target in re.findall(r'\]\(([^)\s]+)\)|src="([^"]+)"', readme) for target in target
             if target and "://" not in target]
    assert links, "the README links the documentation"
    for target in links:
        assert (ROOT / target.split("#")[0]).exists(), f"README links {target}, which does not exist"


def test_the_readme_stays_a_front_door():
    """The README is what the kit is, the two commands and the three ways in; the rest lives in docs/."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 120
    for command in ("pip install -e '.[nbgrader]' && .venv/bin/autograder grade",
                    "pip install -e '.[nbgrader,test]' && .venv/bin/python -m pytest"):
        assert command in readme
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "python3 -m venv .venv && .venv/bin/pip install -q -e '.[nbgrader,test]' && .venv/bin/python -m pytest" in ci
