"""Assignment ``custom_gradients``: its six exercises, in the contract's order."""
from autograder.course.custom_gradients import (checkpointed, clip_gradient_norm, log1pexp, safe_norm,
                                                straight_through_round, td_loss)
from autograder.model.course import Assignment

ASSIGNMENT = Assignment(
    id="custom_gradients",
    title="Custom gradients",
    exercises=(log1pexp.EXERCISE, straight_through_round.EXERCISE, clip_gradient_norm.EXERCISE, td_loss.EXERCISE,
               checkpointed.EXERCISE, safe_norm.EXERCISE),
)
