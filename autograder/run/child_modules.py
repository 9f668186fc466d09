"""Everything of the kit that a student's child holds: the one list, checked by a test against what
``autograder.run.child`` (the fork server's import) really loads.

A student's code runs in a fork of the fork server, so it can reach every module the server imported (in
``sys.modules``, and in memory). None of these holds a correct implementation of an exercise, a mistake
model, the reference cache or another student's data: case builders, probes, the codec and the
containment only. Adding a module here is a security decision: say why in its docstring.
"""
from __future__ import annotations

CHILD_MODULES = frozenset({
    "autograder", "autograder.config",
    "autograder.supported",  # the TensorFlow range and its one-line messages: the notebooks' setup cell calls it
    "autograder.model", "autograder.model.course", "autograder.model.outcomes",
    "autograder.run", "autograder.run.child", "autograder.run.isolation", "autograder.run.probe",
    "autograder.run.capture",  # a cell's outputs for nbgrader's notebook: streams, displays, figures (no data)
    "autograder.run.tasks",
    # the codec's child side: checks, messages, values, errors, a case's inputs, a cell's outputs (its records
    # module, which decodes outcomes and whole records, is the parent's and the stores')
    "autograder.run.wire", "autograder.run.wire.checked", "autograder.run.wire.messages", "autograder.run.wire.values",
    "autograder.run.wire.error_info", "autograder.run.wire.case_inputs", "autograder.run.wire.cell_outputs",
    # the containment itself: system calls, namespaces, the file view, Landlock, privileges (no data)
    "autograder.run.linux", "autograder.run.namespaces", "autograder.run.mounts", "autograder.run.landlock",
    "autograder.run.privileges",
    "autograder.course", "autograder.course.building", "autograder.course.probing",
    "autograder.course.custom_gradients", "autograder.course.custom_gradients.checkpointed",
    "autograder.course.custom_gradients.clip_gradient_norm", "autograder.course.custom_gradients.elementwise",
    "autograder.course.custom_gradients.log1pexp", "autograder.course.custom_gradients.straight_through_round",
    "autograder.course.custom_gradients.td_loss", "autograder.course.custom_gradients.safe_norm",
    "autograder.course.higher_order", "autograder.course.higher_order.critic_gradients",
    "autograder.course.higher_order.critics", "autograder.course.higher_order.derivatives",
    "autograder.course.higher_order.gradient_penalty", "autograder.course.higher_order.hessian_vector_product",
    "autograder.course.higher_order.newton_cg_step", "autograder.course.higher_order.newton_step",
    "autograder.course.jacobians", "autograder.course.jacobians.batch_jacobian",
    "autograder.course.jacobians.functions", "autograder.course.jacobians.hessian",
    "autograder.course.jacobians.jacobian", "autograder.course.jacobians.jvp",
    "autograder.course.jacobians.robust_jacobian", "autograder.course.jacobians.shared",
    "autograder.course.jacobians.models", "autograder.course.jacobians.per_example_gradients",
    # the implicit assignment: its callables include the grader's given solvers (NumPy), which the exercises
    # call, not what they ask for (the gradients)
    "autograder.course.implicit", "autograder.course.implicit.argmin_gradient", "autograder.course.implicit.callables",
    "autograder.course.implicit.fixed_point", "autograder.course.implicit.implicit_solve",
    "autograder.course.implicit.root_solve", "autograder.course.implicit.shared",
})

# What a student's child must never hold, whatever is added to the list above.
TRUSTED_PREFIXES = ("autograder.judge", "autograder.store", "autograder.report", "autograder.frontends",
                    "autograder.pipeline", "autograder.cli")


def trusted(module: str) -> bool:
    """A module that only trusted processes may import: the mistake models, the judge, the stores..."""
    return ".mistakes." in f"{module}." or module.startswith(TRUSTED_PREFIXES)  # a mistakes module, or package
