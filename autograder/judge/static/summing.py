"""summed-gradient evidence: `T.gradient(g, x)` where `g` is itself a gradient (a vector, not a scalar).

`tape.gradient` of a vector returns the gradient of its sum: for the gradient g of f, the row sums of the
Hessian, shape (n,), where a Hessian (or a Newton step) needs `tape.jacobian(g, x)`. The same call is right
when g is a scalar (the second derivative of a scalar function), so this is evidence only: the judge names
the pitfall when the numbers or the error agree (a linear solve that gets a vector where it needs a matrix).
"""
from __future__ import annotations

import ast

from autograder.judge.static.bodies import Bodies
from autograder.judge.static.findings import Finding
from autograder.judge.static.function import FunctionIndex, GradCall


def summed_findings(bodies: Bodies, index: FunctionIndex, grad: GradCall) -> list[Finding]:
    """`T.gradient(g, ...)` with `g` assigned from another gradient call."""
    target = grad.target
    if grad.method != "gradient" or not isinstance(target, ast.Name):
        return []
    for assign in index.reaching(target.id, grad.stmt):
        value = assign.value
        if (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "gradient"
                and value is not grad.call):
            called = grad.label(index.parsed) if grad.via else \
                f"`{grad.tape.name if grad.tape else 'the tape'}.gradient({target.id}, ...)`"
            message = (f"{called} on line {grad.call.lineno} differentiates `{target.id}`, "
                       f"itself a gradient (line {assign.stmt.lineno}): `gradient` of a vector is the gradient of its "
                       f"sum, the row sums of the Hessian (shape (n,)); `.jacobian({target.id}, x)` gives the full "
                       "(n, n) matrix")
            return [bodies.submission.finding("summed-gradient", message, index.parsed, grad.call,
                                              (grad.call.lineno, assign.stmt.lineno))]
    return []
