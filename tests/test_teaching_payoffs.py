"""The demos that reuse a student's own function (issue 31's payoffs), on the path the solution notebooks do not
take: higher_order's cell where a student pastes the safe_norm of notebook custom_gradients.

That cell is the student's (no nbgrader metadata, not read-only): the demo after it compares the pasted
safe_norm with tf.norm in a real kernel, and the grader runs it as it runs the student's other cells, so a
gradient_penalty that calls the pasted safe_norm earns its points.
"""
from __future__ import annotations

import nbformat
import pytest
from nbclient import NotebookClient

from helpers import ROOT, grade_json, quiet_env

pytestmark = pytest.mark.slow

STUB = "    # YOUR CODE HERE\n    raise NotImplementedError()"
PENALTY_WITH_SAFE_NORM = '''    interpolates = alpha * real + (1.0 - alpha) * fake
    with tf.GradientTape() as tape:
        tape.watch(interpolates)
        scores = tf.reduce_sum(critic(interpolates))
    g = tape.gradient(scores, interpolates)
    norm = safe_norm(tf.reshape(g, [tf.shape(g)[0], -1]))  # the safe_norm pasted above
    return tf.reduce_mean(tf.square(norm - 1.0))'''


def grade_id(cell) -> str:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", "")


def reference_safe_norm() -> str:
    """The safe_norm cell of the custom_gradients solution, as a student who solved it has it."""
    notebook = nbformat.read(ROOT / "solutions" / "custom_gradients" / "custom_gradients.ipynb", as_version=4)
    (source,) = [cell.source for cell in notebook.cells if grade_id(cell) == "safe_norm"]
    return "\n".join(line for line in source.splitlines() if "### BEGIN SOLUTION" not in line
                     and "### END SOLUTION" not in line)


def release_with_pasted_safe_norm() -> nbformat.NotebookNode:
    notebook = nbformat.read(ROOT / "assignments" / "higher_order" / "higher_order.ipynb", as_version=4)
    (paste,) = [cell for cell in notebook.cells if cell.get("id") == "your-safe-norm"]
    assert "nbgrader" not in paste.metadata and paste.source.rstrip().endswith("safe_norm = None")
    paste.source = reference_safe_norm()
    return notebook


def test_the_penalty_demo_compares_the_pasted_safe_norm_with_tf_norm(tmp_path):
    notebook = release_with_pasted_safe_norm()
    last = next(i for i, cell in enumerate(notebook.cells) if grade_id(cell) == "demo_gradient_penalty_3")
    notebook.cells = notebook.cells[:last + 1]
    NotebookClient(notebook, timeout=600, kernel_name="python3", allow_errors=False,
                   resources={"metadata": {"path": str(tmp_path)}}).execute(env=quiet_env())
    shown = "".join(o.get("text", "") for o in notebook.cells[-1].outputs if o.get("output_type") == "stream")
    assert "NaN in its gradient: 16 of 48" in shown.split("tf.norm(rows, axis=1)")[1].splitlines()[0], shown
    (mine,) = [line for line in shown.splitlines() if line.startswith("your safe_norm")]
    assert "NaN in its gradient: 0 of 48" in mine and "norms [0.     5.7266 4.0294]" in mine, shown


def test_a_gradient_penalty_that_calls_the_pasted_safe_norm_earns_its_points(tmp_path):
    notebook = release_with_pasted_safe_norm()
    (cell,) = [cell for cell in notebook.cells if grade_id(cell) == "gradient_penalty"]
    cell.source = cell.source.replace(STUB, PENALTY_WITH_SAFE_NORM)
    path = tmp_path / "higher_order.ipynb"
    nbformat.write(notebook, path)
    (result,) = grade_json(str(path), "--assignment", "higher_order", "--seed", "3")
    penalty = next(e for e in result["exercises"] if e["id"] == "gradient_penalty")
    assert (penalty["status"], penalty["score"]) == ("passed", 2.0), penalty["feedback"][:2000]
