# adapted from: tensorflow/compression, tensorflow_compression/python/ops/round_ops.py (round_st: a
# @tf.custom_gradient `_round_st_no_offset` returning `tf.round(inputs), lambda x: x`), without the offset.
import tensorflow as tf


@tf.custom_gradient
def _round_st_no_offset(inputs):
    return tf.round(inputs), lambda x: x


def straight_through_round(x):
    """Straight-through round (tfc.round_st without a quantization offset)."""
    return _round_st_no_offset(x)
