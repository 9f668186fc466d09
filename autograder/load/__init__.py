"""Reading submissions, never running them: a notebook or ``.py`` file becomes cells of plain Python.

- ``cells``: notebook or ``.py`` -> ``SubmissionSource`` (cells with line numbers kept, or why it is unreadable).
- ``ipython``: IPython syntax neutralised; cells that only call the kit's notebook API recognised.
- ``program``: what a child runs from a source, and the digest that says two submissions run the same code.
- ``discover``: the submissions below the paths given, whose they are, which assignment.

May import: ``autograder.model``, ``autograder.course`` (the assignments' ids and exercise names).
"""
