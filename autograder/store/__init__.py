"""What the grader keeps on disk: reference outcomes, kept grades, the journal of a run; merging shards.

- ``atomic``: every file written whole or not at all (temporary name, then rename); entries with an HMAC
  under the cache folder's own key.
- ``reference_cache``: the reference's and the mistake models' outcomes, keyed by all they depend on.
- ``result_store``: clean grades kept for ``--reuse-results``.
- ``journal``: a run's finished results, so that a run killed halfway resumes.
- ``merge``: shards' JSON joined into one list.

May import: ``autograder.model``, ``autograder.config``, ``autograder.run.wire`` (the one codec),
``autograder.run.tasks`` (the tasks an entry is for), ``autograder.run.isolation`` (whether a child could
reach the cache).
"""
