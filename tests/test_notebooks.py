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
from helpers import ASSIGNMENT_IDS, ROOT, nbgrader_course, quiet_env

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


@pytest.fixture(scope="module")
def executed_solution(tmp_path_factory):
    """Each solution notebook run once in a real kernel, shared by the tests that read its outputs (one xdist
    group: conftest.py keeps the tests of a module-scoped fixture on one worker)."""
    executed: dict[str, nbformat.NotebookNode] = {}

    def run(assignment: str) -> nbformat.NotebookNode:
        if assignment not in executed:
            executed[assignment] = execute(ROOT / "solutions" / assignment / f"{assignment}.ipynb",
                                           tmp_path_factory.mktemp(assignment), allow_errors=False)
        return executed[assignment]
    return run


def shown_by(notebook, grade: str) -> str:
    (cell,) = [cell for cell in notebook.cells if grade_id(cell) == grade]
    return shown_text(cell)


@pytest.mark.parametrize("assignment", ASSIGNMENT_IDS)
def test_solution_notebook_runs_clean_in_a_real_kernel(assignment, executed_solution):
    notebook = executed_solution(assignment)
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
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if "image/png" in output.get("data", {}):
                assert output.get("metadata", {}).get("image/png", {}).get("alt"), f"{grade_id(cell)}: no alt text"


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


def test_run_all_shows_a_failing_check_and_nbgrader_validate_still_reports_it(tmp_path, generated_course):
    """Wrong answers (dev's plain tf.round, no gradient; dev's log1pexp ignores the upstream gradient; dev's safe_norm
    multiplies upstream by x before it divides): Run All shows the checks' feedback and goes on; nbgrader's own
    validate reports the failures, with the checks' words on a student's machine (--validate-all: only then does
    nbgrader look at cells that are not graded) and through the graded cells where the course's solutions are (the
    default). The mistakes show in the public checks, as every mistake a hidden case tells does
    (tests/test_public_coverage.py)."""
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
    assert "VALIDATION FAILED ON 3 CELL(S)!" in report, report[-3000:]
    failed = report[report.index("The following cell failed:"):]
    assert 'check("straight_through_round")' in failed and 'check("log1pexp")' in failed and 'check("safe_norm")' in failed
    assert "SelfCheckFailed: straight_through_round: public checks failed [no-gradient]" in failed
    assert "SelfCheckFailed: log1pexp: public checks failed [ignores-upstream]" in failed
    assert "SelfCheckFailed: safe_norm: public checks failed [unstable-gradient]" in failed

    course = nbgrader_course(tmp_path / "course", generated_course)  # the course's configuration and solutions,
    report = nbgrader_validate(student / source.name, course)  # not the checkout: nbgrader there would write its seed
    assert "VALIDATION FAILED ON 3 CELL(S)!" in report, report[-3000:]
    failed = report[report.index("The following cell failed:"):]
    assert 'grade_exercise("custom_gradients", "straight_through_round")' in failed, failed[:2000]
    assert 'grade_exercise("custom_gradients", "log1pexp")' in failed, failed[:2000]
    assert 'grade_exercise("custom_gradients", "safe_norm")' in failed, failed[:2000]


@pytest.mark.parametrize("assignment", ASSIGNMENT_IDS)
def test_released_notebook_is_what_nbgrader_generates_now(assignment, generated_course):
    """The run's generated course (conftest.py: `nbgrader generate_assignment` on the repository's solutions and
    configuration, in a folder of its own) holds what nbgrader generates now."""
    fresh = json.loads((generated_course / "assignments" / assignment / f"{assignment}.ipynb").read_text())
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


def test_what_the_teaching_text_quotes_is_what_its_demos_print(executed_solution):
    """Numbers the markdown quotes about a demo are the ones the demo prints (issue 31's slips 2, 5, 6, 9)."""
    custom = executed_solution("custom_gradients")
    assert "d(float(t) * t)/dt at t = 3, eager           : 3.0" in shown_by(custom, "demo_none_gradients")
    assert "d(float(t) * t)/dt at t = 3, in a tf.function: 6.0" in shown_by(custom, "demo_none_gradients")
    assert "for s from 4e-20 to 3.5e+18" in shown_by(custom, "demo_safe_norm_plot")
    guards = shown_by(custom, "demo_safe_norm_2")
    for op in ("tf.sqrt(s)", "tf.math.rsqrt(s)", "tf.math.reciprocal(s)"):
        assert f"tf.where(s > 0, {op}, 0)" in guards and "[nan" not in guards.split(op)[1].splitlines()[0], op
    for op in ("tf.math.log(s)", "1 / s", "s ** 0.5"):
        assert "[nan nan]" in guards.split(op)[1].splitlines()[0], op
    jacobians = executed_solution("jacobians")
    outliers = shown_by(jacobians, "demo_per_example_2")
    assert "the 4 largest norms belong to examples [5, 17, 38, 50] (the mislabelled ones: [5, 17, 38, 50])" in outliers
    largest = [float(v) for v in outliers.split("): ")[1].split(";")[0].split(", ")]
    median = float(outliers.split("median C = ")[1].split()[0])
    assert min(largest) > 10 * median, (largest, median)  # "an order of magnitude larger than the median"
    assert "all give the same rows: True" in shown_by(jacobians, "demo_per_example_speed")
    assert "your per_example_gradients" in shown_by(jacobians, "demo_per_example_speed")
    # the payoffs: the student's own functions at work (here the reference's), and what their text says of them
    memory = shown_by(custom, "demo_checkpointed_memory")
    assert float(memory.split("segments of  8 blocks")[1].split("(")[1].split(" times")[0]) >= 2.0, memory
    dropout = shown_by(custom, "demo_checkpointed_2").splitlines()
    assert dropout[0].split("output")[1].strip() != dropout[1].split("gradient")[1].strip()  # another mask
    assert dropout[2].split("output")[1].strip() == dropout[3].split("gradient")[1].strip()  # the same one
    mixed = shown_by(custom, "demo_mixed_precision")
    unscaled = float(mixed.split("scale 2^0 :")[1].split("%")[0]) / 100
    assert 0.25 < unscaled < 0.45, mixed  # "about a third of the gradients ... are 0"
    assert "scale 2^15:   0.0% of the output's gradients are 0,   0.0% of the kernel's are inf" in mixed
    assert "scale 32768 -> 16384, kernel updated: False" in mixed
    loops = shown_by(custom, "demo_loops")
    assert "log_or_zero_cond   at x = 0: value 0.0, gradient 0.0" in loops and "gradient nan" in loops
    assert "same gradients as without it: True" in shown_by(custom, "demo_custom_gradient_variables")
    retracing = shown_by(jacobians, "demo_retracing")
    for quoted in ("gamma as Python floats: 4 calls, 3 trace(s)", "gamma as Tensors      : 4 calls, 1 trace(s)",
                   "the tf.function traced 1 time(s)"):
        assert quoted in retracing, retracing
    keras_variables = shown_by(jacobians, "demo_keras_variables")
    assert "tape.jacobian(..., ZERO)    : AttributeError 'str' object has no attribute '_type_enum'" in keras_variables
    assert "of type 'Variable', not tf.Tensor or tf.Variable or ExtensionType." in keras_variables
    higher = executed_solution("higher_order")
    critic = shown_by(higher, "demo_critic_norms_plot")
    for name, median in [("untrained", "0.48"), ("trained with the penalty", "1.19"),
                         ("trained without the penalty", "11.43")]:
        assert f"median {median}" in next(line for line in critic.splitlines() if line.startswith(name)), critic
    newton = shown_by(higher, "demo_newton_step_1")
    solve, inverse = (float(line.split("error |s - 1| = ")[1]) for line in newton.splitlines()[-2:])
    assert inverse > 10 * solve, newton  # "about 16 times smaller than the inverse's"
    optimiser = [line for line in shown_by(higher, "demo_newton_cg_optimiser").splitlines() if "above the best" in line]
    descent, newton_cg = (float(line.split("above the best found")[0].split(", ")[-1]) for line in optimiser)
    assert newton_cg == 0.0 and 1e-3 < descent < 1e-2, optimiser  # "about 5e-3 above it"


def test_every_figure_has_a_text_alternative():
    """Every figure a notebook draws goes through show_figure(fig, alt), which puts `alt` in the PNG's output
    metadata (nbconvert writes it as the <img>'s alt attribute)."""
    for assignment in ASSIGNMENT_IDS:
        for cell in nbformat.read(ROOT / "solutions" / assignment / f"{assignment}.ipynb", as_version=4).cells:
            if cell.cell_type != "code":
                continue
            tree = ast.parse(cell.source)
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "show_figure":
                    assert len(node.args) == 2, f"{assignment} {grade_id(cell)}: show_figure(fig) without alt text"
                    alt = node.args[1]
                    assert not isinstance(alt, ast.Constant) or len(alt.value) > 40, grade_id(cell)
            assert "display(Image(" not in cell.source or 'metadata={"image/png": {"alt": alt}}' in cell.source
