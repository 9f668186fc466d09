"""What the elementwise exercises share: a value and a gradient, probed under a weighted loss."""
from __future__ import annotations

from autograder.course.probing import weighted_gradient
from autograder.model.course import Output

VALUE = Output("value", "the value", check_dtype=True)
GRADIENT = Output("gradient", "the gradient with respect to x", gradient=True)


def probe_elementwise(function, args):
    value, gradient = weighted_gradient(function, args, lambda fn, x: fn(x), args.get("upstream"))
    return {"value": value, "gradient": gradient}
