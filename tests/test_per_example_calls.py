"""How the probe of per_example_gradients tells a model run on the whole batch from one run once per example.

The calls are what autograder.course.jacobians.models records at each call of the probe's model (measured in
TensorFlow 2.21: an eager loop records one single-example eager call per example; tf.vectorized_map one
traced call under pfor's `loop_body` scope; tf.map_fn in a tf.function one call traced in a while-loop body;
tape.jacobian one eager call on the batch). The decision itself is plain logic: no TensorFlow here. The
corpus (tests/submissions/jacobians/*per_example*) runs each style for real.
"""
from __future__ import annotations

import pytest

from autograder.course.jacobians.models import Call, ModelCalls

BATCH = 5
WHOLE = Call(examples=BATCH, eager=True, vectorized=False, in_while_body=False)
ONE_EAGER = Call(examples=1, eager=True, vectorized=False, in_while_body=False)
VECTORIZED = Call(examples=1, eager=False, vectorized=True, in_while_body=False)
NO_BATCH_AXIS_VECTORIZED = Call(examples=0, eager=False, vectorized=True, in_while_body=False)
MAP_FN_TRACED = Call(examples=1, eager=False, vectorized=False, in_while_body=True)
AUTOGRAPH_LOOP = Call(examples=None, eager=False, vectorized=False, in_while_body=True)
UNROLLED = Call(examples=1, eager=False, vectorized=False, in_while_body=False)
HALF = Call(examples=2, eager=True, vectorized=False, in_while_body=False)

STYLES = {
    "tape.jacobian": ([WHOLE], False),
    "tape.jacobian called twice": ([WHOLE, WHOLE], False),
    "tf.vectorized_map": ([VECTORIZED], False),
    "tf.vectorized_map once per variable": ([NO_BATCH_AXIS_VECTORIZED] * 7, False),
    "a shape check on one example, then tape.jacobian": ([ONE_EAGER, WHOLE], False),
    "chunks of two examples": ([HALF, HALF, Call(1, True, False, False)], False),
    "a Python loop": ([ONE_EAGER] * BATCH, True),
    "a Python loop after a call on the batch": ([WHOLE] + [ONE_EAGER] * BATCH, True),
    "tf.map_fn in a tf.function": ([MAP_FN_TRACED], True),
    "an AutoGraph loop over tf.range": ([AUTOGRAPH_LOOP], True),
    "a Python loop unrolled in a tf.function": ([UNROLLED] * BATCH, True),
}


@pytest.mark.parametrize("style", sorted(STYLES))
def test_once_per_example(style):
    calls, expected = STYLES[style]
    assert ModelCalls(rank=2, calls=list(calls)).once_per_example(BATCH) is expected


def test_a_batch_of_one_is_always_the_whole_batch():
    assert not ModelCalls(calls=[ONE_EAGER]).once_per_example(1)
