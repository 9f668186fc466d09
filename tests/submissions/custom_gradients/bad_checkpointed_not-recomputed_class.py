"""A callable class that keeps f as it is: nothing is recomputed on the backward pass."""
import tensorflow as tf


class _Wrapped:
    def __init__(self, f):
        self.f = f

    def __call__(self, x):
        return self.f(x)


def checkpointed(f):
    return _Wrapped(f)
