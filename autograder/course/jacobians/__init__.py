"""Assignment ``jacobians``: its six exercises, in the contract's order."""
from autograder.course.jacobians import batch_jacobian, hessian, jacobian, jvp, per_example_gradients, robust_jacobian
from autograder.model.course import Assignment

ASSIGNMENT = Assignment(
    id="jacobians",
    title="Jacobians, Hessians and Jacobian-vector products",
    exercises=(jacobian.EXERCISE, batch_jacobian.EXERCISE, robust_jacobian.EXERCISE, hessian.EXERCISE, jvp.EXERCISE,
               per_example_gradients.EXERCISE),
)
