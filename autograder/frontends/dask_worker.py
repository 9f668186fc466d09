"""The worker side of grading over Dask: ``autograder worker``, the fork server's plugin, the task function.

``autograder worker ADDRESS --nworkers N`` becomes ``dask worker ADDRESS --nthreads 1 --nworkers N --preload
autograder.frontends.dask_worker`` (``os.execv``: the process you start, and may kill, is Dask's own nanny,
with all of the ``dask worker`` command's semantics: restarts, signals, TLS, ports). Each worker process then
runs this module's ``dask_setup``, which registers ``ForkServerPlugin`` on it: the plugin starts the kit's fork
server, a single-threaded process of its own (``subprocess``: fork and exec) that imports TensorFlow once and
forks every child. A Dask worker is multi-threaded, so it must never fork a child itself, and it imports no
TensorFlow: it runs the same supervisor as a local run (``run.supervisor``), one submission at a time (one
thread), with the same containment (as root: mounts, namespaces, a uid of its own).
"""
from __future__ import annotations

import os
import sys

from distributed import WorkerPlugin, get_worker

from autograder.config import SetupError, cache_folder, find_solutions
from autograder.frontends.dask_tasks import decode_run, encode_record
from autograder.run.hidden import out_of_sight_problem
from autograder.run.scheduler import run_all, start_fork_server, stop_fork_server

PLUGIN_NAME = "autograder-fork-server"
PRELOAD = "autograder.frontends.dask_worker"


class NotAnAutograderWorker(RuntimeError):
    """A task reached a Dask worker that `autograder worker` did not start (no fork server, or threads)."""


class ForkServerPlugin(WorkerPlugin):
    """Starts the kit's fork server when its worker starts, and stops it (and its children) when it closes."""

    idempotent = True

    def setup(self, worker) -> None:
        if worker.state.nthreads != 1:
            raise NotAnAutograderWorker(f"an autograder worker runs one submission at a time: start it with "
                                        f"--nthreads 1, not {worker.state.nthreads}")
        problem = in_sight_problem(worker)
        if problem:
            raise NotAnAutograderWorker(problem)
        start_fork_server()  # its `import tensorflow` runs in its own process while the worker registers

    def teardown(self, worker) -> None:
        stop_fork_server()


async def dask_setup(worker) -> None:
    """Dask's preload hook: the worker registers the plugin itself (no client needs to)."""
    answer = await worker.plugin_add(ForkServerPlugin(), name=PLUGIN_NAME, catch_errors=False)
    if answer.get("status") != "OK":
        raise NotAnAutograderWorker(str(answer))


def is_autograder_worker(dask_worker) -> bool:
    """For ``Client.run``: does this worker hold the plugin and a single thread?"""
    return PLUGIN_NAME in dask_worker.plugins and dask_worker.state.nthreads == 1


def run_on_worker(task: bytes) -> bytes:
    """The task every submission is: decode its run, run it in contained children of this worker's fork
    server (exactly as ``autograder grade`` does locally), and return its record's bytes."""
    worker = get_worker()
    if not is_autograder_worker(worker):
        raise NotAnAutograderWorker(f"{worker.address} was not started by `autograder worker`")
    run = decode_run(task)
    (finished,) = list(run_all([run], jobs=1))
    return encode_record(finished.record)


def in_sight_problem(worker) -> str | None:
    """Why a folder of this machine that no child may read (its solutions, its cache, the Dask scratch folder,
    where spilled tasks hold classmates' code) lies in a child's view, or None. No child is told where they
    are: they must lie outside its allowlist (``run.hidden``)."""
    try:
        solutions = find_solutions()
    except SetupError:
        solutions = None
    for path, what in ((solutions, "the solutions folder"), (cache_folder(), "the cache folder"),
                       (getattr(worker, "local_directory", None), "the Dask worker's local directory")):
        problem = out_of_sight_problem(path, what) if path else None
        if problem:
            return f"this machine cannot be an autograder worker: {problem}"
    return None


def worker_command(scheduler: str, nworkers: int, name: str | None = None, tls_ca_file: str | None = None,
                   tls_cert: str | None = None, tls_key: str | None = None,
                   local_directory: str | None = None) -> list[str]:
    """The `dask worker` command line `autograder worker` runs."""
    command = [sys.executable, "-m", "distributed.cli.dask_worker", scheduler, "--nthreads", "1",
               "--nworkers", str(nworkers), "--preload", PRELOAD, "--no-dashboard"]
    for option, value in (("--name", name), ("--tls-ca-file", tls_ca_file), ("--tls-cert", tls_cert),
                          ("--tls-key", tls_key), ("--local-directory", local_directory)):
        if value:
            command += [option, value]
    return command


def start_workers(command: list[str]) -> None:
    """Become `dask worker` (this process is replaced: its pid is the nanny's, for signals and for Slurm)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(command[0], command)
