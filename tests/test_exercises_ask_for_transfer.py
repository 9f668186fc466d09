"""No exercise is solvable by copying a cell above it (issue 31): the demos teach each mechanism on another
function, shape or setting than the exercise's.

The check reads the solution notebooks (no kernel). It takes each reference solution's body, normalises it
(every name becomes `_`, so renaming the variables of a demo does not hide a copy; `return e` and `v = e` both
become `e`; docstrings, the snapshot `x = tf.convert_to_tensor(x)`, an alias of `tf.UnconnectedGradients.ZERO`
and the `unconnected_gradients=` option are dropped, since they are details, not the solution), and looks for
its statements (a `with` block whole, its body included) in every code cell above the solution that is not
itself a solution: a statement is found where the cell holds it at any depth or holds its expression inside
another one (`print(acc.jvp(y))` holds `acc.jvp(y)`). A cell that holds three quarters of a solution's
statements, its last one among them, holds the solution; a one-statement solution (`checkpointed`) is held by
any cell that holds its expression.
"""
from __future__ import annotations

import ast

import nbformat
import pytest

from helpers import ASSIGNMENT_IDS, ROOT

MODULES = {"tf", "np", "keras", "math"}  # names that stand for an API, kept as they are
SHARE = 0.75


class _Normalise(ast.NodeTransformer):
    """Names become `_` (but the API's modules), `v = e` and `return e` become `e`, details are dropped."""

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return node if node.id in MODULES else ast.copy_location(ast.Name(id="_", ctx=ast.Load()), node)

    def visit_arg(self, node: ast.arg) -> ast.AST:
        return ast.copy_location(ast.arg(arg="_"), node)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        node.keywords = [k for k in node.keywords if k.arg != "unconnected_gradients"]
        return self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> ast.AST | None:
        return None if _is_detail(node) else self.visit(ast.copy_location(ast.Expr(node.value), node))

    def visit_Return(self, node: ast.Return) -> ast.AST:
        return self.visit(ast.copy_location(ast.Expr(node.value or ast.Constant(None)), node))

    def visit_Expr(self, node: ast.Expr) -> ast.AST | None:
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return None  # a docstring
        return self.generic_visit(node)


def _is_detail(statement: ast.Assign) -> bool:
    value = ast.unparse(statement.value)  # a snapshot, or an alias of the ZERO option
    return value.startswith("tf.convert_to_tensor(") or value.startswith("tf.UnconnectedGradients.")


def _dump(node: ast.AST) -> str | None:
    """A statement (whole, with its body) or an expression, normalised; None for a detail."""
    copy = ast.parse(ast.unparse(node if isinstance(node, ast.stmt) else ast.Expr(node))).body[0]
    normalised = _Normalise().visit(copy)
    return None if normalised is None else ast.dump(normalised, annotate_fields=False)


def _statements(statements: list[ast.stmt]) -> list[str]:
    return [dump for dump in map(_dump, statements) if dump is not None]


def _held(tree: ast.AST) -> set[str]:
    """Every statement, at any depth, and every expression of a cell, normalised."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) or isinstance(node, ast.expr) and not isinstance(node, (ast.Name, ast.Constant)):
            try:
                found.add(_dump(node))
            except (SyntaxError, IndexError, ValueError):
                continue
    return found - {None}


def solution_body(source: str) -> list[ast.stmt]:
    """The statements of the solution cell's function (the one the exercise defines), docstring included."""
    (function,) = [node for node in ast.parse(source).body if isinstance(node, ast.FunctionDef)]
    return function.body


def holds_solution(cell_source: str, solution: list[ast.stmt]) -> bool:
    wanted = _statements(solution)
    if not wanted:
        return False
    try:
        held = _held(ast.parse(cell_source))
    except SyntaxError:
        return False
    if len(wanted) == 1:
        return wanted[0] in held
    found = [statement in held for statement in wanted]
    return found[-1] and sum(found) >= SHARE * len(wanted)


def copies(assignment: str) -> list[str]:
    notebook = nbformat.read(ROOT / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)
    found, above = [], []
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution"):
            body = solution_body(cell.source)
            found += [f"{assignment}: {meta['grade_id']} is held by the cell {grade}" for grade, source in above
                      if holds_solution(source, body)]
        above.append((meta.get("grade_id", "?"), cell.source))
        if meta.get("solution"):
            above.pop()  # a solution may build on the student's own earlier solutions
    return found


@pytest.mark.parametrize("assignment", ASSIGNMENT_IDS)
def test_no_cell_above_an_exercise_holds_its_solution(assignment):
    assert not copies(assignment)


# The detector on the copies issue 31 found in the notebooks before it (their demo cells, shortened).
PER_EXAMPLE = '''
def per_example_gradients(model, loss_fn, x, y):
    """Rows."""
    with tf.GradientTape() as tape:
        losses = loss_fn(y, model(x))
    return tape.jacobian(losses, model.trainable_variables)
'''
BY_JACOBIAN = '''
def by_jacobian():                                     # one forward pass, the Jacobian of the (B,) losses
    with tf.GradientTape() as tape:
        losses = example_losses(labels, classifier(features))
    return tape.jacobian(losses, classifier.trainable_variables)
'''
JVP = '''
def jvp(f, x, v):
    with tf.autodiff.ForwardAccumulator(primals=x, tangents=v) as acc:
        y = f(x)
    return acc.jvp(y, unconnected_gradients=tf.UnconnectedGradients.ZERO)
'''
JVP_DEMO = '''
x = tf.constant([1.0, 2.0])
v = tf.constant([1.0, 0.5])
with tf.autodiff.ForwardAccumulator(primals=x, tangents=v) as acc:
    y = f(x)
print("ForwardAccumulator:", acc.jvp(y).numpy())
'''
CHECKPOINTED = '''
def checkpointed(f):
    return tf.recompute_grad(f)
'''
NEWTON = '''
def newton_step(f, x):
    zero = tf.UnconnectedGradients.ZERO
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x, unconnected_gradients=zero)
    hessian = outer.jacobian(g, x, unconnected_gradients=zero)
    step = tf.linalg.solve(hessian, g[:, tf.newaxis])[:, 0]
    return x - step
'''
NEWTON_DEMO = '''
x = tf.constant([1.0, 2.0], tf.float64)
with tf.GradientTape() as outer:
    outer.watch(x)
    with tf.GradientTape() as inner:
        inner.watch(x)
        y = f(x)
    g = inner.gradient(y, x)
H = outer.jacobian(g, x)
step = tf.linalg.solve(H, g[:, tf.newaxis])[:, 0]
print("new x:", (x - step).numpy())
'''


@pytest.mark.parametrize("solution, demo", [(PER_EXAMPLE, BY_JACOBIAN), (JVP, JVP_DEMO),
                                            (CHECKPOINTED, "block_checkpointed = tf.recompute_grad(block)"),
                                            (NEWTON, NEWTON_DEMO)], ids=["per_example", "jvp", "checkpointed",
                                                                         "newton"])
def test_the_detector_finds_a_renamed_or_printed_copy(solution, demo):
    assert holds_solution(demo, solution_body(solution))


def test_the_detector_lets_a_demo_on_another_function_or_setting_pass():
    """The same mechanism on another function: sign instead of round; the loss of a batch, not per example."""
    ste = "def straight_through_round(x):\n    return x + tf.stop_gradient(tf.round(x) - x)\n"
    assert not holds_solution("y = x + tf.stop_gradient(tf.sign(x) - x)", solution_body(ste))
    batch_loss = "with tf.GradientTape() as tape:\n    loss = tf.reduce_mean(loss_fn(y, model(x)))\n" \
                 "grads = tape.gradient(loss, model.trainable_variables)\n"
    assert not holds_solution(batch_loss, solution_body(PER_EXAMPLE))
    assert not holds_solution("g = tf.recompute_grad\nprint(g)", solution_body(CHECKPOINTED))
