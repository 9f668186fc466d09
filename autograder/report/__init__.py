"""Writers: every one renders the result model (``autograder.model.results``); none parses another's text.

- ``contract``: the contract's JSON; ``feedback_text``: an exercise's feedback as the contract's text.
- ``text``: per-submission detail and the class table, for terminals and logs.
- ``formats``: the writers by ``--format`` name: Gradescope's and PrairieLearn's results.json, JUnit XML, a CSV
  gradebook, Classroom 50's result, Canvas and Moodle gradebooks.
- ``feedback_pages``: one HTML page per submission; ``class_report``: the class's page, with its numbers
  (``class_statistics``) and its plots (``class_plots``).
- ``numbers``: the one way points are written for people.

May import: ``autograder.model``, ``autograder.course`` (the assignments' order), ``autograder.store.atomic``.
"""
