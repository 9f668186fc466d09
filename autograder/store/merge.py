"""Join the JSON results of shards (``autograder grade --shard K/N``) into one list, as one run would give."""
from __future__ import annotations

import json
from pathlib import Path

from autograder.model.results import SubmissionResult, from_contract


class MergeError(ValueError):
    """Inputs that cannot be joined: unreadable, not the grader's JSON, or the same submission twice."""


def merge_results(paths: list[Path]) -> list[SubmissionResult]:
    merged: dict[str, SubmissionResult] = {}
    for path in paths:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise MergeError(f"{path}: cannot read the results ({error})") from None
        if not isinstance(data, list):
            raise MergeError(f"{path}: not the JSON of `autograder grade --format json` (a list)")
        for item in data:
            result = from_contract(item)
            if result is None:
                raise MergeError(f"{path}: an entry is not a submission's result")
            if result.submission in merged:
                raise MergeError(f"{result.submission} is in two inputs: were two shards given the same K?")
            merged[result.submission] = result
    # One run over a directory lists submissions in path order: so does the merge.
    return [merged[key] for key in sorted(merged, key=lambda submission: Path(submission).parts)]
