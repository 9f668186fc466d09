# adapted from: the log1pexp of JAX's custom-derivative docs, numerical-stability section
# (https://jax.readthedocs.io/en/latest/notebooks/Custom_derivative_rules_for_Python_code.html#numerical-stability),
# as public JAX snippets write it: value jnp.logaddexp(0, x), tangent x_dot / (1 + jnp.exp(-x)); here as a
# tf.custom_gradient with a hand-written logaddexp.
import tensorflow as tf


def _logaddexp(a, b):
    m = tf.maximum(a, b)
    return m + tf.math.log1p(tf.exp(-tf.abs(a - b)))


@tf.custom_gradient
def log1pexp(x):
    x = tf.convert_to_tensor(x)
    ans = _logaddexp(tf.zeros_like(x), x)

    def log1pexp_vjp(g):
        return g / (1.0 + tf.exp(-x))

    return ans, log1pexp_vjp
