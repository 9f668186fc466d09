"""Results written as each submission finishes, so a grader killed halfway resumes where it stopped.

A journal is a folder beside the output file (``results.json`` -> ``.results.json.partial/``):
``run.json`` holds the seed, and one file per graded submission holds its result (structure included),
keyed by what determines it (path as shown, file content, assignment, seed, grader version).
Every file is written atomically, so a kill never leaves half a result.
"""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from autograder import __version__
from autograder.model.results import SubmissionResult, from_data, to_data
from autograder.store.atomic import write_atomically


def result_key(shown_as: str, content: bytes, assignment: str | None, seed: int) -> str:
    digest = hashlib.sha256()
    for part in (shown_as.encode(), content, str(assignment).encode(), str(seed).encode(), __version__.encode()):
        digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()[:32]


def beside(output: Path) -> Path:
    """The journal folder of a run that writes ``output``."""
    return output.parent / f".{output.name}.partial"


class Journal:
    def __init__(self, folder: Path):
        self.folder = folder

    def seed(self) -> int | None:
        """The seed of an interrupted run, if there is one."""
        try:
            value = json.loads((self.folder / "run.json").read_text())["seed"]
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return value if type(value) is int else None

    def start(self, seed: int) -> None:
        if self.seed() not in (None, seed):
            self.clear()  # another seed: the old results are for other cases
        write_atomically(self.folder / "run.json", json.dumps({"seed": seed, "version": __version__}))

    def load(self, key: str) -> SubmissionResult | None:
        try:
            return from_data(json.loads((self.folder / f"{key}.json").read_text()))
        except (OSError, ValueError):
            return None

    def save(self, key: str, result: SubmissionResult) -> None:
        write_atomically(self.folder / f"{key}.json", json.dumps(to_data(result)))

    def clear(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
