"""Students' self-check: public check cells run in the student's own kernel, without the solutions,
and say what is wrong in the grader's words."""
from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import numpy as np
import pytest
from nbclient import NotebookClient

from autograder.course import all_assignments, assignment_by_id
from autograder.load.ipython import calls_only_the_grader
from autograder.frontends.public_answers import compute, load, outcome_from_data, public_cases
from helpers import ASSIGNMENT_IDS, ROOT, exercise, grade_json, quiet_env

EXAMPLES = ROOT / "examples" / "submitted"


def test_every_exercise_has_public_cases_and_stored_answers_for_exactly_them():
    for assignment in all_assignments():
        stored = load(assignment.id)
        for item in assignment.exercises:
            cases = public_cases(item)
            assert cases, f"{item.id} has no public case: its check cell would check nothing"
            assert sorted(c.id for c in cases) == sorted(stored[item.id])
            # n = 100,000 in a student's kernel only where the statement asks for it in the public checks; there
            # the probe returns a sample or summaries of the result, so that the stored answers stay small
            # (per_example_gradients: a batch of 256 and 100,000 weights)
            assert all(not c.has("scale") for c in cases) or item.id in (
                "jvp", "newton_cg_step", "per_example_gradients", "root_solve", "fixed_point", "argmin_gradient")


@pytest.mark.slow  # starts a grader
@pytest.mark.parametrize("assignment_id", ASSIGNMENT_IDS)
def test_stored_public_answers_are_what_the_solutions_give_now(assignment_id):
    """`python -m autograder.frontends.public_answers` must be rerun when a solution or a public case changes."""
    assignment = assignment_by_id(assignment_id)
    fresh = compute(assignment, ROOT / "solutions")["exercises"]
    stored = load(assignment_id)
    for item in assignment.exercises:
        for case in public_cases(item):
            rtol, atol = item.tolerance(case)
            for kind, new, old in [("reference", fresh[item.id][case.id]["reference"],
                                    stored[item.id][case.id]["reference"])] + [
                    (f"mistake {k}", n, o) for k, (n, o) in enumerate(zip(fresh[item.id][case.id]["mistakes"],
                                                                           stored[item.id][case.id]["mistakes"]))]:
                new, old = outcome_from_data(new), outcome_from_data(old)
                assert (new is None) == (old is None) and (new is None or new.status == old.status), (item.id, kind)
                if new is None or new.status != "ok":
                    continue
                assert new.outputs.keys() == old.outputs.keys()
                for name, value in new.outputs.items():
                    if value.is_none or old.outputs[name].is_none:
                        assert value.is_none == old.outputs[name].is_none
                        continue
                    np.testing.assert_allclose(value.array, old.outputs[name].array, rtol=rtol, atol=atol,
                                               err_msg=f"{item.id} {case.id} {kind} {name}: rerun "
                                                       "`python -m autograder.frontends.public_answers`")


def kit_without_solutions(tmp_path: Path) -> Path:
    """A copy of the kit as a student's machine has it: the package, no solutions/ beside it."""
    kit = tmp_path / "kit"
    shutil.copytree(ROOT / "autograder", kit / "autograder", ignore=shutil.ignore_patterns("__pycache__"))
    return kit


def run_notebook(path: Path, workdir: Path, kit: Path) -> nbformat.NotebookNode:
    notebook = nbformat.read(path, as_version=4)
    shutil.copy(path, workdir / path.name)  # as in JupyterLab: the saved notebook beside the kernel
    client = NotebookClient(notebook, timeout=600, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(workdir)}})
    client.execute(env=quiet_env(PYTHONPATH=str(kit), AUTOGRADER_SOLUTIONS="", AUTOGRADER_NBGRADER=""))
    return notebook


def cell_by_id(notebook, grade_id: str):
    return next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


@pytest.mark.slow
def test_a_students_kernel_without_solutions_names_the_graders_pitfall_in_the_graders_words(tmp_path):
    kit = kit_without_solutions(tmp_path)
    notebook_path = EXAMPLES / "bram" / "higher_order" / "higher_order.ipynb"
    notebook = run_notebook(notebook_path, tmp_path, kit)
    graded = exercise(grade_json(str(notebook_path), "--seed", "3")[0], "derivatives")
    assert graded["pitfalls"] == ["tape-outside-context"]

    check = cell_by_id(notebook, "check_derivatives")
    assert not [o for o in check.outputs if o.output_type == "error"], "a failing check displays, it does not raise"
    (shown,) = [o for o in check.outputs if o.output_type == "display_data"]
    feedback = shown.data["text/plain"]
    assert feedback.startswith("derivatives: public checks failed [tape-outside-context]")
    assert "derivatives: public checks failed [tape-outside-context]" in shown.data["text/html"]
    same_words = [line.strip() for line in graded["feedback"].splitlines()
                  if line.lstrip().startswith(("[tape-outside-context]", "Fix:"))]
    assert len(same_words) == 2 and all(line in feedback for line in same_words)
    assert "Where: cell [" in feedback and "`dy_dx = inner.gradient(y, x)`" in feedback

    for passing in ("hessian_vector_product", "newton_step"):
        printed = "".join(o.get("text", "") for o in cell_by_id(notebook, f"check_{passing}").outputs)
        assert f"{passing}: public checks passed" in printed
    # His Newton-CG's products are the row sums of H: the public cases (n = 100,000 among them) say so.
    (shown,) = [o for o in cell_by_id(notebook, "check_newton_cg_step").outputs if o.output_type == "display_data"]
    assert shown.data["text/plain"].startswith("newton_cg_step: public checks failed [wrong-value]")
    assert "the row sums H 1" in shown.data["text/plain"]
    for cell in notebook.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id", "").startswith("test_"):
            kinds = [o.output_type for o in cell.outputs]
            assert kinds == ["stream"], f"graded cells only print a note on a student's machine: {kinds}"
            assert "the hidden cases run when your instructor grades" in cell.outputs[0].text
            assert "the public check above ran your current code" in cell.outputs[0].text  # one line, no grade


def test_copied_check_and_graded_cells_are_recognised_without_their_metadata():
    assert calls_only_the_grader('from autograder.selfcheck import check\ncheck("log1pexp")')
    assert calls_only_the_grader('# graded\nfrom autograder.graded_cell import grade_exercise\n'
                                 'grade_exercise("higher_order", "derivatives")')
    assert not calls_only_the_grader('from autograder.selfcheck import check\ndef log1pexp(x):\n    return x\n'
                                     'check("log1pexp")'), "a cell with the student's code must run"
    assert not calls_only_the_grader("import autograder\nautograder.__version__")
    assert not calls_only_the_grader("check('log1pexp')")


@pytest.mark.slow  # starts a grader
def test_a_py_export_that_calls_the_graders_cells_is_graded_normally(tmp_path):
    """`jupyter nbconvert --to script` keeps check and graded calls inline: inside the grader's child
    they must do nothing (no grading from inside the sandbox), and the grade must be the notebook's."""
    notebook = nbformat.read(EXAMPLES / "ada" / "custom_gradients" / "custom_gradients.ipynb", as_version=4)
    script = "\n\n".join(c.source for c in notebook.cells if c.cell_type == "code")
    assert "grade_exercise(" in script and "check(" in script
    path = tmp_path / "custom_gradients.py"
    path.write_text(script)
    (result,) = grade_json(str(path), "--assignment", "custom_gradients", "--seed", "5")
    assert result["score"] == result["max_score"] == 12.0, [(e["id"], e["status"], e["feedback"][:200])
                                                            for e in result["exercises"]]


@pytest.mark.slow  # builds the kit's wheel (once per run)
def test_a_built_wheel_carries_the_public_answers(kit_wheel):
    """Students install the kit from a wheel (no solutions, no mistake models): the self-check's data must be in
    it (the mistake models' answers on the public cases, not their code)."""
    import zipfile

    names = zipfile.ZipFile(kit_wheel).namelist()  # built once per test run (conftest.py)
    for assignment in ASSIGNMENT_IDS:
        assert f"autograder/public_cases/{assignment}.json" in names
    assert not any(name.startswith("solutions/") for name in names), "the wheel must not carry the solutions"
    # Nor any correct implementation: the mistake models (and the correct helpers they use) stay in the checkout.
    assert not [name for name in names if name.endswith("/mistakes.py") or "/mistakes." in name or "/mistakes/" in name], names


def test_a_grader_finds_each_assignments_mistake_models_and_the_students_wheel_says_it_has_none(tmp_path, monkeypatch):
    """The checkout holds every assignment's models (a ``mistakes`` module, or package: higher_order's); a kit
    without them (the students' wheel) refuses to grade, with a message, before any child starts."""
    from autograder import config

    for assignment_id in ASSIGNMENT_IDS:
        config.require_mistake_models(assignment_id)
    monkeypatch.setattr(config, "KIT_ROOT", tmp_path)
    (tmp_path / "autograder" / "course" / "higher_order").mkdir(parents=True)
    with pytest.raises(config.SetupError, match="students' wheel"):
        config.require_mistake_models("higher_order")


@pytest.mark.slow  # imports TensorFlow in a fresh process
def test_a_self_check_names_the_failing_exercise_that_this_one_calls(tmp_path):
    """check("critic_gradients") with a right critic_gradients that calls a gradient_penalty which never watches
    its interpolates: the words of the grade, naming gradient_penalty, its line and its fix."""
    import subprocess
    import sys

    script = tmp_path / "session.py"
    script.write_text(
        "import tensorflow as tf\n"
        "from autograder.selfcheck import check\n"
        "\n"
        "def gradient_penalty(critic, real, fake, alpha):\n"
        "    points = alpha * real + (1.0 - alpha) * fake\n"
        "    with tf.GradientTape() as tape:\n"
        "        scores = tf.reduce_sum(critic(points))\n"
        "    g = tape.gradient(scores, points)\n"
        "    return tf.reduce_mean(tf.square(tf.norm(tf.reshape(g, [tf.shape(g)[0], -1]), axis=1) - 1.0))\n"
        "\n"
        "def critic_gradients(critic, real, fake, alpha, gp_weight):\n"
        "    with tf.GradientTape() as tape:\n"
        "        wasserstein = tf.reduce_mean(critic(fake)) - tf.reduce_mean(critic(real))\n"
        "        loss = wasserstein + gp_weight * gradient_penalty(critic, real, fake, alpha)\n"
        "    return loss, tape.gradient(loss, critic.trainable_variables)\n"
        "\n"
        "check('critic_gradients', globals())\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600,
                          env=quiet_env(PYTHONPATH=str(ROOT), AUTOGRADER_SOLUTIONS=""))
    printed = done.stdout
    assert done.returncode == 0, done.stderr[-2000:]
    assert printed.startswith("critic_gradients: public checks failed [unwatched-tensor]"), printed
    assert "`critic_gradients` calls your `gradient_penalty`" in printed, printed
    assert "Fix: in `gradient_penalty`, which `critic_gradients` calls: call `tape.watch(points)`" in printed, printed


@pytest.mark.slow  # imports TensorFlow in a kernel-like process
def test_a_hessian_formed_at_n_100000_is_named_by_the_public_checks_in_a_students_kernel(tmp_path):
    """newton_cg_step's public checks run n = 100,000 in the student's own process, with no sandbox to turn a failed
    allocation into a memory verdict: the MemoryError (TensorFlow's "Cannot parse tensor from proto") still names
    materialized-hessian, quickly, and the kernel survives."""
    import subprocess
    import sys

    script = """
import tensorflow as tf
from autograder.selfcheck import check

def newton_cg_step(f, x, iters):
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x)
    hessian = outer.jacobian(g, x)
    r = -g
    p = tf.zeros_like(x)
    d = r
    for _ in range(iters):
        rr = tf.reduce_sum(r * r)
        if rr == 0:
            break
        hd = tf.linalg.matvec(hessian, d)
        a = rr / tf.reduce_sum(d * hd)
        p = p + a * d
        r = r - a * hd
        d = r + tf.reduce_sum(r * r) / rr * d
    return x + p

check("newton_cg_step")
print("the kernel goes on")
"""
    kit = kit_without_solutions(tmp_path)
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env=quiet_env(PYTHONPATH=str(kit), AUTOGRADER_SOLUTIONS=""))
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith("newton_cg_step: public checks failed [materialized-hessian]"), done.stdout[:2000]
    assert "MemoryError" in done.stdout and "(100000, 100000)" in done.stdout, done.stdout[:3000]
    assert done.stdout.rstrip().endswith("the kernel goes on")
