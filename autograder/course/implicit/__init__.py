"""Assignment ``implicit``: its four exercises, in the contract's order.

Gradients of what a solver returns, by the implicit function theorem instead of differentiating the solver's
steps. The callables the exercises receive (``callables``) are built in the child from a case's plain data;
the solvers among them leave TensorFlow (``tf.numpy_function``), so differentiating through them gives None.
"""
from autograder.course.implicit import argmin_gradient, fixed_point, implicit_solve, root_solve
from autograder.model.course import Assignment

ASSIGNMENT = Assignment(
    id="implicit",
    title="Implicit differentiation",
    exercises=(root_solve.EXERCISE, implicit_solve.EXERCISE, fixed_point.EXERCISE, argmin_gradient.EXERCISE),
)
