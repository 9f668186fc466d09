"""The course content: solution notebooks run clean with every check passing and their figures drawn;
releases are nbgrader's output, stub every exercise and run top to bottom (Run All reaches the end)."""
from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from autograder.course import assignment_by_id
from helpers import ASSIGNMENT_IDS, ROOT, quiet_env

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


def check_cells(notebook) -> dict[str, object]:
    return {grade_id(cell)[len("check_"):]: cell for cell in notebook.cells if grade_id(cell).startswith("check_")}


def shown_text(cell) -> str:
    """What a cell shows: its stdout and the plain text of its displays."""
    return "".join(o.get("text", "") if o.get("output_type") == "stream" else o.get("data", {}).get("text/plain", "")
                   for o in cell.get("outputs", []) if not (o.get("output_type") == "stream" and o.get("name") == "stderr"))


def images_of(notebook) -> int:
    return sum("image/png" in o.get("data", {}) for cell in notebook.cells if cell.cell_type == "code"
               for o in cell.get("outputs", []))


@pytest.mark.parametrize("assignment", ASSIGNMENT_IDS)
def test_solution_notebook_runs_clean_in_a_real_kernel(assignment, tmp_path):
    notebook = execute(ROOT / "solutions" / assignment / f"{assignment}.ipynb", tmp_path, allow_errors=False)
    graded = [cell for cell in notebook.cells if cell.get("metadata", {}).get("nbgrader", {}).get("grade")]
    assert len(graded) == len(assignment_by_id(assignment).exercises)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert not stderr_of(cell), f"{grade_id(cell)} wrote to stderr: {stderr_of(cell)[:500]}"
            assert not errors_of(cell), grade_id(cell)
    checks = check_cells(notebook)
    assert sorted(checks) == sorted(e.id for e in assignment_by_id(assignment).exercises)
    for exercise_id, cell in checks.items():
        assert f"{exercise_id}: public checks passed" in shown_text(cell), shown_text(cell)[:1000]
        assert "public checks failed" not in shown_text(cell)
    assert images_of(notebook) >= 2, "the demo cells draw at least two figures (image/png outputs)"


@pytest.mark.parametrize("assignment", ASSIGNMENT_IDS)
def test_released_notebook_runs_top_to_bottom_and_its_checks_report_the_stubs(assignment, tmp_path):
    """Run All on the release, every exercise a stub: no cell raises, and each public check shows why it fails."""
    notebook = execute(ROOT / "assignments" / assignment / f"{assignment}.ipynb", tmp_path, allow_errors=True)
    code_cells = [cell for cell in notebook.cells if cell.cell_type == "code"]
    for cell in code_cells:
        assert not errors_of(cell), f"{grade_id(cell)} raised {errors_of(cell)}: Run All would stop there"
        assert not stderr_of(cell), f"{grade_id(cell)} wrote to stderr: {stderr_of(cell)[:300]}"
        assert cell.get("execution_count"), f"{grade_id(cell)} did not run"
    checks = check_cells(notebook)
    assert sorted(checks) == sorted(e.id for e in assignment_by_id(assignment).exercises)
    for exercise_id, cell in checks.items():
        (shown,) = [o for o in cell.outputs if o.output_type == "display_data"]
        assert shown.data["text/plain"].startswith(f"{exercise_id}: public checks failed [not-implemented]")
        assert "raise NotImplementedError()" in shown.data["text/plain"]
        assert "public checks failed [not-implemented]" in shown.data["text/html"]
    assert images_of(notebook) >= 2, "the figures are drawn by demo cells, which the release keeps"


def kit_without_solutions(tmp_path) -> Path:
    """The kit as a student's machine has it: the package alone, no solutions/ and no nbgrader_config.py."""
    kit = tmp_path / "kit"
    shutil.copytree(ROOT / "autograder", kit / "autograder", ignore=shutil.ignore_patterns("__pycache__"))
    return kit


def nbgrader_validate(notebook: Path, cwd: Path, *options: str, **env: str) -> str:
    done = subprocess.run([sys.executable, "-m", "nbgrader", "validate", str(notebook), *options],
                          cwd=cwd, env=quiet_env(**env), capture_output=True, text=True, timeout=600)
    return done.stdout + done.stderr


def test_run_all_shows_a_failing_check_and_nbgrader_validate_still_reports_it(tmp_path):
    """Wrong answers (dev's plain tf.round, no gradient; dev's log1pexp ignores the upstream gradient): Run All shows
    the checks' feedback and goes on; nbgrader's own validate reports the failures, with the checks' words on a
    student's machine (--validate-all: only then does nbgrader look at cells that are not graded) and through the
    graded cells where the course's solutions are (the default). Both mistakes show in the public checks, as every
    mistake a hidden case tells does (tests/test_public_coverage.py)."""
    student = tmp_path / "student"
    student.mkdir()
    source = ROOT / "examples" / "submitted" / "dev" / "custom_gradients" / "custom_gradients.ipynb"
    shutil.copy(source, student / source.name)
    kit = kit_without_solutions(tmp_path)
    on_a_students_machine = dict(PYTHONPATH=str(kit), AUTOGRADER_SOLUTIONS="", AUTOGRADER_NBGRADER="")

    notebook = nbformat.read(student / source.name, as_version=4)
    NotebookClient(notebook, timeout=600, kernel_name="python3", allow_errors=False,
                   resources={"metadata": {"path": str(student)}}).execute(env=quiet_env(**on_a_students_machine))
    shown = shown_text(check_cells(notebook)["straight_through_round"])
    assert shown.startswith("straight_through_round: public checks failed [no-gradient]"), shown[:500]
    assert all(cell.get("execution_count") for cell in notebook.cells if cell.cell_type == "code"), "Run All stopped"

    report = nbgrader_validate(student / source.name, student, "--Validator.validate_all=True", **on_a_students_machine)
    assert "VALIDATION FAILED ON 2 CELL(S)!" in report, report[-3000:]
    failed = report[report.index("The following cell failed:"):]
    assert 'check("straight_through_round")' in failed and 'check("log1pexp")' in failed
    assert "SelfCheckFailed: straight_through_round: public checks failed [no-gradient]" in failed
    assert "SelfCheckFailed: log1pexp: public checks failed [ignores-upstream]" in failed

    report = nbgrader_validate(student / source.name, ROOT)  # the course's nbgrader_config.py, its solutions
    assert "VALIDATION FAILED ON 2 CELL(S)!" in report, report[-3000:]
    failed = report[report.index("The following cell failed:"):]
    assert 'grade_exercise("custom_gradients", "straight_through_round")' in failed, failed[:2000]
    assert 'grade_exercise("custom_gradients", "log1pexp")' in failed, failed[:2000]


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
                         "td_loss": ["q", "reward", "next_q", "gamma"], "checkpointed": ["f"], "safe_norm": ["x"]},
    "higher_order": {"derivatives": ["f", "x"], "hessian_vector_product": ["f", "x", "v"],
                     "gradient_penalty": ["critic", "real", "fake", "alpha"],
                     "critic_gradients": ["critic", "real", "fake", "alpha", "gp_weight"], "newton_step": ["f", "x"],
                     "newton_cg_step": ["f", "x", "iters"]},
    "jacobians": {"jacobian": ["f", "x"], "batch_jacobian": ["f", "x"], "robust_jacobian": ["f", "x"],
                  "hessian": ["f", "x"], "jvp": ["f", "x", "v"],
                  "per_example_gradients": ["model", "loss_fn", "x", "y"]},
    "implicit": {"root_solve": ["F", "theta", "x0", "iters"], "implicit_solve": ["solver", "A", "b"],
                 "fixed_point": ["f", "theta", "x0", "iters"],
                 "argmin_gradient": ["g", "inner_solver", "theta", "cg_iters"]},
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
    assert spec.max_score == 2.0 * len(CONTRACT[assignment])  # 2 points per exercise


def test_every_notebook_shows_the_same_course_map_and_marks_itself():
    """Issue 23: the map of the course (order, what each notebook adds, exercises) is in every notebook, the
    same table in each, and each names its own row "(this one)"; issue 30: four rows, implicit after higher_order."""
    tables = {}
    for assignment in ASSIGNMENT_IDS:
        first = nbformat.read(ROOT / "solutions" / assignment / f"{assignment}.ipynb", as_version=4).cells[0].source
        assert "### The course at a glance" in first, assignment
        rows = [line for line in first.splitlines() if line.startswith(("| 1 |", "| 2 |", "| 3 |", "| 4 |"))]
        assert len(rows) == 4, assignment
        assert "Four notebooks, best done in this order" in first, assignment
        (own,) = [row for row in rows if "(this one)" in row]
        assert f"`{assignment}` (this one)" in own
        tables[assignment] = [row.replace(" (this one)", "") for row in rows]
        for exercise in assignment_by_id(assignment).exercises:  # the map lists every exercise of its notebook
            assert f"`{exercise.id}`" in own, (assignment, exercise.id)
    assert len({tuple(rows) for rows in tables.values()}) == 1, tables
    order = [row.split("`")[1] for row in tables["implicit"]]
    assert order == ["custom_gradients", "jacobians", "higher_order", "implicit"], order
