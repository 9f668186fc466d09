"""Running code apart: the student's (and the reference's) code in contained children, plain data back.

- ``forkserver``: one single-threaded process that imported TensorFlow; it forks every child.
- ``child``: what runs in a child (load the cells, run the probes); ``child_modules`` lists all it holds.
- ``probe``: a probe run on one function, its outcome encoded; also used by the students' self-check.
- ``wire``: the one codec for values, errors, outcomes and records (child, parent, cache, public answers).
- ``isolation``, ``container``: the child's limits and containment; the machine's memory controller.
- ``supervisor``: the parent's view of one submission's children; ``scheduler``: many at once.
- ``tasks``: what the parent asks of a child; ``processes``: /proc, uids, killing a uid's processes.

The trust boundary runs through this package: ``child``, ``probe``, ``wire``, ``tasks``, ``isolation``
and the course's child side run with student code; the parent side (``supervisor``, ``scheduler``,
``forkserver``'s client) never imports TensorFlow and trusts no byte a child sends.

May import: ``autograder.model``, ``autograder.config``, ``autograder.supported``, ``autograder.course`` (its child
side).
"""
