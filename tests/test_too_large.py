"""A Jacobian or Hessian of 10^10 entries fails in TensorFlow's own words, which differ by release; each is the
memory error it is, so that the exercise's materialized pitfall is named on every release (tf_matrix found
tf-nightly 2.23's words, which jvp's probe did not know: kwame's jvp lost its materialized-jacobian there)."""
from __future__ import annotations

import numpy as np
import pytest

from autograder.course.jacobians.jvp import EXERCISE as JVP
from autograder.course.probing import raise_if_too_large
from autograder.model.course import ContractError

N = 100_000


class InvalidArgumentError(Exception):
    """Named as TensorFlow's is: the check reads the type's name and the message, never TensorFlow's classes."""


class ResourceExhaustedError(Exception):
    pass


@pytest.mark.parametrize("message", [
    f"Input num_segments == {N * N} is too large. Must be at most 2147483647",  # tf-nightly 2.23
    "Cannot parse tensor from proto: dtype: DT_FLOAT tensor_shape { dim { size: 100000 } dim { size: 100000 } }",
    f"OOM when allocating tensor with shape[{N},{N}]",
])
def test_each_release_s_words_for_a_tensor_too_large_are_a_memory_error(message):
    with pytest.raises(MemoryError, match=r"an \(100000, 100000\) tensor \(40 GB in float32\) could not be built"):
        raise_if_too_large(InvalidArgumentError(message), N, np.float32)


@pytest.mark.parametrize("error,n", [
    (InvalidArgumentError("Incompatible shapes: [100000] vs. [99999]"), N),  # a mistake of another kind
    (InvalidArgumentError(f"Input num_segments == {N * N} is too large"), 100),  # small cases are never memory
    (ContractError("the returned J v has shape (3,), expected (4,)"), N),
])
def test_other_failures_stay_what_they_are(error, n):
    raise_if_too_large(error, n, np.float32)  # returns: the caller re-raises the error itself


@pytest.mark.slow  # builds TensorFlow tensors of 100,000 elements
def test_jvp_s_probe_turns_every_release_s_error_into_a_memory_error_as_the_hessian_s_probes_do():
    scale = next(case for case in JVP.cases(1) if case.has("scale"))

    def nightly(f, x, v):
        raise InvalidArgumentError(f"Input num_segments == {N * N} is too large. Must be at most 2147483647")

    def exhausted(f, x, v):
        raise ResourceExhaustedError("OOM when allocating tensor")

    for failing in (nightly, exhausted):
        with pytest.raises(MemoryError, match=r"an \(100000, 100000\) tensor \(40 GB in float32\) could not be built"):
            JVP.probe(failing, scale.args)
