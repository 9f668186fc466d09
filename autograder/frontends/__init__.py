"""Where grading meets the places it runs: the students' self-check, nbgrader's graded cells, Gradescope.

- ``selfcheck``: public check cells in a student's own kernel (no solutions: ``public_answers``).
- ``nbgrader_cell``: a graded cell's grade, from a contained run of the kit's CLI.
- ``nbgrader_executor``: nbgrader's ``Execute`` replaced (the course's default): each notebook graded by the
  pipeline in a contained child (``nbgrader_batch``: one fork server per nbgrader process), its cells' outputs
  and its graded cells written by the grader (``nbgrader_outputs``).
- ``nbgrader_course``: a course ready for nbgrader's first command (the gradebook, the example class, the
  exchange; ``nbgrader_config.py`` calls it) and ``autograder course init``.
- ``gradescope_bundle``: the autograder zip for Gradescope; ``gradescope_scripts``: its setup.sh and
  run_autograder; ``gradescope_grading``: what runs inside Gradescope for each submission.
- ``prairielearn``: what runs inside PrairieLearn's grading container (examples/prairielearn's entrypoint).
- ``public_answers``: the reference's and the mistake models' answers on the public cases, shipped in the wheel.
- ``dask_client``, ``dask_worker``, ``dask_tasks``: grading over a Dask cluster (`grade --scheduler`, `autograder
  worker`): the client's runner, the workers' fork-server plugin and task, and what travels between them.

May import anything of the kit.
"""
