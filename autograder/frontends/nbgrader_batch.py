"""The grader inside one ``nbgrader autograde`` process: one fork server, the CLI's pipeline, each notebook once.

nbgrader hands its preprocessors one notebook at a time; grading them one at a time would leave cores idle
and pay the pipeline's start per notebook. So the first notebook of an assignment starts a run of the
pipeline (``pipeline.grading_run.GradingRun``, exactly what ``autograder grade`` runs, its children asked to keep each
cell's outputs) over every notebook of that assignment nbgrader is about to autograde, ``jobs`` at a time,
in a worker thread; each notebook's preprocessor waits for its own result only, while nbgrader sanitizes
and writes the others. The fork server (TensorFlow imported once) is the process's own
(``run.scheduler.fork_server``), shared by every run, stopped at exit.
"""
from __future__ import annotations

import hashlib
import queue
import threading
from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path

from autograder.config import SetupError, Settings
from autograder.frontends.nbgrader_kept import submitted_view
from autograder.frontends.nbgrader_outputs import NotebookGrade
from autograder.load.discover import Found
from autograder.model.outcomes import RunRecord
from autograder.pipeline.grading_run import GradingRun
from autograder.pipeline.submissions import Submission
from autograder.model.results import SubmissionResult
from autograder.run.supervisor import SubmissionRun


class CapturingRun(GradingRun):
    """The CLI's grading run, with each child keeping its cells' outputs and each record handed on."""

    def __init__(self, settings: Settings, futures: dict[Path, Future]):
        super().__init__(settings)
        self.futures = futures

    def schedule(self) -> list[SubmissionRun]:
        runs = super().schedule()
        for run in runs:
            run.job = replace(run.job, capture_outputs=True)
        return runs

    def deliver(self, submission: Submission, record: RunRecord | None, kept: SubmissionResult | None = None) -> None:
        super().deliver(submission, record, kept)
        future = self.futures.get(submission.found.path)
        if future is not None and not future.done():
            future.set_result(NotebookGrade(submission.found.path, self.results[submission.number], record,
                                            submission.source))


class ContainedGrader:
    """Grades notebooks on request, each once per process: batches run one after another in one thread."""

    def __init__(self):
        self._futures: dict[tuple, Future] = {}  # (path, its bytes' digest, settings) -> its grade, once
        self._lock = threading.Lock()
        self._queue: queue.Queue = queue.Queue()
        self._worker: threading.Thread | None = None

    def grade(self, notebook: Path, batch: list[Path], settings: Settings, root: Path) -> NotebookGrade:
        """``notebook``'s grade; when it is new, it and the new ones of ``batch`` are graded together. A grade is
        taken once: a process that lives on (formgrader's server) grades a notebook handed in again afresh."""
        with self._lock:
            if _key(notebook, settings) not in self._futures:
                todo = [p for p in dict.fromkeys([notebook, *batch]) if _key(p, settings) not in self._futures]
                futures = {p: Future() for p in todo}
                self._futures.update({_key(p, settings): f for p, f in futures.items()})
                self._queue.put((futures, settings, root))
                if self._worker is None:
                    self._worker = threading.Thread(target=self._work, name="autograder-nbgrader", daemon=True)
                    self._worker.start()
            future = self._futures.pop(_key(notebook, settings))
        return future.result()

    def _work(self) -> None:
        while True:
            futures, settings, root = self._queue.get()
            try:
                CapturingRun(settings, futures).grade([Found(p, _shown(p, root)) for p in futures])
                problem = "the grader returned no result for this notebook"
            except SetupError as error:
                problem = f"the grader cannot grade: {error}"
            except Exception as error:  # noqa: BLE001  (each notebook then says why, nbgrader goes on)
                problem = f"the grader failed: {type(error).__name__}: {error}"
            for path, future in futures.items():
                if not future.done():
                    future.set_result(NotebookGrade(path, problem=problem))


def _key(path: Path, settings: Settings) -> tuple:
    """A notebook's grade depends on its bytes and the settings: a file handed in again is another key."""
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        digest = ""
    return path, digest, settings


def _shown(path: Path, root: Path) -> str:
    """The notebook's path as the CLI would show it, run from the course's folder (a copy of what nbgrader keeps:
    from its ``submitted`` folder on, ``nbgrader_kept``)."""
    try:
        return str(path.relative_to(root))
    except ValueError:
        return submitted_view(path)


_grader: ContainedGrader | None = None


def grader() -> ContainedGrader:
    """This process's grader, made on first use (its fork server starts with its first run)."""
    global _grader
    if _grader is None:
        _grader = ContainedGrader()
    return _grader
