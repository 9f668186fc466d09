"""The grader as another user, or as a root that may not make namespaces: what holds where (a laptop, a
JupyterHub, a cluster; a container started with Docker's default capabilities).

The suite runs as root (as CI and Gradescope do); these tests drop to a random unprivileged uid with
`setpriv` and run the real grader as that user, over hostile files beside honest ones: the children then
get a user namespace of their own (PID, mounts, network) and Landlock where the kernel allows them, and the
grader keeps its cache only because no child can reach it. A second test contains a child with Landlock
alone (as where user namespaces are refused: a container's seccomp profile, Ubuntu's AppArmor rule) and
checks what it can still read, write and signal. A third runs the grader as root without CAP_SYS_ADMIN
(as in a container with Docker's default capabilities): no namespace, but a uid of its own and Landlock.
"""
from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import textwrap

import pytest

from autograder.course import assignment_by_id
from helpers import (HOSTILE, ROOT, SECRET_VARIABLE, GraderRun, by_file, copy_submissions, entries_verify, exercise,
                     grade_folder, interpreter_for, new_run_folder, under_load)

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"),
                                 reason="becoming another user needs root and setpriv")]

ASSIGNMENT = "custom_gradients"
CASE = min(under_load(5), 20)  # seconds: 5 on a quiet machine, scaled by the load (20: every case's own)
LIMITS = ("--seed", "5", "--case-time-limit", str(CASE), "--cell-time-limit", str(CASE), "--time-limit", str(12 * CASE))
UID = 3_000_000 + random.randrange(1_000_000)  # far from the machine's users and from the sandbox uids
HONEST = ("honest_a.py", "honest_b.py", "honest_c.ipynb")
# Attacks whose td_loss returns the right answer only if they got what they were after (or did harm).
ATTACKS = ("steal_td_loss_import_mistakes.py", "steal_td_loss_read_checkout.py", "steal_td_loss_cache.py",
           "leak_td_loss_environ.py", "leak_td_loss_classmates.py", "escape_td_loss_fork_server.py",
           "escape_td_loss_setsid_survivor.py", "escape_td_loss_fork_chain.py", "escape_td_loss_host_writes.py",
           "escape_td_loss_scratch_memory.py", "grader_td_loss_kill_parent.py", "grader_td_loss_kill_all.py",
           "pipe_td_loss_deep_nesting.py", "loops_td_loss_rearm_deadline.py", "resources_td_loss_sleepers.py")


def _run(prefix: str, names, *extra: str, cache=None) -> tuple[GraderRun, object]:
    base, token = new_run_folder(prefix)
    copy_submissions(list(names), base / "submissions", token)
    run = grade_folder(base / "submissions", base, token, "--assignment", ASSIGNMENT, *LIMITS, *extra, uid=UID,
                       cache=cache)
    return run, base


@pytest.fixture(scope="module")
def hostile():
    run, base = _run("hostile-user", [*HONEST, *ATTACKS])
    print(f"\nhostile files graded as uid {UID} in {run.seconds:.1f} s")
    yield run
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def alone():
    run, base = _run("honest-user", HONEST)
    yield run
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def reused(hostile):
    run, base = _run("honest-user-reused", HONEST, "--reuse-results", cache=hostile.cache)
    yield run
    shutil.rmtree(base, ignore_errors=True)


def results(run: GraderRun) -> dict[str, dict]:
    assert run.results is not None and run.returncode == 0, run.describe()
    return by_file(run.results)


def test_the_grader_as_another_user_survives_and_keeps_its_cache(hostile):
    assert hostile.returncode == 0, hostile.describe()
    # Landlock or a user namespace keeps the cache out of every child's reach: it is used, not refused.
    assert b"the reference cache and the kept grades are off" not in hostile.stderr, hostile.describe()
    assert list(hostile.cache.glob("reference-*.json")) and entries_verify(hostile.cache) == []


@pytest.mark.parametrize("name", HONEST)
def test_honest_files_get_the_same_json_among_attacks_alone_and_from_the_kept_grades(hostile, alone, reused, name):
    among, by_itself, again = results(hostile)[name], results(alone)[name], results(reused)[name]
    assert by_itself["score"] == assignment_by_id(ASSIGNMENT).max_score
    for key in ("student", "assignment", "score", "max_score", "exercises"):
        assert among[key] == by_itself[key] == again[key], key


@pytest.mark.parametrize("name", ATTACKS)
def test_no_attack_earns_a_point_where_the_grader_is_another_user(hostile, name):
    result = results(hostile)[name]
    item = exercise(result, "td_loss")
    assert item["status"] != "passed" and item["score"] == 0, f"{name}: {item['status']}\n{item['feedback']}"
    # every other exercise the file defines passes (the attack files predate safe_norm: missing is their own text)
    others = [e for e in result["exercises"] if e["id"] != "td_loss" and e["status"] not in ("passed", "missing")]
    assert not others, [(e["id"], e["status"], e["feedback"][:300]) for e in others]


def test_nothing_of_the_run_outlives_it_whoever_the_user(hostile):
    # Every process of the uid (the grader's own user here), the survivors in sessions of their own, the chain.
    assert not hostile.leaked, hostile.leaked[:10]
    assert not hostile.files_left and not hostile.ipc_left, (hostile.files_left, hostile.ipc_left)


def test_no_child_saw_the_graders_environment(hostile):
    secret = f"secret-{hostile.token}"
    assert all(secret not in e["feedback"] for r in hostile.results for e in r["exercises"])


LANDLOCK_ONLY = textwrap.dedent('''
    import os, sys, json
    import autograder.run.child  # what a child holds, TensorFlow included
    from autograder.run import isolation, landlock, namespaces
    from autograder.run.isolation import Containment, contain
    namespaces.enter = lambda network: {"user": False, "mounts": False, "pid": False, "network": False}
    solution, workdir, parent = sys.argv[1], sys.argv[2], os.getppid()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        applied = contain(workdir, Containment(private_files=True))
        seen = {"applied": applied}
        def attempt(name, action):
            try:
                action()
                seen[name] = "allowed"
            except BaseException as error:
                seen[name] = type(error).__name__
        attempt("read the solution", lambda: open(solution).read(10))
        attempt("list the checkout", lambda: os.listdir(os.path.dirname(os.path.dirname(solution))))
        attempt("import a mistake model", lambda: __import__("autograder.course.higher_order.mistakes"))
        attempt("write /tmp", lambda: open(f"/tmp/landlock-{os.getpid()}", "w").write("x"))
        attempt("write its folder", lambda: open(os.path.join(workdir, "x"), "w").write("x"))
        attempt("read numpy", lambda: open(os.path.join(os.path.dirname(__import__("numpy").__file__),
                                                        "__init__.py")).read(10))
        attempt("signal the parent", lambda: os.kill(parent, 0))
        attempt("read the parent's environment", lambda: open(f"/proc/{parent}/environ").read(10))
        os.write(write, json.dumps(seen).encode())
        os._exit(0)
    os.close(write)
    print(os.read(read, 65536).decode())
    os.waitpid(pid, 0)
''')


def test_landlock_alone_keeps_a_child_to_the_system_python_and_its_folder():
    """Where no user namespace is allowed, Landlock alone: the child reads the system and Python, writes its
    own folder only, cannot signal or read the grader (ABI 6+), and a child told that the grader relies on
    private files runs only if it got them."""
    import json

    from autograder.run import landlock

    if landlock.abi() < 1:
        pytest.skip("this kernel has no Landlock")
    found = interpreter_for(UID)
    if found is None:
        pytest.skip("no Python on this machine that another user may run with this environment's packages")
    command, extra = found
    tmp_path, _ = new_run_folder("landlock")  # not pytest's: it lies below a folder only root may enter
    workdir = tmp_path / "work"
    workdir.mkdir()
    os.chown(tmp_path, UID, UID)
    os.chown(workdir, UID, UID)
    script = tmp_path / "landlock_only.py"
    script.write_text(LANDLOCK_ONLY)
    env = {"PATH": os.environ["PATH"], "TF_CPP_MIN_LOG_LEVEL": "3", "HOME": str(workdir), SECRET_VARIABLE: "x",
           "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), extra.get("PYTHONPATH", "")) if p)}
    solution = ROOT / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    done = subprocess.run(["setpriv", f"--reuid={UID}", f"--regid={UID}", "--clear-groups", *command, str(script),
                           str(solution), str(workdir)], capture_output=True, text=True, env=env, timeout=300,
                          cwd=tmp_path)
    shutil.rmtree(tmp_path, ignore_errors=True)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert any(m.startswith("Landlock") for m in seen["applied"]), seen
    assert seen["read numpy"] == seen["write its folder"] == "allowed", seen
    for denied in ("read the solution", "list the checkout", "write /tmp"):
        assert seen[denied] == "PermissionError", (denied, seen)
    assert seen["import a mistake model"] in ("ModuleNotFoundError", "PermissionError", "ImportError"), seen
    assert seen["read the parent's environment"] == "PermissionError", seen
    if landlock.abi() >= 6:
        assert seen["signal the parent"] == "PermissionError", seen
    assert sys.version_info >= (3, 10)


CONTAINER_FILES = ("honest_a.py", "steal_td_loss_import_mistakes.py", "steal_td_loss_read_checkout.py",
                   "leak_td_loss_environ.py", "escape_td_loss_setsid_survivor.py", "escape_td_loss_fork_chain.py",
                   "escape_td_loss_fork_server.py", "grader_td_loss_kill_parent.py")


def test_a_root_without_cap_sys_admin_still_contains_every_attack():
    """Docker's default capabilities: root with CAP_SETUID but no CAP_SYS_ADMIN. The children make no
    namespace, run as a uid of their own under Landlock; what they start is killed by that uid."""
    from autograder.run import landlock

    if landlock.abi() < 1:
        pytest.skip("without Landlock (or CAP_SYS_ADMIN) a child sees the machine's world-readable files")
    base, token = new_run_folder("no-sys-admin")
    try:
        copy_submissions(list(CONTAINER_FILES), base / "submissions", token)
        run = grade_folder(base / "submissions", base, token, "--assignment", ASSIGNMENT, *LIMITS,
                           wrapper=("setpriv", "--bounding-set=-sys_admin"), open_python=True)
        found = results(run)
        assert found["honest_a.py"]["score"] == assignment_by_id(ASSIGNMENT).max_score, found["honest_a.py"]
        for name in CONTAINER_FILES[1:]:
            item = exercise(found[name], "td_loss")
            assert item["status"] != "passed", (name, item["feedback"])
        assert not run.leaked and not run.files_left, (run.leaked[:5], run.files_left)
        assert b"the reference cache and the kept grades are off" not in run.stderr
    finally:
        shutil.rmtree(base, ignore_errors=True)
