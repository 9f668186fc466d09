"""Mistake models of ``higher_order``: TRUSTED code, imported only by reference children.

Some mistakes are a correct computation with one part wrong, so this package holds correct parts (a correct
penalty, a correct Hessian and gradient): a student's child must never be able to import it
(``autograder.run.child_modules``), and the students' wheel ships the models' answers on the public cases,
not this code.

The models live with the correct parts they share: ``penalty`` (gradient_penalty, critic_gradients) and
``hessian`` (hessian_vector_product, newton_step, newton_cg_step). This package's namespace is where the
course looks a model up by its name (``autograder.course.mistake_implementation``); importing it imports
both, as a reference child does before its files close.
"""
from __future__ import annotations

from autograder.course.higher_order.mistakes.hessian import (hvp_row_sums, hvp_gradient, newton_multiplied,
                                                             newton_sign, newton_gradient_step, newton_summed,
                                                             cg_one_step_more, cg_one_step_fewer,
                                                             cg_steepest_descent, cg_returns_p, cg_wrong_sign,
                                                             cg_no_early_stop, cg_gradient_residual,
                                                             cg_hvp_moving_point, cg_row_sums, cg_zero_hvp)
from autograder.course.higher_order.mistakes.penalty import (gp_whole_batch, gp_axis_one, gp_last_axis,
                                                             gp_spatial_axes, gp_batch_axis, gp_swapped,
                                                             cg_penalty_outside, cg_sign_flipped, cg_whole_batch,
                                                             cg_axis_one, cg_swapped)
