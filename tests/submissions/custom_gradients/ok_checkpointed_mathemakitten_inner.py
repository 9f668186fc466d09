# adapted from: mathemakitten/gradient-checkpointing, README.md (usage inside a layer's call: an inner function
# decorated with the recompute decorator, then `return inner(x)`), with tf.recompute_grad as the decorator.
import tensorflow as tf


def checkpointed(f):
    def call(x):
        @tf.recompute_grad
        def inner(x):
            # ops go here
            return f(x)
        return inner(x)
    return call
