# adapted from: TensorFlow's guide "Advanced automatic differentiation" (tensorflow/docs,
# site/en/guide/advanced_autodiff.ipynb, section "Custom gradients"): `clip_gradients(y)`, an identity whose
# backward is `tf.clip_by_norm(dy, 0.5)`; the 0.5 becomes the exercise's max_norm, closed over.
import tensorflow as tf


def clip_gradient_norm(x, max_norm):
    # Establish an identity operation, but clip during the gradient pass.
    @tf.custom_gradient
    def clip_gradients(y):
        def backward(dy):
            return tf.clip_by_norm(dy, max_norm)
        return y, backward

    return clip_gradients(x)
