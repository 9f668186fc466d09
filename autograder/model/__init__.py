"""Plain data that every stage passes to the next: it imports nothing else of the kit.

- ``course``: how an exercise is described (Exercise, Case, Output, Mistake, Assignment).
- ``outcomes``: what a child reported (Value, ErrorInfo, TaskOutcome, RunRecord, RunStatus).
- ``results``: what the judge decided (Status, Where, Explanation, CaseReport, ExerciseResult,
  SubmissionResult), rendered by the writers in ``autograder.report``.
- ``pitfalls``: the catalogue of pitfall ids (the contract's), with what each means and its default fix.

May import: the standard library and NumPy only.
"""
