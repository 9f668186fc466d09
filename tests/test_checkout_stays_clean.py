"""The tests write nothing into the checkout (conftest.py compares `git status --ignored` at the session's end
with its start and fails the run on anything new): here, that the comparison sees what it must and only that."""
from __future__ import annotations

import subprocess

from helpers import ROOT, checkout_entries


def test_the_comparison_sees_untracked_and_ignored_files_but_not_pythons_own(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, timeout=60)
    (tmp_path / ".gitignore").write_text(".autograder-seed\n/exchange/\n__pycache__/\n")
    before = checkout_entries(tmp_path)
    (tmp_path / ".autograder-seed").write_text("123\n")
    (tmp_path / "exchange").mkdir()
    (tmp_path / "exchange" / "inbound").write_text("")
    (tmp_path / "gradebook.db").write_text("")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "x.pyc").write_text("")
    assert checkout_entries(tmp_path) - before == {".autograder-seed", "exchange/", "gradebook.db"}


def test_outside_a_git_work_tree_there_is_nothing_to_compare(tmp_path):
    assert checkout_entries(tmp_path / "nowhere") is None


def test_mkdocs_site_and_the_course_files_are_ignored_by_the_checkouts_gitignore():
    """`mkdocs build` (no --site-dir) writes site/; nbgrader's commands at the root write the rest."""
    ignored = subprocess.run(["git", "check-ignore", "--no-index", "site/index.html", "gradebook.db",
                              ".autograder-seed", "exchange/x", "submitted/x"], cwd=ROOT, capture_output=True,
                             text=True, timeout=60).stdout.split()
    assert ignored == ["site/index.html", "gradebook.db", ".autograder-seed", "exchange/x", "submitted/x"]
