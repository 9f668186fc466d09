"""Grade a class on a local Dask cluster of W workers and with `autograder grade --jobs W`, side by side; then
simulate the client of a 10,000-submission class.

    .venv/bin/python benchmarks/cluster_speed.py                       # N = 200, W = 2, simulation of 10,000
    .venv/bin/python benchmarks/cluster_speed.py --size 60 --simulate 2000 10000

1. **Real**: the class of N distinct programs that class_speed.py builds (copies of the example class, each
   with a comment of its own). The reference outcomes are kept first (a 3-notebook class, seed 1, not timed),
   so that both rows pay the same: grading, not the references. Then `autograder grade --jobs W` and, on a
   `dask scheduler` with W `autograder worker` processes (started before, as a cluster is: their fork
   servers' import of TensorFlow is not in the row; it is printed apart), `autograder grade --scheduler`.
   Efficiency = local wall / cluster wall.
2. **Simulation** (``--simulate N...``): a synthetic class of N .py submissions (the example class's code,
   each with a comment of its own) graded through the real client and a real cluster, but with
   ``cluster_stub.canned`` as the worker-side function: it runs no child and answers the reference's own
   record. This measures the client alone: per submission its CPU seconds and wall seconds (planning,
   shipping, judging, journaling), and its peak memory (ru_maxrss). The projection for a class of 10,000 on
   W workers: max(10,000 x worker seconds per submission / W, 10,000 x client seconds per submission),
   worker seconds per submission from the real rows (W x cluster wall / N).
A measurement, not a test.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from class_speed import ROOT, build_class, environment, examples, timed

BENCHMARKS = Path(__file__).resolve().parent


def cluster_environment(cache: Path, records: Path | None = None) -> dict[str, str]:
    path = os.pathsep.join([str(ROOT), str(BENCHMARKS)])
    extra = {"CLUSTER_STUB_RECORDS": str(records)} if records else {}
    return environment(PYTHONPATH=path, AUTOGRADER_CACHE=str(cache), **extra,
                       DASK_DISTRIBUTED__SCHEDULER__WORKER_SATURATION="1.0")


class Cluster:
    """A `dask scheduler` and W `autograder worker` processes on 127.0.0.1, each in its own session."""

    def __init__(self, folder: Path, workers: int, env: dict[str, str]):
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        self.address = f"tcp://127.0.0.1:{port}"
        started = time.monotonic()
        self.processes = [self._start(folder, "scheduler", env, [str(Path(sys.executable).parent / "dask"),
                                                                 "scheduler", "--host", "127.0.0.1", "--port",
                                                                 str(port), "--no-dashboard"])]
        self.processes += [self._start(folder, f"worker{n}", env, [sys.executable, "-m", "autograder", "worker",
                                                                   self.address, "--nworkers", "1"])
                           for n in range(workers)]
        from distributed import Client

        time.sleep(1)
        with Client(self.address, timeout=60, set_as_default=False) as client:
            client.wait_for_workers(workers, timeout=180)
            # every fork server imported TensorFlow: one trivial grade-free round trip per worker is not enough,
            # so wait until each fork server's process has settled (its import is about 3 s on one core)
        time.sleep(6)
        self.startup = time.monotonic() - started

    @staticmethod
    def _start(folder: Path, name: str, env: dict[str, str], command: list[str]) -> subprocess.Popen:
        log = open(folder / f"{name}.log", "wb")
        return subprocess.Popen(command, cwd=folder, env=env, stdout=log, stderr=log, stdin=subprocess.DEVNULL,
                                start_new_session=True)

    def stop(self) -> None:
        for process in reversed(self.processes):
            try:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(20)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                os.killpg(process.pid, signal.SIGKILL)


def grade_command(folder: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "autograder", "grade", str(folder), "--seed", "1", "--format", "json",
            "--output", str(folder / "results.json"), *extra]


def prime(scratch: Path, cache: Path) -> None:
    """Keep the reference outcomes of seed 1 (one notebook per assignment graded locally)."""
    folder = scratch / "prime"
    for source in examples():
        if not (folder / source.parent.name).exists():
            (folder / source.parent.name).mkdir(parents=True)
            (folder / source.parent.name / source.name).write_bytes(source.read_bytes())
    timed(grade_command(folder, "--jobs", "2"), ROOT, cluster_environment(cache))


def real(scratch: Path, size: int, workers: int, cache: Path) -> dict:
    folder = scratch / f"class{size}"
    build_class(folder, size)
    local_wall, local_peak, _ = timed(grade_command(folder, "--jobs", str(workers)), ROOT, cluster_environment(cache))
    local = json.loads((folder / "results.json").read_text())
    (scratch / "cluster").mkdir(exist_ok=True)
    cluster = Cluster(scratch / "cluster", workers, cluster_environment(cache))
    try:
        wall, peak, log = timed(grade_command(folder, "--scheduler", cluster.address), ROOT, cluster_environment(cache))
    finally:
        cluster.stop()
    same = json.loads((folder / "results.json").read_text()) == local
    return {"local": local_wall, "local_peak": local_peak, "cluster": wall, "cluster_peak": peak, "same": same,
            "startup": cluster.startup, "log": log.strip().splitlines()[:2]}


def synthetic_class(folder: Path, size: int) -> None:
    """N .py submissions: each example notebook's code cells (as a .py export holds them), with a comment of its own."""
    from autograder.load.cells import read_submission
    from autograder.load.program import cells_for_child

    sources = [(path.parent.name, "\n".join(code for _, code, _ in cells_for_child(read_submission(path))))
               for path in examples()]
    for number in range(size):
        assignment, code = sources[number % len(sources)]
        target = folder / "submitted" / f"s{number:05d}" / assignment / f"{assignment}.py"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(f"{code}\n# handed in by s{number:05d}\n", encoding="utf-8")


def canned_records(cache: Path, records: Path) -> None:
    """The reference's record on the students' tasks of each assignment (seed 1), for cluster_stub."""
    from autograder.config import find_solutions
    from autograder.course import ASSIGNMENT_IDS, assignment_by_id
    from autograder.frontends.dask_tasks import encode_record
    from autograder.pipeline.references import reference_tasks, student_tasks
    from autograder.store.reference_cache import ReferenceCache, reference_key

    records.mkdir(parents=True, exist_ok=True)
    store = ReferenceCache(cache)
    store.prepare()
    for assignment_id in ASSIGNMENT_IDS:
        assignment = assignment_by_id(assignment_id)
        cases = {e.id: e.cases(1) for e in assignment.exercises}
        solution = find_solutions() / assignment_id / f"{assignment_id}.ipynb"
        record = store.load(reference_key(solution.read_bytes(), assignment_id, 1), reference_tasks(assignment, cases))
        assert record is not None, f"no kept reference for {assignment_id}: prime the cache first"
        record.outcomes = {n: record.outcomes[n] for n in range(len(student_tasks(assignment, cases)))}
        (records / f"{assignment_id}.json").write_bytes(encode_record(record))


def client_run(argv: list[str], report: str) -> int:
    """The CLI in this process, with the stub as the worker-side function; then its CPU time and peak memory."""
    import autograder.frontends.dask_worker as worker
    import cluster_stub
    from autograder import cli

    worker.run_on_worker = cluster_stub.canned  # the client pickles it by reference: the workers import it
    started = time.monotonic()
    status = cli.main(argv)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    Path(report).write_text(json.dumps({"wall": time.monotonic() - started, "cpu": usage.ru_utime + usage.ru_stime,
                                        "peak_mib": usage.ru_maxrss / 1024}))
    return status


def simulate(scratch: Path, sizes: list[int], workers: int, cache: Path) -> list[dict]:
    records = scratch / "records"
    canned_records(cache, records)
    env = cluster_environment(cache, records)
    (scratch / "sim-cluster").mkdir(exist_ok=True)
    cluster = Cluster(scratch / "sim-cluster", workers, env)
    rows = []
    try:
        for size in sizes:
            folder = scratch / f"synthetic{size}"
            synthetic_class(folder, size)
            report = scratch / f"client{size}.json"
            timed([sys.executable, str(Path(__file__).resolve()), "--client-run", str(report), "--",
                   *grade_command(folder, "--scheduler", cluster.address)[3:]], ROOT, env)
            measured = json.loads(report.read_text())
            results = json.loads((folder / "results.json").read_text())
            assert len(results) == size and all(r["score"] == r["max_score"] for r in results), "canned = reference"
            rows.append({"size": size, **measured})
    finally:
        cluster.stop()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--simulate", type=int, nargs="*", default=[10_000])
    parser.add_argument("--skip-real", action="store_true")
    parser.add_argument("--client-run", metavar="REPORT", help=argparse.SUPPRESS)
    args, rest = parser.parse_known_args()
    if args.client_run:
        raise SystemExit(client_run(rest[1:] if rest[:1] == ["--"] else rest, args.client_run))
    with tempfile.TemporaryDirectory(prefix="bench-cluster-") as scratch:
        scratch = Path(scratch)
        cache = scratch / "cache"
        prime(scratch, cache)
        per_submission = None
        if not args.skip_real:
            row = real(scratch, args.size, args.workers, cache)
            per_submission = args.workers * row["cluster"] / args.size
            print(f"N = {args.size}, W = {args.workers}: --jobs {args.workers} {row['local']:.1f} s (peak "
                  f"{row['local_peak']:.0f} MiB), cluster {row['cluster']:.1f} s (client peak {row['cluster_peak']:.0f}"
                  f" MiB; cluster start-up {row['startup']:.1f} s apart), efficiency {row['local'] / row['cluster']:.3f}"
                  f", same JSON: {row['same']}; worker s per submission {per_submission:.3f}", flush=True)
        for sim in simulate(scratch, args.simulate, args.workers, cache) if args.simulate else []:
            client = sim["cpu"] / sim["size"]
            print(f"simulation N = {sim['size']}: client wall {sim['wall']:.1f} s ({1000 * sim['wall'] / sim['size']:.1f}"
                  f" ms a submission), client CPU {1000 * client:.1f} ms a submission, peak {sim['peak_mib']:.0f} MiB",
                  flush=True)
            if per_submission:
                for w in (2, 8, 32, 128, 512):
                    wall = max(10_000 * per_submission / w, 10_000 * client)
                    print(f"  projected 10,000 submissions on {w} workers: {wall / 60:.1f} min"
                          f"{' (the client is the bottleneck)' if 10_000 * client >= 10_000 * per_submission / w else ''}")


if __name__ == "__main__":
    main()
