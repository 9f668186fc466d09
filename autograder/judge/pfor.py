"""pfor-unsupported, named from the errors of the cases pfor cannot vectorize, and said as the code shows it.

robust_jacobian's "pfor" cases hold functions whose gradient the pfor vectorizer cannot run: one it cannot convert
(ValueError), and gradients written in eager Python, which pfor traces in a graph (`.numpy()`: AttributeError; a
Python `if` on a tensor: OperatorNotAllowedInGraphError). When they alone fail, and with such an error, the
pitfall is named; the static reading says which way the code meets it: a fallback that catches ValueError alone, a
`tf.function` that traces the row-by-row Jacobian in a graph too, or pfor itself.
"""
from __future__ import annotations

import re

from autograder.judge.cases import Verdict
from autograder.judge.static.lines import locate
from autograder.judge.where import where_of

# What the pfor vectorizer says when it cannot convert (ValueError), and what a gradient that runs only eagerly
# raises when pfor traces it in a graph ('SymbolicTensor' object has no attribute 'numpy'; a symbolic `tf.Tensor`
# used as a Python `bool`: OperatorNotAllowedInGraphError)
PFOR_ERROR = re.compile(r"pfor|vectoriz|SymbolicTensor|symbolic `?tf\.Tensor|OperatorNotAllowedInGraph", re.IGNORECASE)
GRAPH = r"@\s*(tf\.)?function\b|\bfunction\("
VALUE_ERROR_ONLY = r"except\s*\(?\s*ValueError\s*\)?\s*(as\s+\w+)?:"


def pfor_unsupported(d) -> None:
    """Name pfor-unsupported on ``d`` (a ``judge.diagnose.Diagnosis``) when the pfor cases alone fail, each with
    an error, one of them pfor's."""
    pfor_failures = [v for v in d.failing if v.case.has("pfor")]
    if not pfor_failures or not all(v.kind == Verdict.ERROR for v in pfor_failures) \
            or not all(v.case.has("pfor") for v in d.failing) \
            or not any(PFOR_ERROR.search(d.student(v).error.message) for v in pfor_failures if d.student(v).error):
        return
    source, exercise = d.evidence.source, d.evidence.exercise.id
    graph = locate(source, exercise, (GRAPH,)).line
    narrow = locate(source, exercise, (VALUE_ERROR_ONLY,)).line
    if graph is not None:  # row by row, but traced in a graph, where a gradient written in eager Python cannot run
        d.name("pfor-unsupported", where=where_of(source, graph.cell, graph.line, graph.code,
                                                  "this traces the function in a graph"),
               text=f"your `{exercise}` runs in a graph (`tf.function`, line {graph.line}): there, as under the pfor "
                    "vectorizer, the gradient of an f written in eager Python (a custom gradient that calls "
                    "`.numpy()`, a Python `if` on a tensor) cannot run",
               fix=f"drop the `tf.function` on line {graph.line}: the row-by-row Jacobian (`experimental_use_pfor="
                   "False`, on a persistent tape) runs f's gradient eagerly")
    elif narrow is not None:  # a fallback on ValueError alone
        d.name("pfor-unsupported", where=where_of(source, narrow.cell, narrow.line, narrow.code,
                                                  "this catches ValueError alone"),
               text="your fallback catches only ValueError, what pfor raises for an op it cannot convert; it fails "
                    "otherwise too: a gradient written in eager Python raises AttributeError (`.numpy()`) or "
                    "OperatorNotAllowedInGraphError (a Python `if` on a tensor) when pfor traces it")
    else:
        d.name("pfor-unsupported")
