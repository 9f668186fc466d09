"""Which containment a student's child gets on this machine, as this user: ``python -m autograder.run.measures``.

What holds depends on the kernel, the container and the grader's user (docs/security.md): run this
where the grader will run (a Gradescope image's setup, a cluster's compute node, a JupyterHub) to see it.
It forks one child exactly as grading does, with no student code, and prints the measures it applied and
whether the reference cache and the kept grades would be used.
"""
from __future__ import annotations

import shutil
import sys
import tempfile
import time
from multiprocessing.connection import wait

from autograder.run.forkserver import ForkServer
from autograder.run.isolation import Containment, children_files_private
from autograder.run.namespaces import can_become
from autograder.run.processes import sandbox_uid
from autograder.run.tasks import ChildJob
from autograder.run.wire.checked import as_list, text
from autograder.run.wire.messages import MAX_MESSAGE_BYTES, loads


def child_measures(timeout: float = 120) -> list[str]:
    """The measures a student's child reports, forked as grading forks one (no task, no cell)."""
    server = ForkServer()
    workdir = tempfile.mkdtemp(prefix="autograder-")
    try:
        containment = Containment(uid=sandbox_uid(0) if can_become() else None)
        child = server.fork(ChildJob("custom_gradients", cells=[], load=False, workdir=workdir,
                                     containment=containment))
        deadline = time.monotonic() + timeout
        while not child.channel.at_end and wait([child.channel], max(0.0, deadline - time.monotonic())):
            for data in child.channel.receive(MAX_MESSAGE_BYTES)[:1]:
                message = loads(data)
                return [text(m, "measure") for m in as_list(message.get("measures"))] \
                    if message.get("event") == "contained" else []
        return []
    finally:
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def main() -> int:
    measures = child_measures()
    print("a student's child on this machine, as this user:")
    print("\n".join(f"  - {measure}" for measure in measures) or "  (the child reported nothing)")
    cache = children_files_private()
    print(f"reference cache and kept grades: {'used' if cache else 'refused (a child could reach them)'}")
    return 0 if measures else 1


if __name__ == "__main__":
    sys.exit(main())
