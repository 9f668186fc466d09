"""Findings of the implicit assignment: where a solver's iterations are unrolled, where an adjoint is not
transposed, and where a custom gradient's grad_fn returns (a dropped minus, an inverse left out).

What is read: the exercise function and the functions of the submission it reaches (``closure``). A *custom
gradient function* is one decorated with ``tf.custom_gradient`` (any spelling) or passed to it; its body runs
unrecorded in eager mode, so its loops are not unrolled, and the functions nested in it (grad_fn) are the
backward pass. These findings only say where: the numbers decide whether the mistake is there (a mistake model
of the same pitfall must match them), so a finding here never costs a point by itself.

- ``unrolled-solver``: a loop (``for``, ``while``, ``tf.while_loop``) outside every custom gradient function that
  calls the exercise's callable (``F``, ``f``), or a parameter of the function it is in;
- ``adjoint-not-transposed``: in a backward pass, ``solver(A, ...)`` or ``tf.linalg.solve(A, ...)`` with a bare
  name for the matrix (not a transpose, no ``adjoint=True``), or a ``ForwardAccumulator`` (a Jacobian-vector
  product where a vector-Jacobian product is due);
- ``sign-error`` and ``one-step-gradient``: the line where grad_fn returns its gradient.
"""
from __future__ import annotations

import ast

from autograder.judge.static.findings import Finding
from autograder.judge.static.source import Definition, Parsed, Submission, snippet
from autograder.judge.static.syntax import call_name, keyword

IMPLICIT_EXERCISES = frozenset({"root_solve", "implicit_solve", "fixed_point", "argmin_gradient"})
UNROLLED = frozenset({"root_solve", "fixed_point"})  # whose solver is the student's own loop over F or f
FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
TRANSPOSES = frozenset({"transpose", "matrix_transpose", "T", "adjoint"})
BACKWARD = {
    "root_solve": "-upstream * dF/dtheta / dF/dx",
    "implicit_solve": "grad_b = solver(Aᵀ, upstream), grad_A = -grad_b xᵀ",
    "fixed_point": "(df/dθ)ᵀ u, with u = g + (df/dx)ᵀ u solved first",
    "argmin_gradient": "-(∂²g/∂w∂θ)ᵀ v, with H v = w̄ solved first",
}


def implicit_findings(submission: Submission, closure: list[Definition], exercise: str) -> list[Finding]:
    """Every finding of the four checks in the exercise's closure."""
    target = closure[0].node
    if exercise not in IMPLICIT_EXERCISES or not isinstance(target, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return []
    given = target.args.args[0].arg if target.args.args else None
    found: list[Finding] = []
    for definition in closure:
        if not isinstance(definition.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        reader = _Reader(submission, definition.parsed, definition.node)
        if exercise in UNROLLED:
            found += reader.unrolled(given)
        if exercise == "implicit_solve":
            found += reader.untransposed(given)
        if exercise == "fixed_point":
            found += reader.forward_mode()
        found += reader.returns(exercise)
    return found


def _is_custom_gradient(node: ast.expr) -> bool:
    return ast.unparse(node).split(".")[-1] == "custom_gradient"


class _Reader:
    """One top-level function: its custom gradient functions, what is inside them, its loops."""

    def __init__(self, submission: Submission, parsed: Parsed, fn: FunctionNode):
        self.submission, self.parsed, self.fn = submission, parsed, fn
        functions = [n for n in ast.walk(fn) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        passed = {arg.id for n in ast.walk(fn) if isinstance(n, ast.Call) and _is_custom_gradient(n.func)
                  for arg in n.args if isinstance(arg, ast.Name)}
        self.custom = [f for f in functions if any(_is_custom_gradient(d) for d in f.decorator_list)
                       or f.name in passed]
        self.unrecorded = {id(n) for f in self.custom for n in ast.walk(f)}
        self.paused = {id(n) for w in ast.walk(fn) if isinstance(w, (ast.With, ast.AsyncWith))
                       and any("stop_recording" in ast.unparse(item.context_expr) for item in w.items)
                       for n in ast.walk(w)}
        self.backward = {id(n) for f in self.custom for inner in ast.walk(f)
                         if inner is not f and isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                         for n in ast.walk(inner)}

    def finding(self, pitfall: str, message: str, node: ast.AST, related: tuple[int, ...] = ()) -> Finding:
        return self.submission.finding(pitfall, message, self.parsed, node, related or (node.lineno,))

    # -- unrolled-solver ----------------------------------------------------------

    def unrolled(self, given: str | None) -> list[Finding]:
        parameters = {a.arg for a in self.fn.args.args}
        callables = {given} | parameters if given else parameters
        found = []
        for loop, body in self._loops():
            if id(loop) in self.unrecorded or id(loop) in self.paused:
                continue
            call = next((n for part in body for n in ast.walk(part) if isinstance(n, ast.Call)
                         and isinstance(n.func, ast.Name) and n.func.id in callables
                         and not self._under_stop_gradient(part, n)), None)
            if call is not None:
                found.append(self.finding(
                    "unrolled-solver",
                    f"the loop on line {loop.lineno} calls `{snippet(self.parsed, call)}` once per iteration where the "
                    "tape records it (it is not inside a `@tf.custom_gradient` function): TensorFlow differentiates "
                    "through every iteration and keeps them all in memory", loop, (loop.lineno, call.lineno)))
        return found

    def _loops(self):
        for node in ast.walk(self.fn):
            if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
                yield node, node.body
            elif isinstance(node, ast.Call) and call_name(node) == "while_loop" and len(node.args) > 1:
                body = node.args[1]
                if isinstance(body, ast.Name):
                    body = next((f for f in ast.walk(self.fn) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                                 and f.name == body.id), body)
                yield node, [body]

    @staticmethod
    def _under_stop_gradient(root: ast.AST, call: ast.Call) -> bool:
        return any(call_name(n) == "stop_gradient" and any(m is call for m in ast.walk(n))
                   for n in ast.walk(root) if isinstance(n, ast.Call))

    # -- adjoint-not-transposed -------------------------------------------------

    def untransposed(self, solver: str | None) -> list[Finding]:
        found = []
        for node in ast.walk(self.fn):
            if id(node) not in self.backward or not isinstance(node, ast.Call) or not node.args:
                continue
            name = call_name(node)
            linalg = name == "solve" and "linalg" in ast.unparse(node.func)
            if not (linalg or (isinstance(node.func, ast.Name) and node.func.id == solver)):
                continue
            matrix = node.args[0]
            adjoint = keyword(node, "adjoint")
            if not isinstance(matrix, ast.Name) or self._transposed(matrix.id) or (
                    adjoint is not None and not (isinstance(adjoint, ast.Constant) and adjoint.value is False)):
                continue
            found.append(self.finding(
                "adjoint-not-transposed",
                f"`{snippet(self.parsed, node)}` on line {node.lineno} solves the adjoint system with `{matrix.id}` "
                f"itself; the backward pass needs its transpose (`tf.transpose({matrix.id})`)", node))
        return found

    def _transposed(self, name: str) -> bool:
        """Whether ``name`` is bound in this function to a transpose (`At = tf.transpose(A)`)."""
        for node in ast.walk(self.fn):
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
                value = node.value
                if isinstance(value, ast.Attribute) and value.attr in TRANSPOSES:
                    return True
                if isinstance(value, ast.Call) and (call_name(value) in TRANSPOSES or keyword(value, "perm")):
                    return True
        return False

    def forward_mode(self) -> list[Finding]:
        return [self.finding("adjoint-not-transposed",
                             f"`{snippet(self.parsed, node)}` on line {node.lineno} computes (df/dx) u, a "
                             "Jacobian-vector product (forward mode); the adjoint iteration needs (df/dx)ᵀ u, "
                             "`tape.gradient(fx, x, output_gradients=u)`", node)
                for node in ast.walk(self.fn) if isinstance(node, ast.Call)
                and call_name(node) == "ForwardAccumulator" and id(node) in self.backward]

    # -- where grad_fn returns ----------------------------------------------------

    def returns(self, exercise: str) -> list[Finding]:
        found = []
        for custom in self.custom:
            for node in ast.walk(custom):
                if not (isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple)
                        and len(node.value.elts) == 2):
                    continue
                place = self._grad_fn_return(custom, node.value.elts[1])
                if place is None:
                    continue
                shown = snippet(self.parsed, place)
                found.append(self.finding(
                    "sign-error", f"grad_fn returns its gradient on line {place.lineno} (`{shown}`): with the "
                    f"theorem's sign it is {BACKWARD[exercise]}", place))
                if exercise in ("fixed_point", "argmin_gradient", "implicit_solve"):
                    found.append(self.finding(
                        "one-step-gradient", f"grad_fn returns its gradient on line {place.lineno} (`{shown}`); the "
                        f"theorem's gradient is {BACKWARD[exercise]}", place))
        return found

    @staticmethod
    def _grad_fn_return(custom: FunctionNode, second: ast.expr) -> ast.AST | None:
        """The return statement of the grad_fn named by ``second`` (a nested def's last return, or the lambda)."""
        if isinstance(second, ast.Lambda):
            return second
        if not isinstance(second, ast.Name):
            return None
        grad_fn = next((f for f in ast.walk(custom) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                        and f is not custom and f.name == second.id), None)
        if grad_fn is None:
            return None
        own = [n for n in grad_fn.body if isinstance(n, ast.Return)]
        return own[-1] if own else None
