"""Running code apart: the student's (and the reference's) code in contained children, plain data back.

- ``forkserver_process``: one single-threaded process that imported TensorFlow; it forks every child.
  ``forkserver``: the parent's side of it (start it, ask for a child, that child's handle).
- ``child``: what runs in a child (load the cells, run the probes); ``child_modules`` lists all it holds.
- ``probe``: a probe run on one function, its outcome encoded; also used by the students' self-check.
- ``wire``: the one codec for values, errors, outcomes and records (child, parent, cache, public answers),
  a module per kind of data.
- ``isolation``, ``container``: the child's limits and containment; the machine's memory controller.
- ``supervisor``: the parent's view of one submission's children: it starts, stops and restarts them and
  hands out the tasks; ``child_messages``: what it reads from them; ``watch``: their limits, processes and
  memory; ``task_outcomes``: what the record says of each task; ``budgets``: what a submission may cost the
  parent. ``scheduler``: many at once; ``channel``: the parent's never-blocking end of a child's socket.
- ``tasks``: what the parent asks of a child; ``handing``: each task handed over with its one case, in the
  parent's order; ``processes``: /proc, uids, killing a uid's processes.
- ``hidden``: whether a folder of the grader's lies in a child's sight (none is ever named to a child).

The trust boundary runs through this package: ``child``, ``probe``, ``wire`` (all but its ``records``),
``tasks``, ``isolation`` and the course's child side run with student code; the parent side (``supervisor``
and its parts, ``scheduler``, ``forkserver``, ``handing``) never imports TensorFlow and trusts no byte a
child sends. No child holds the course's secret or a case before its task starts (``handing``).

May import: ``autograder.model``, ``autograder.config``, ``autograder.supported``, ``autograder.course`` (its child
side).
"""
