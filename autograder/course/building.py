"""Building cases: plain NumPy data drawn from a seed, the same in the parent and in the child."""
from __future__ import annotations

import re
from typing import Any

import numpy as np

from autograder.model.course import Case

NP_DTYPES = {"float32": np.float32, "float64": np.float64}


def array(values: Any, dtype: str) -> np.ndarray:
    return np.asarray(values, dtype=NP_DTYPES[dtype])


def uniform(rng: np.random.Generator, shape: tuple[int, ...], low: float, high: float, dtype: str) -> np.ndarray:
    return rng.uniform(low, high, size=shape).astype(NP_DTYPES[dtype])


def kind(variable: bool) -> str:
    return "Variable" if variable else "Tensor"


def case(id: str, description: str, dtype: str = "float32", tags: tuple[str, ...] = (), **kwargs) -> Case:
    """A Case with tags given as a tuple, which reads better in the exercise tables."""
    public = kwargs.pop("public", False)
    weight = kwargs.pop("weight", 1.0)
    time_limit = kwargs.pop("time_limit", 20.0)
    return Case(id=id, description=description if public else without_values(description), args=kwargs.pop("args"),
                dtype=dtype, weight=weight, time_limit=time_limit, tags=frozenset(tags), public=public)


# `name = 0.7` in a description: a hidden case's input value (x, gp_weight, max_norm, gamma, lam...). A formula
# (`f(v) = 4 v + 1`, `(linear: H v = 0)`) and a list of the fixed edge values the contract names
# (`x = 100, 1000, ...`) stay.
_VALUE = re.compile(r"\b([A-Za-z_]\w*) = -?\d+(?:\.\d+)?(?:e[+-]?\d+)?(?=,\s*[^\d\s.-]|$|\s+[a-z]{2,})")


def without_values(description: str) -> str:
    """A hidden case's description without its input values: students see no value of a hidden case, and
    nothing from which its inputs could be recomputed (CURRICULUM.md, "Hidden cases stay hidden")."""
    return _VALUE.sub(r"\1", description)
