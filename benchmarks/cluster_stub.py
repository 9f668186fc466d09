"""CLIENT-OVERHEAD SIMULATION ONLY: a worker-side function that grades nothing.

benchmarks/cluster_speed.py --simulate runs `autograder grade --scheduler` on a synthetic class with this
function in place of ``autograder.frontends.dask_worker.run_on_worker``: it reads the task (as a worker
does), runs no child, and answers a canned record: the reference's own outcomes on the students' tasks of
the task's assignment (written by the benchmark from the reference cache into $CLUSTER_STUB_RECORDS). What
remains is the client's work: planning, encoding and shipping each task, decoding, judging and journaling
each record. Never used to grade anyone.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

_canned: dict[str, bytes] = {}


def canned(task: bytes) -> bytes:
    assignment = json.loads(task)["assignment"]
    if assignment not in _canned:
        _canned[assignment] = (Path(os.environ["CLUSTER_STUB_RECORDS"]) / f"{assignment}.json").read_bytes()
    return _canned[assignment]
