"""Step 1 of grading, the plan: each submission read (never run by this process), its assignment told, its key
for the journal, the digest of the program its child runs, and its static reading while the fork server
imports TensorFlow."""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from autograder.course import ASSIGNMENT_IDS, assignment_by_id
from autograder.judge.static import analyze
from autograder.load.cells import SubmissionSource, read_submission
from autograder.load.discover import Found, detect_assignment
from autograder.load.program import program_digest
from autograder.load.reading import content_for_key
from autograder.store.journal import result_key


@dataclass
class Submission:
    """One submission of the plan, read but never run by this process."""

    number: int
    found: Found
    source: SubmissionSource
    assignment: str | None
    key: str  # what determines its result, for the journal
    program: str  # digest of the code the child runs: the same program (assignment, seed), the same run
    static: dict[str, object] = field(default_factory=dict)  # exercise id -> what the static reading found

    @property
    def runnable(self) -> bool:
        return self.assignment is not None and self.source.problem is None


def read_submissions(found: list[Found], assignment: str | None, seed: int) -> list[Submission]:
    """Every submission read and keyed (``assignment``: the one asked for, else each file's own)."""
    submissions = []
    for number, item in enumerate(found):
        source = read_submission(item.path)
        told = assignment or detect_assignment(item.path, source)
        key = result_key(item.shown_as, content_for_key(item.path), told, seed)
        submissions.append(Submission(number, item, source, told, key, program_digest(source)))
    return submissions


def read_statically(submissions: list[Submission], until: float) -> None:
    """The static reading, now, until the monotonic time ``until`` (the rest is read when judging)."""
    for submission in submissions:
        if time.monotonic() > until:
            break
        if submission.assignment in ASSIGNMENT_IDS and submission.source.problem is None:
            submission.static = {e.id: analyze(submission.source, e.id)
                                 for e in assignment_by_id(submission.assignment).exercises}
