"""What a student's kernel shows below a graded cell and where it says a mistake is (README, "Students").

- In a clone (the kit's solutions and mistake models at hand), a kernel whose `log1pexp` is correct while the
  notebook saved on disk still holds the stub: the public check passes, and the graded cell says in one line that
  the hidden cases run when the instructor grades. It used to grade the saved file ("0 / 2 not-implemented").
- One numbering: Run All of bram's higher_order notebook in a kernel; the public check names the cell of his
  `derivatives` "cell [6]", which is that cell's execution count, and the grader's feedback on the same saved
  file (the golden JSON, which tests/test_examples.py proves is the CLI's output) names the same cell [6].
"""
from __future__ import annotations

import json
import shutil

import nbformat
import pytest
from nbclient import NotebookClient

from autograder.frontends.nbgrader_cell import LATER
from helpers import ROOT, quiet_env

pytestmark = pytest.mark.slow


def run(notebook, cwd) -> nbformat.NotebookNode:
    env = quiet_env(AUTOGRADER_NBGRADER="", NBGRADER_EXECUTION="")
    NotebookClient(notebook, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}).execute(
        env={k: v for k, v in env.items() if v != ""})
    return notebook


def shown(cell) -> str:
    return "".join(o.get("text", "") if o.output_type == "stream" else o.get("data", {}).get("text/plain", "")
                   for o in cell.outputs)


def by_grade_id(notebook, grade_id: str):
    return next(c for c in notebook.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == grade_id)


def test_the_graded_cell_never_grades_the_file_saved_on_disk(tmp_path):
    release = ROOT / "assignments" / "custom_gradients" / "custom_gradients.ipynb"
    shutil.copy(release, tmp_path / release.name)  # saved on disk: every exercise a stub
    notebook = nbformat.read(release, as_version=4)
    solved = by_grade_id(nbformat.read(ROOT / "solutions" / "custom_gradients" / "custom_gradients.ipynb",
                                       as_version=4), "log1pexp")
    kernel = nbformat.v4.new_notebook(cells=[by_grade_id(notebook, "setup"), solved,
                                             by_grade_id(notebook, "check_log1pexp"),
                                             by_grade_id(notebook, "test_log1pexp")])
    run(kernel, tmp_path)
    assert shown(kernel.cells[2]).startswith("log1pexp: public checks passed"), shown(kernel.cells[2])
    assert shown(kernel.cells[3]) == f"log1pexp: {LATER}\n"  # one line, no score, no stale grade


def test_the_public_check_and_the_grader_name_a_cell_by_one_number(tmp_path):
    path = ROOT / "examples" / "submitted" / "bram" / "higher_order" / "higher_order.ipynb"
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:  # the demos cost time and define nothing bram uses: each runs as `pass`
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("grade_id", "").startswith("demo_"):
            cell.source = "pass"
    run(notebook, tmp_path)
    defined = by_grade_id(notebook, "derivatives")
    assert defined.execution_count == 6  # Run All: the 6th code cell
    check = shown(by_grade_id(notebook, "check_derivatives"))
    assert "Where: cell [6], line 11: `dy_dx = inner.gradient(y, x)`" in check, check[:1500]
    golden = json.loads((ROOT / "tests" / "fixtures" / "example_class_seed1.json").read_text(encoding="utf-8"))
    graded = next(e["feedback"] for r in golden if r["submission"] == str(path.relative_to(ROOT))
                  for e in r["exercises"] if e["id"] == "derivatives")
    assert "Where: cell [6], line 11: `dy_dx = inner.gradient(y, x)`" in graded, graded[:1500]
