"""The one codec: values, errors, task outcomes and run records as plain JSON data, both ways.

Used by the child (encoding what a student's function returned), the parent (decoding a child's messages;
encoding the one case a child is handed when its task starts), the reference cache (records kept on disk)
and the students' stored public answers (outcomes shipped in the wheel). Arrays travel as base64 float64
bytes with a shape. Nothing is unpickled and no object made by student code ever reaches the parent:
decoding rebuilds fresh ``numpy.ndarray``s of dtype float64 from bytes after checking every field's type
exactly, and raises ``WireError`` for anything else.

Decoding is total: whatever bytes a child (or a damaged cache file) holds, every ``decode_*`` and ``loads``
either returns checked data or raises ``WireError``, never another exception (a message nested 100,000
deep, a 5,000-digit integer, a shape that numpy cannot reshape to, a lone surrogate in a string). Sizes
are bounded before anything is built: a message's bytes, its count of JSON containers and separators
(what parsing turns into Python objects), each value's elements and each dimension.

- ``checked``: ``WireError``, totality, and the checked scalars every decoder is built from.
- ``messages``: one message as bytes and back (the channel frames them: ``run.channel``).
- ``values``: what a function returned (arrays, scalars, None).
- ``error_info``: an exception a student's code raised, as the feedback shows it.
- ``records``: a task's outcome and a run's record (the parent, the reference cache, the public answers).
- ``cell_outputs``: what a notebook's cell showed (nbgrader's notebook).
- ``case_inputs``: a case's inputs, parent to child (the trusted direction).

The child holds every part but ``records`` (``child_modules``): it encodes outcomes, it never decodes one.
"""
