"""Every output and number the README, docs/ and examples/ show is what the kit prints today.

scripts/docs_outputs.py holds the claims (each shown output, found by a pattern) and renders what is due with the
kit's own writers from the golden JSON (which tests/test_examples.py keeps equal to a real run; it also checks
that the default command prints the class table rendered here). A stale claim fails here with its file, line,
what is shown and what is due; `python scripts/docs_outputs.py --write` rewrites them (docs/development.md).
"""
from __future__ import annotations

import importlib.util
import shutil
import sys

from helpers import ROOT

SPEC = importlib.util.spec_from_file_location("docs_outputs", ROOT / "scripts" / "docs_outputs.py")
docs_outputs = sys.modules.setdefault("docs_outputs", importlib.util.module_from_spec(SPEC))
SPEC.loader.exec_module(docs_outputs)  # registered first: its dataclasses look their module up


def test_every_shown_output_is_what_the_kit_prints_now():
    stale = docs_outputs.findings()
    assert not stale, ("stale outputs in the documentation (regenerate: python scripts/docs_outputs.py --write, "
                       "then review git diff):\n" + docs_outputs.report(stale))


def copy_pages(target):
    for claim in docs_outputs.CLAIMS:
        (target / claim.file).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / claim.file, target / claim.file)
    (target / "examples").mkdir(exist_ok=True)
    shutil.copy(ROOT / "examples" / "README.md", target / "examples" / "README.md")


def test_a_stale_number_is_named_at_its_line_and_written_back(tmp_path):
    copy_pages(tmp_path)
    page = tmp_path / "examples" / "README.md"
    text = page.read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| bram | custom_gradients |"))
    line_number = text.splitlines().index(row) + 1
    page.write_text(text.replace(row, row.replace("| 10.43 / 12 |", "| 9.43 / 10 |", 1)
                                 .replace("`log1pexp` partial 1.43", "`log1pexp` partial 1.2"), 1),
                    encoding="utf-8")
    cli = tmp_path / "docs" / "cli.md"
    cli.write_text(cli.read_text(encoding="utf-8").replace("Class results (", "Class results (99 ", 1))
    stale = docs_outputs.findings(tmp_path)
    assert [(f.file, f.line) for f in stale if f.file == "examples/README.md"] == [("examples/README.md", line_number)]
    [wrong] = [f for f in stale if f.file == "examples/README.md"]
    assert "9.43 / 10" in wrong.shown and "10.43 / 12" in wrong.due and "`log1pexp` partial 1.43" in wrong.due
    assert any(f.file == "docs/cli.md" and f.due and "Class results (32" in f.due for f in stale)
    assert docs_outputs.write(tmp_path) == 2
    assert docs_outputs.findings(tmp_path) == []
    assert page.read_text(encoding="utf-8") == (ROOT / "examples" / "README.md").read_text(encoding="utf-8")


def test_a_reworded_page_is_reported_not_skipped(tmp_path):
    copy_pages(tmp_path)
    prairielearn = tmp_path / "examples" / "prairielearn" / "README.md"
    prairielearn.write_text(prairielearn.read_text(encoding="utf-8").replace("for bram's", "for Bram's"))
    stale = docs_outputs.findings(tmp_path)
    assert [(f.file, f.due) for f in stale] == [("examples/prairielearn/README.md", None)]
