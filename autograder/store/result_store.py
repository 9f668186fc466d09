"""Grades kept on disk, so that a later run grades only what it has not graded before.

Written by every run that has a cache folder (in its ``results/``), for clean runs only; read only when
asked (``autograder grade --reuse-results``, which each nbgrader graded cell passes: after a class run,
``nbgrader autograde`` then reuses its grades instead of starting one grader per notebook). The key holds
everything a grade depends on: the code the submission runs (``load.program.program_digest``, not the
file's bytes: outputs and metadata do not count), the reference key (solution, assignment, seed, grader,
libraries, numeric environment), the whole grader's source (the feedback's wording) and the limits.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from autograder.model.results import SubmissionResult, from_data, to_data
from autograder.store.atomic import folder_key, mark_used, read_entry, trim, write_entry
from autograder.store.reference_cache import FORMAT, grader_fingerprint

KEEP_RESULTS = 20_000  # grades kept (a few KB each): a few classes' worth


@dataclass
class ResultStore:
    folder: Path
    secret: bytes | None = field(default=None, repr=False)  # the cache folder's (``store.atomic.folder_key``)

    def __post_init__(self):
        if self.secret is None:  # the cache folder's key: a grade nobody holding it wrote reads as absent
            self.secret = folder_key(self.folder.parent)

    @classmethod
    def inside(cls, cache_folder: Path) -> "ResultStore":
        return cls(cache_folder / "results")

    @staticmethod
    def key(program: str, reference: str, limits: object) -> str:
        digest = hashlib.sha256()
        for part in (f"result/{FORMAT}".encode(), program.encode(), reference.encode(),
                     grader_fingerprint(whole=True).encode(), repr(limits).encode()):
            digest.update(len(part).to_bytes(8, "big") + part)
        return digest.hexdigest()

    def path(self, key: str) -> Path:
        return self.folder / f"result-{key}.json"

    def load(self, key: str) -> SubmissionResult | None:
        data = read_entry(self.path(key), self.secret)
        try:
            result = None if data is None else from_data(json.loads(data.decode("utf-8")))
        except (ValueError, RecursionError, MemoryError):
            return None
        if result is not None:
            mark_used(self.path(key))
        return result

    def save(self, key: str, result: SubmissionResult) -> bool:
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)  # owner-only, like the cache folder
        except OSError:
            return False
        return write_entry(self.path(key), json.dumps(to_data(result)).encode("utf-8"), self.secret)

    def trim(self) -> None:
        """Remove all but the ``KEEP_RESULTS`` grades used last: once per run (a class writes hundreds)."""
        trim(self.folder, "result-*.json", KEEP_RESULTS)
