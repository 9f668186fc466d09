"""Assignment ``higher_order``: its six exercises, in the contract's order.

The test functions ``f`` and the Keras critics are built in the child by the probes, from plain data in the
case args (a function's name and its parameters; a critic's layer weights), so the parent never imports
TensorFlow.
"""
from autograder.course.higher_order import (critic_gradients, derivatives, gradient_penalty, hessian_vector_product,
                                            newton_cg_step, newton_step)
from autograder.model.course import Assignment

ASSIGNMENT = Assignment(
    id="higher_order",
    title="Higher-order derivatives",
    exercises=(derivatives.EXERCISE, hessian_vector_product.EXERCISE, gradient_penalty.EXERCISE,
               critic_gradients.EXERCISE, newton_step.EXERCISE, newton_cg_step.EXERCISE),
)
