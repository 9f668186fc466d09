"""Judging, in the trusted parent: numbers compared, mistakes named, the source read, results built.

- ``compare``: one output against the reference's, with a failure text in pytest's ``approx`` style.
- ``cases``: one case's verdict (passed, wrong, raised, timed out...); ``hidden``: what a hidden case shows
  (the grader's words only).
- ``plan``: which diagnostic and advisory cases can still matter while a child runs (the parent skips the rest).
- ``diagnose``: the rules that name a pitfall from the verdicts, the mistake models' numbers and the
  static reading; ``signals``: what those rules measure in the evidence; ``causes``: another of the student's
  exercises that makes this one fail; ``where``: a static finding as a place in the student's code.
- ``evaluate``: an exercise's evidence -> its ``ExerciseResult`` (score, status, explanations, cases).
- ``static``: reading the student's source with ``ast`` (never running it).

May import: ``autograder.model``, ``autograder.load`` (the source read for the static reading),
``autograder.config`` (the static reading's strict mode: AUTOGRADER_STRICT_STATIC).
"""
