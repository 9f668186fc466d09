"""The memory controller's limit and OOM kills: read from cgroup files, and said to the student for real.

The parsing tests lay out cgroup v1 and v2 trees as the kernel does (files in a temporary folder); the
last test puts a real grader in a real memory cgroup of 768 MiB (Gradescope's default container) and
grades a submission that fills it: it needs root and a writable memory controller, and skips otherwise.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from autograder.run.container import _groups, describe_limit, memory_limit, oom_kills
from helpers import ROOT, quiet_env

V1_MEMBERSHIP = "12:pids:/\n4:memory:/process_api/box\n1:cpu:/\n0::/\n"
V2_MEMBERSHIP = "0::/user.slice/grader.scope\n"


def lay_out(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_v1_the_smallest_limit_on_the_way_up_and_every_oom_counter(tmp_path):
    root, membership = tmp_path / "cgroup", tmp_path / "proc-self-cgroup"
    membership.write_text(V1_MEMBERSHIP)
    lay_out(root, {
        "memory/memory.limit_in_bytes": "9223372036854771712\n",  # v1's "no limit"
        "memory/process_api/memory.limit_in_bytes": "2147483648\n",
        "memory/process_api/box/memory.limit_in_bytes": "805306368\n",
        "memory/process_api/box/memory.oom_control": "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n",
        "memory/process_api/memory.oom_control": "oom_kill_disable 0\nunder_oom 0\noom_kill 5\n",
    })
    assert _groups(root, membership)[0] == root / "memory" / "process_api" / "box"
    assert memory_limit(root, membership) == 768 * 2**20
    assert oom_kills(root, membership) == (3, 5)
    assert "768 MiB" in describe_limit(memory_limit(root, membership))


def test_v2_memory_max_and_memory_events(tmp_path):
    root, membership = tmp_path / "cgroup", tmp_path / "proc-self-cgroup"
    membership.write_text(V2_MEMBERSHIP)
    lay_out(root, {
        "user.slice/grader.scope/memory.max": "max\n",
        "user.slice/memory.max": "1073741824\n",
        "user.slice/grader.scope/memory.events": "low 0\nhigh 0\nmax 12\noom 2\noom_kill 1\noom_group_kill 0\n",
    })
    assert memory_limit(root, membership) == 2**30
    assert oom_kills(root, membership) == (1,)


def test_no_controller_means_none_and_the_old_message(tmp_path):
    membership = tmp_path / "proc-self-cgroup"
    membership.write_text(V1_MEMBERSHIP)
    assert memory_limit(tmp_path / "nothing", membership) is None
    assert oom_kills(tmp_path / "nothing", membership) is None
    assert memory_limit(tmp_path, tmp_path / "missing") is None
    assert describe_limit(None) == ""


def own_memory_group() -> Path | None:
    """A folder where this process may make a memory cgroup of its own, or None."""
    if os.geteuid() != 0:
        return None
    groups = _groups(Path("/sys/fs/cgroup"), Path("/proc/self/cgroup"))
    for folder in groups:
        if (folder / "memory.limit_in_bytes").exists() or (folder / "memory.max").exists() \
                or (folder / "cgroup.subtree_control").exists():
            return folder if os.access(folder, os.W_OK) else None
    return None


@pytest.mark.slow  # starts a grader
def test_a_submission_that_fills_a_768_mib_container_is_told_it_ran_out_of_memory(tmp_path):
    parent = own_memory_group()
    if parent is None:
        pytest.skip("needs root and a writable memory cgroup")
    group = parent / f"autograder-test-{uuid.uuid4().hex[:8]}"
    try:
        group.mkdir()
    except OSError as error:
        pytest.skip(f"cannot make a memory cgroup here: {error}")
    try:
        limit_file = group / ("memory.limit_in_bytes" if (group / "memory.limit_in_bytes").exists() else "memory.max")
        limit_file.write_text(str(768 * 2**20))
        submission = ROOT / "tests" / "submissions" / "hostile" / "resources_td_loss_memory_gradual.py"

        def join_group() -> None:
            (group / "cgroup.procs").write_text(str(os.getpid()))

        done = subprocess.run([sys.executable, "-m", "autograder", "grade", str(submission), "--assignment",
                               "custom_gradients", "--seed", "3", "--format", "json", "--jobs", "1"], cwd=ROOT,
                              env=quiet_env(AUTOGRADER_CACHE="off"), capture_output=True, text=True, timeout=900,
                              preexec_fn=join_group)
        assert done.returncode == 0, done.stderr[-3000:]
        [result] = json.loads(done.stdout)
        exercises = {e["id"]: e for e in result["exercises"]}
        td_loss = exercises["td_loss"]
        assert td_loss["score"] == 0 and "out-of-memory killer" in td_loss["feedback"], td_loss["feedback"]
        assert "768 MiB" in td_loss["feedback"]
        assert "SIGKILL" not in td_loss["feedback"]
        # The grader, its fork server and the next children lived on: the four correct exercises pass.
        assert all(exercises[name]["status"] == "passed" for name in
                   ("log1pexp", "straight_through_round", "clip_gradient_norm", "checkpointed"))
    finally:
        for _ in range(50):
            try:
                if (group / "memory.force_empty").exists():  # v1 keeps a group with charged page cache busy
                    (group / "memory.force_empty").write_text("0")
                group.rmdir()
                break
            except OSError:  # its last process is still leaving
                time.sleep(0.1)
