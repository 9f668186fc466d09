"""Building cases: plain NumPy data drawn from a seed, the same in the parent and in the child."""
from __future__ import annotations

import re
from typing import Any

import numpy as np

from autograder.model.course import ADVISORY, DIAGNOSTIC, Case

NP_DTYPES = {"float32": np.float32, "float64": np.float64}


def array(values: Any, dtype: str) -> np.ndarray:
    return np.asarray(values, dtype=NP_DTYPES[dtype])


def uniform(rng: np.random.Generator, shape: tuple[int, ...], low: float, high: float, dtype: str) -> np.ndarray:
    return rng.uniform(low, high, size=shape).astype(NP_DTYPES[dtype])


def kind(variable: bool) -> str:
    return "Variable" if variable else "Tensor"


def case(id: str, description: str, dtype: str = "float32", tags: tuple[str, ...] = (), *, args,
         public: bool = False, weight: float = 1.0, time_limit: float = 20.0, reason: str = "") -> Case:
    """A graded Case (tags given as a tuple, which reads better in the exercise tables); ``reason``: the
    contract's clause it rests on."""
    return Case(id=id, description=description if public else without_values(description), args=args, dtype=dtype,
                weight=weight, time_limit=time_limit, tags=frozenset(tags), public=public, reason=reason)


def diagnostic(id: str, description: str, dtype: str = "float32", tags: tuple[str, ...] = (), *, args,
               tells: str, time_limit: float = 20.0) -> Case:
    """A case beyond the contract's line that costs nothing: it tells two mistakes apart (``tells``)."""
    return Case(id=id, description=without_values(description), args=args, dtype=dtype, time_limit=time_limit,
                tags=frozenset(tags), kind=DIAGNOSTIC, reason=tells)


def advisory(id: str, description: str, dtype: str = "float32", tags: tuple[str, ...] = (), *, args,
             advice: str, time_limit: float = 20.0) -> Case:
    """A case beyond the contract's line that costs nothing: when it fails, the student reads ``advice``."""
    return Case(id=id, description=without_values(description), args=args, dtype=dtype, time_limit=time_limit,
                tags=frozenset(tags), kind=ADVISORY, advice=advice)


# `name = 0.7` in a description: a hidden case's input value (x, gp_weight, max_norm, gamma, lam...). A formula
# (`f(v) = 4 v + 1`, `(linear: H v = 0)`) and a list of the fixed edge values the contract names
# (`x = 100, 1000, ...`) stay.
_VALUE = re.compile(r"\b([A-Za-z_]\w*) = -?\d+(?:\.\d+)?(?:e[+-]?\d+)?(?=,\s*[^\d\s.-]|$|\s+[a-z]{2,})")


def without_values(description: str) -> str:
    """A hidden case's description without its input values: students see no value of a hidden case, and
    nothing from which its inputs could be recomputed (CURRICULUM.md, "Hidden cases stay hidden")."""
    return _VALUE.sub(r"\1", description)
