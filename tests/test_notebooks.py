"""The course content: solution notebooks run clean, releases are nbgrader's output and stub every exercise."""
from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys

import nbformat
import pytest
from nbclient import NotebookClient

from autograder.course import assignment_by_id
from conftest import ASSIGNMENT_IDS, ROOT, quiet_env

pytestmark = pytest.mark.slow


def execute(path, tmp_path, allow_errors: bool) -> nbformat.NotebookNode:
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(notebook, timeout=600, kernel_name="python3", allow_errors=allow_errors,
                            resources={"metadata": {"path": str(tmp_path)}})
    client.execute(env=quiet_env())
    return notebook


def errors_of(cell) -> list[str]:
    return [output.get("ename", "") for output in cell.get("outputs", []) if output.get("output_type") == "error"]


def stderr_of(cell) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", [])
                   if o.get("output_type") == "stream" and o.get("name") == "stderr")


def grade_id(cell) -> str:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", "")


@pytest.mark.parametrize("assignment", ASSIGNMENT_IDS)
def test_solution_notebook_runs_clean_in_a_real_kernel(assignment, tmp_path):
    notebook = execute(ROOT / "solutions" / assignment / f"{assignment}.ipynb", tmp_path, allow_errors=False)
    graded = [cell for cell in notebook.cells if cell.get("metadata", {}).get("nbgrader", {}).get("grade")]
    assert len(graded) == len(assignment_by_id(assignment).exercises)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert not stderr_of(cell), f"{grade_id(cell)} wrote to stderr: {stderr_of(cell)[:500]}"
            assert not errors_of(cell), grade_id(cell)


@pytest.mark.parametrize("assignment", ASSIGNMENT_IDS)
def test_released_notebook_fails_only_with_not_implemented(assignment, tmp_path):
    notebook = execute(ROOT / "assignments" / assignment / f"{assignment}.ipynb", tmp_path, allow_errors=True)
    failing = {}
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        assert not stderr_of(cell) or errors_of(cell), f"{grade_id(cell)} wrote to stderr: {stderr_of(cell)[:300]}"
        if errors_of(cell):
            failing[grade_id(cell)] = errors_of(cell)
    for cell_id, names in failing.items():
        assert names == ["NotImplementedError"], f"{cell_id} failed with {names}"
        assert cell_id.startswith(("check_", "test_")), f"{cell_id} is not an exercise check but failed"
    exercises = [e.id for e in assignment_by_id(assignment).exercises]
    assert {f"check_{e}" for e in exercises} <= set(failing), "every exercise's public check reaches the stub"


@pytest.mark.parametrize("assignment", ASSIGNMENT_IDS)
def test_released_notebook_is_what_nbgrader_generates_now(assignment, tmp_path):
    course = tmp_path / "course"
    shutil.copytree(ROOT / "solutions" / assignment, course / "solutions" / assignment)
    shutil.copy(ROOT / "nbgrader_config.py", course)
    done = subprocess.run([sys.executable, "-m", "nbgrader", "generate_assignment", assignment, "--force"],
                          cwd=course, env=quiet_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    fresh = json.loads((course / "assignments" / assignment / f"{assignment}.ipynb").read_text())
    committed = json.loads((ROOT / "assignments" / assignment / f"{assignment}.ipynb").read_text())
    assert committed == fresh, (f"assignments/{assignment} is out of date: run "
                                f"`nbgrader generate_assignment {assignment} --force` at the repository root")


def functions_in(path) -> dict[str, list[str]]:
    found = {}
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type == "code":
            tree = ast.parse("\n".join(line for line in cell.source.splitlines()
                                       if not line.lstrip().startswith(("%", "!"))))
            found.update({node.name: [a.arg for a in node.args.args] for node in tree.body
                          if isinstance(node, ast.FunctionDef)})
    return found


CONTRACT = {  # ../shared/CURRICULUM.md, written out so that a change on either side fails here
    "custom_gradients": {"log1pexp": ["x"], "straight_through_round": ["x"], "clip_gradient_norm": ["x", "max_norm"],
                         "td_loss": ["q", "reward", "next_q", "gamma"], "checkpointed": ["f"]},
    "higher_order": {"derivatives": ["f", "x"], "hessian_vector_product": ["f", "x", "v"],
                     "gradient_penalty": ["critic", "real", "fake", "alpha"],
                     "critic_gradients": ["critic", "real", "fake", "alpha", "gp_weight"], "newton_step": ["f", "x"]},
    "jacobians": {"jacobian": ["f", "x"], "batch_jacobian": ["f", "x"], "robust_jacobian": ["f", "x"],
                  "hessian": ["f", "x"], "jvp": ["f", "x", "v"]},
}


@pytest.mark.parametrize("assignment", ASSIGNMENT_IDS)
def test_every_contract_exercise_is_defined_with_its_exact_signature(assignment):
    for folder in ("solutions", "assignments"):
        defined = functions_in(ROOT / folder / assignment / f"{assignment}.ipynb")
        for name, params in CONTRACT[assignment].items():
            assert defined.get(name) == params, f"{folder}/{assignment}: {name}({', '.join(params)})"
    spec = assignment_by_id(assignment)
    assert [e.id for e in spec.exercises] == list(CONTRACT[assignment])
    assert [list(e.params) for e in spec.exercises] == list(CONTRACT[assignment].values())
    assert spec.max_score == 10.0
