"""The client side of grading over Dask: a runner the pipeline uses instead of this machine's fork server.

``autograder grade PATH... --scheduler ADDRESS`` plans, judges, journals and reports exactly as a local run
(``pipeline.grading_run.GradingRun``); only where the children run changes. Each run (the reference of each assignment that
needs one, then each student's submission, longest first) becomes one Dask task of ``dask_worker.run_on_worker``
carrying its code, never its path (``dask_tasks``); its record comes back as plain data, is checked, and goes
to the judge as soon as it arrives (``as_completed``), so the progress bar, the journal and resuming work as
locally. At most ``window`` tasks are in flight: the client's and the scheduler's memory stay bounded whatever
the class's size.

Faults: a worker that dies mid-task costs no grade, the scheduler runs the task elsewhere (its
``allowed-failures``, default 3; ``retries`` covers a task that raised, such as a fork server that stopped). A
submission whose every attempt killed its worker ends as that submission's error (``KilledWorker``), never as
a stuck run.
"""
from __future__ import annotations

import sys
import uuid
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, TextIO

from autograder.config import SetupError
from autograder.frontends.dask_tasks import decode_record, encode_run, killed_message, lost_record
from autograder.model.outcomes import RunRecord
from autograder.run.supervisor import SubmissionRun
from autograder.run.wire.checked import WireError

RETRIES = 2  # a task that raised (not a worker that died: that is the scheduler's allowed-failures) runs again
CONNECT_SECONDS = 30.0
WORKERS_SECONDS = 120.0  # how long to wait for the first worker to join


@dataclass(frozen=True)
class ClusterOptions:
    """Where the scheduler is and how to reach it privately (TLS: Dask's ``Security``)."""

    address: str
    tls_ca_file: str | None = None
    tls_cert: str | None = None
    tls_key: str | None = None

    def security(self):
        """Dask's Security for these files, or None (then Dask's own configuration decides, e.g. its YAML)."""
        if not (self.tls_ca_file or self.tls_cert or self.tls_key):
            return None
        from distributed.security import Security

        return Security(tls_ca_file=self.tls_ca_file, tls_client_cert=self.tls_cert, tls_client_key=self.tls_key,
                        require_encryption=True)


class ClusterRunner:
    """Runs a grading run's children on a Dask cluster's `autograder worker`s (see the module's docstring)."""

    def __init__(self, options: ClusterOptions, work: Callable[[bytes], bytes] | None = None,
                 window: int | None = None, retries: int = RETRIES, log: TextIO | None = None):
        self.options = options
        self.work = work
        self.window = window
        self.retries = retries
        self.log = log or sys.stderr
        self.client = None
        self.token = uuid.uuid4().hex[:12]  # task keys of this run: another client's never collide with them

    def prepare(self) -> None:
        """Connect to the scheduler and check that its workers are autograder workers."""
        if self.client is not None:
            return
        try:
            from distributed import Client
        except ImportError:
            raise SetupError("grading over a cluster needs Dask distributed: pip install -e '.[cluster]'") from None
        from autograder.frontends.dask_worker import is_autograder_worker, run_on_worker

        self.work = self.work or run_on_worker
        try:
            self.client = Client(self.options.address, security=self.options.security(), timeout=CONNECT_SECONDS,
                                 set_as_default=False)
            self.client.wait_for_workers(1, timeout=WORKERS_SECONDS)
            checked = self.client.run(is_autograder_worker)
        except (OSError, TimeoutError) as error:
            self.close()
            raise SetupError(f"cannot grade on the Dask cluster at {self.options.address}: {error}") from None
        strangers = sorted(address for address, ok in checked.items() if not ok)
        if strangers:
            self.close()
            raise SetupError(f"{', '.join(strangers)} {'is' if len(strangers) == 1 else 'are'} not started by "
                             "`autograder worker` (no fork server, or more than one thread): grading there is refused")
        self.workers = len(checked)

    def run_all(self, runs: Iterable[SubmissionRun], jobs: int = 1) -> Iterator[SubmissionRun]:
        """Every run on the cluster, in the order given (Dask's priorities), yielded as each one's record
        arrives; ``jobs`` is the workers' business here (one submission per worker thread)."""
        del jobs
        from distributed import as_completed

        self.prepare()
        runs = list(runs)
        references = sum(1 for run in runs if run.key[0] == "reference")
        print(f"autograder: grading on the Dask cluster at {self.options.address} ({self.workers} worker"
              f"{'s' if self.workers != 1 else ''}): {len(runs) - references} submission runs and {references} "
              f"reference{'s' if references != 1 else ''} to send", file=self.log, flush=True)
        queue = iter(enumerate(runs))
        window = self.window or max(16, 4 * self.workers)
        in_flight: dict[str, tuple[SubmissionRun, object]] = {}  # task key -> its run and future
        completed = as_completed(loop=self.client.loop)

        def submit_next() -> None:
            for index, run in queue:
                key = f"autograder-{self.token}-{run.key[0]}-{run.key[1]}"
                future = self.client.submit(self.work, encode_run(run), key=key, pure=False, retries=self.retries,
                                            priority=len(runs) - index)
                in_flight[future.key] = run, future
                completed.add(future)
                return

        for _ in range(window):
            submit_next()
        try:
            for future in completed:
                run, _ = in_flight.pop(future.key)
                run.record = self._record(future, run)
                future.release()
                run.finished = True
                submit_next()
                yield run
        finally:
            if in_flight:  # the caller stopped early (a reference that does not run cleanly): nothing runs on
                self.client.cancel([future for _, future in in_flight.values()], force=True)
            self.close()

    def _record(self, future, run: SubmissionRun) -> RunRecord:
        """The run's record from its finished future: the worker's record, or that submission's error."""
        from distributed.scheduler import KilledWorker

        what = f"{run.key[0]} {run.key[1]}"
        try:
            data = future.result()
        except KilledWorker as error:
            print(f"autograder: {what}: every worker that ran it died ({error}); it is graded as an error",
                  file=self.log, flush=True)
            return lost_record(len(run.tasks), killed_message(error.allowed_failures + 1))
        except Exception as error:  # noqa: BLE001  (the task raised on every attempt: the cluster cannot grade)
            raise SetupError(f"the cluster could not run {what}: {type(error).__name__}: {error}") from None
        try:
            return decode_record(data)
        except WireError as error:
            return lost_record(len(run.tasks), f"the grader's worker sent a malformed record ({error})")

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None
