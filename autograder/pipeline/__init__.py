"""grade(): plan -> references -> run -> judge, each a short step over small data classes.

1. **plan** (``pipeline.submissions``): read every submission (never run it), tell its assignment, read it
   statically, digest the program its child runs; ``pipeline.grading_run`` resumes what a journal already
   holds, takes kept grades when asked and groups submissions that run the same code;
2. **references** (``pipeline.references``): per assignment, the reference's and the mistake models' outcomes
   on this run's cases, from the cache or from a contained run of its own;
3. **run** (``pipeline.grading_run``): every submission that must run, in a contained child, at most ``jobs``
   at once;
4. **judge** (``pipeline.judging``): each finished record against its reference (``judge.evaluate``), then
   delivered: to the journal, the kept grades and the caller as they finish; ``grade`` returns them in the
   order given.

May import: config, course, judge, load, model, run, store (the pipeline is the one part that joins them).
"""
