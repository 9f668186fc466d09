import tensorflow as tf

checkpointed = lambda f: tf.recompute_grad(lambda x: f(x))  # noqa: E731
