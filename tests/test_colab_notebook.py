"""A notebook saved in Colab grades as the same notebook saved in JupyterLab (README, "Students").

Made from an example submission (bram's higher_order: partial marks, a pitfall named where it is) as Colab
writes it when a student uploads the release, works and downloads it (File > Download .ipynb): nbformat 4.0
(no cell ids), the notebook metadata Colab keeps (`colab`, `accelerator`, Colab's kernelspec; no `autograder`
key), each cell's Colab metadata (`id`, `outputId`, `colab`), saved outputs and execution counts; plus what a
Colab student adds: a cell installing the kit (`!pip install`, `%pip`), a `%%capture` cell, a cell mounting
Google Drive (`from google.colab import drive`, which fails anywhere but Colab), `%load_ext autoreload`. Two
variants: nbgrader's cell metadata kept, and dropped (then the grader reads every cell as the student's).

One real grading run of the three files: every exercise's score, status and pitfalls are the JupyterLab file's,
and so is the feedback, once its cell numbers are shifted back by the cells the student added above.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from helpers import ROOT, grade_json

pytestmark = pytest.mark.slow

SOURCE = ROOT / "examples" / "submitted" / "bram" / "higher_order" / "higher_order.ipynb"
ADDED = [  # what a Colab student puts above the course's cells: each a cell of its own, as Colab's snippets do
    "!pip install -q tf_autodiff_autograder-0.1.0-py3-none-any.whl\n%pip install -q matplotlib",
    "%%capture\n!pip install -q tf_autodiff_autograder-0.1.0-py3-none-any.whl",
    "from google.colab import drive\ndrive.mount('/content/drive')",
    "%load_ext autoreload\n%autoreload 2\n!nvidia-smi",
]


def lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def as_colab_saves_it(keep_nbgrader: bool) -> dict:
    """bram's notebook after a round trip through Colab (see the module's docstring)."""
    original = json.loads(SOURCE.read_text(encoding="utf-8"))
    cells = [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": lines(code)}
             for code in ADDED] + original["cells"]
    count = 0
    for number, cell in enumerate(cells):
        cell.pop("id", None)  # nbformat 4.0: ids live in the metadata
        nbgrader = cell.get("metadata", {}).get("nbgrader")
        cell["metadata"] = {"id": f"c0LaB{number:04d}", **({"nbgrader": nbgrader} if keep_nbgrader and nbgrader else {})}
        if cell["cell_type"] == "code":
            count += 1
            cell["execution_count"] = count
            cell["metadata"].update(colab={"base_uri": "https://localhost:8080/"}, outputId=f"0a1b2c3d-{number:04d}")
            cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["TensorFlow 2.19.0\n"]}] \
                if "import tensorflow" in "".join(cell["source"]) else []
    cells[2]["outputs"] = [{"output_type": "error", "ename": "ModuleNotFoundError", "evalue": "no google here",
                            "traceback": []}]
    return {"nbformat": 4, "nbformat_minor": 0, "cells": cells, "metadata": {
        "colab": {"provenance": [], "gpuType": "T4", "toc_visible": True},
        "kernelspec": {"name": "python3", "display_name": "Python 3"},
        "language_info": {"name": "python"}, "accelerator": "GPU"}}


def renumbered(feedback: str, shift: int) -> str:
    return re.sub(r"cell \[(\d+)\]", lambda m: f"cell [{int(m.group(1)) - shift}]", feedback)


def test_a_notebook_saved_in_colab_grades_as_the_one_saved_in_jupyterlab(tmp_path):
    folder = tmp_path / "class"
    for name, keep in (("lab", None), ("colab", True), ("colab-metadata-dropped", False)):
        target = folder / name / "higher_order.ipynb"
        target.parent.mkdir(parents=True)
        target.write_text(SOURCE.read_text(encoding="utf-8") if keep is None
                          else json.dumps(as_colab_saves_it(keep), indent=1), encoding="utf-8")
    results = {Path(r["submission"]).parent.name: r for r in grade_json(str(folder), "--seed", "3")}
    lab = results["lab"]
    assert 0 < lab["score"] < lab["max_score"] and any(e["pitfalls"] for e in lab["exercises"])
    assert any("cell [" in e["feedback"] for e in lab["exercises"]), "the comparison must include Where lines"
    for name in ("colab", "colab-metadata-dropped"):
        colab = results[name]
        assert colab["assignment"] == "higher_order" and colab["score"] == lab["score"], name
        for mine, theirs in zip(colab["exercises"], lab["exercises"]):
            assert (mine["id"], mine["score"], mine["status"], mine["pitfalls"]) == \
                (theirs["id"], theirs["score"], theirs["status"], theirs["pitfalls"]), (name, mine["feedback"])
            assert renumbered(mine["feedback"], len(ADDED)) == theirs["feedback"], name
