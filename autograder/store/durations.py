"""How long each program took when it was last graded, kept so that the next run starts the longest first.

The scheduler hands submissions out longest first, so that no worker is left alone with a long one at the end
(on two cores, one 6-second submission started last costs a class of twenty 3 s). Without history it can
only guess by assignment (the reference's own time); a regrade, a second run with kept references or a class
graded again after late submissions knows each program's own time from the run before. Only the order
changes, never a grade: a duration read wrong or forged costs time, nothing else.

One file in the cache folder, an entry of ``store.atomic`` (HMAC under the folder's key), keyed by the
assignment and the plan's digest of the code the child runs (``load.program.program_digest``: a re-saved
notebook is the same program); timeouts and crashes count too (they are the long ones). The ``KEEP`` noted
last are kept.
"""
from __future__ import annotations

import json
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, Sequence, TypeVar

from autograder.store.atomic import folder_key, read_entry, write_entry


class Submission(Protocol):
    """What a duration is kept by: a submission's assignment and the digest of the code its child runs (the
    pipeline's submissions have both; the store needs nothing else of them)."""

    assignment: str | None
    program: str


R = TypeVar("R")

KEEP = 20_000  # programs (about 90 bytes each), as many as the kept grades
FILE = "durations.json"


def program_key(submission: Submission) -> str:
    """Its assignment and the digest of the code its child runs (what the time depends on, with the cases)."""
    return f"{submission.assignment}:{submission.program[:40]}"


@dataclass
class Durations:
    path: Path
    secret: bytes | None = field(default=None, repr=False)
    loaded: dict[str, float] | None = None  # the file's, read when first needed
    noted: dict[str, float] = field(default_factory=dict)  # this run's, written by ``save``

    @classmethod
    def inside(cls, cache_folder: Path) -> "Durations":
        return cls(Path(cache_folder) / FILE, folder_key(Path(cache_folder)))

    @property
    def known(self) -> dict[str, float]:
        if self.loaded is None:
            self.loaded = self._read()
        return self.loaded

    def seconds(self, submission: Submission) -> float | None:
        return self.known.get(program_key(submission))

    def note(self, submission: Submission, seconds: float) -> None:
        """A finished run's time (from its first child's start: waiting in the queue is not its time)."""
        self.noted[program_key(submission)] = round(float(seconds), 3)

    def typical(self) -> dict[str, float]:
        """Each assignment's median time over its known programs."""
        by_assignment: dict[str, list[float]] = {}
        for key, seconds in self.known.items():
            by_assignment.setdefault(key.split(":")[0], []).append(seconds)
        return {assignment: statistics.median(values) for assignment, values in by_assignment.items()}

    def save(self) -> None:
        """This run's durations over what the file holds now (another grader may have written since). A run of
        one program has no order to choose (nbgrader's graded cells grade notebook by notebook): nothing is read
        or written for it."""
        if len(self.noted) < 2:
            return
        merged = self._read()
        for key, seconds in self.noted.items():
            merged.pop(key, None)
            merged[key] = seconds  # noted last, trimmed last
        write_entry(self.path, json.dumps(dict(list(merged.items())[-KEEP:])).encode("utf-8"), self.secret)

    def _read(self) -> dict[str, float]:
        data = read_entry(self.path, self.secret)
        try:
            loaded = json.loads(data.decode("utf-8")) if data is not None else {}
        except (ValueError, UnicodeDecodeError):
            return {}
        if not isinstance(loaded, dict):
            return {}
        return {str(k): float(v) for k, v in loaded.items() if isinstance(v, (int, float)) and v >= 0}


def longest_first(runs: Sequence[R], submissions: Sequence[Submission], durations: Durations | None,
                  reference_seconds: dict[str, float]) -> list[R]:
    """``runs`` (of ``submissions``, in the same order) sorted longest first; ties keep the order given.

    A program graded before is expected to take what it took then. One that was not takes the median of its
    assignment's known programs, or, where none is known, its reference's time scaled by how the known
    assignments compared with their references (the reference runs warm, with no mistake: students take
    longer). With no history at all, that is the order by assignment of the reference's times."""
    if len(runs) < 2:
        return list(runs)  # nothing to order: the file is not read
    known = [durations.seconds(submission) if durations is not None else None for submission in submissions]
    typical = durations.typical() if durations is not None else {}
    ratios = [seconds / reference_seconds[a] for a, seconds in typical.items() if reference_seconds.get(a, 0) > 0]
    scale = statistics.median(ratios) if ratios else 1.0

    def expected(number: int) -> float:
        if known[number] is not None:
            return known[number]
        assignment = submissions[number].assignment
        return typical.get(assignment, reference_seconds.get(assignment, 0.0) * scale)

    return [runs[number] for number in sorted(range(len(runs)), key=lambda number: -expected(number))]
