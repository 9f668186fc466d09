"""Results written as each submission finishes, so a grader killed halfway resumes where it stopped.

A journal is a folder beside the output file (``results.json`` -> ``.results.json.partial/``):
``run.json`` holds the seed, and one file per graded submission holds its result, keyed
by what determines it (path as shown, file content, assignment, seed, grader version).
Every file is written to a temporary name and renamed, so a kill never leaves half a result.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from autograder import __version__
from autograder.results import ExerciseResult, SubmissionResult


def write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, encoding="utf-8",
                                     prefix=f".{path.name}.") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.chmod(handle.name, 0o644)  # a results file, not a secret (NamedTemporaryFile makes it 0600)
    os.replace(handle.name, path)


def result_key(shown_as: str, content: bytes, assignment: str | None, seed: int) -> str:
    digest = hashlib.sha256()
    for part in (shown_as.encode(), content, str(assignment).encode(), str(seed).encode(), __version__.encode()):
        digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()[:32]


class Journal:
    def __init__(self, folder: Path):
        self.folder = folder

    @classmethod
    def beside(cls, output: Path) -> "Journal":
        return cls(output.parent / f".{output.name}.partial")

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
            return load_result(json.loads((self.folder / f"{key}.json").read_text()))
        except (OSError, ValueError):
            return None

    def save(self, key: str, result: SubmissionResult) -> None:
        write_atomically(self.folder / f"{key}.json", json.dumps(dump_result(result)))

    def clear(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def dump_result(result: SubmissionResult) -> dict:
    """The contract's JSON object plus what the contract leaves out (seconds, notes): ``load_result``'s input."""
    return {**result.to_json(), "seconds": result.seconds, "notes": result.notes}


def load_result(data) -> SubmissionResult | None:
    """A SubmissionResult from the contract's JSON object (plus the journal's seconds and notes), or None."""
    try:
        return SubmissionResult(
            data["submission"], data["student"], data["assignment"],
            [ExerciseResult(e["id"], float(e["score"]), float(e["max_score"]), e["status"], list(e["pitfalls"]),
                            e["feedback"]) for e in data["exercises"]],
            seconds=float(data.get("seconds", 0.0)), notes=list(data.get("notes", [])))
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
