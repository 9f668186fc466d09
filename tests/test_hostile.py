"""Hostile and broken submissions: the grader contains every attack and grades its neighbours as if alone.

One module-scoped fixture runs the real CLI once over tests/submissions/hostile/ (hostile files with
honest ones mixed in, graded two at a time), a second grades the honest files alone in a clean run;
the tests are small assertions on what both left behind: the results file, the grader's own output,
its working and output folders, the processes and the huge file a submission may leave running or lying.

Every attack that touches other processes or their folders is guarded: it acts only on processes that
carry the random token this module gives the grader it starts (HOSTILE_SUITE_TOKEN in its environment,
and the name of its output folder on its command line), so a run can never reach anything else on a
shared machine. Whatever a run leaves behind (processes, files) is found by that token and removed by
the fixture, by pid and by path.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from autograder.course import assignment_by_id
from autograder.model.results import STATUSES
from helpers import ROOT, by_file, exercise, quiet_env

# Private mounts (solutions and classmates hidden) and a uid per child need root, as in CI and Gradescope;
# run as another user, the grader applies only the resource limits and these promises do not all hold.
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(os.geteuid() != 0, reason="full containment needs a grader running as root")]

HOSTILE = ROOT / "tests" / "submissions" / "hostile"
ASSIGNMENT = "custom_gradients"
EXERCISES = ("log1pexp", "straight_through_round", "clip_gradient_norm", "td_loss", "checkpointed")
OTHERS = tuple(e for e in EXERCISES if e != "td_loss")
LIMITS = ("--seed", "5", "--case-time-limit", "5", "--cell-time-limit", "5", "--time-limit", "60")
RUN_TIMEOUT = 300  # seconds; the grader should need well under half of it
GRACE_SECONDS = 5  # after the grader exits, before what is left of its run counts as leaked
FAKE = "FAKE-RESULT-7f3a"  # what the fake-result attacks write
MiB = 2**20

# Fully correct: 10/10, and exactly the JSON of a clean run without hostile neighbours.
HONEST = ("honest_a.py", "honest_b.py", "honest_c.ipynb", "broken_bom.py", "broken_latin1.py")


@dataclass(frozen=True)
class Attack:
    attacked: tuple[str, ...]  # none of these may pass, each scores 0
    statuses: frozenset[str]  # the statuses an attacked exercise may have
    words: tuple[str, ...] = ()  # an attacked exercise's feedback holds one of these
    passing: tuple[str, ...] = ()  # these must still pass, every case


NOT_EARNED = frozenset({"not-implemented", "failed", "error", "missing"})
WRONG = frozenset({"failed", "error"})
STOPPED = frozenset({"failed", "error", "timeout"})

ATTACKS: dict[str, Attack] = {
    # 1. loops
    "loops_import_while_true.py": Attack(EXERCISES, frozenset({"missing", "error", "timeout"}),
                                         ("did not finish within 5 s", "timeout after 5 s")),
    "loops_import_while_true.ipynb": Attack((), frozenset(), passing=EXERCISES),
    "loops_td_loss_while_true.py": Attack(("td_loss",), frozenset({"timeout"}), ("timeout after 5 s in td_loss",),
                                          OTHERS),
    "loops_td_loss_deep_recursion.py": Attack(("td_loss",), frozenset({"error"}), ("killed by SIGSEGV",), OTHERS),
    "loops_td_loss_recursion.py": Attack(("td_loss",), frozenset({"error"}), ("RecursionError",), OTHERS),
    # 2. exits
    "exits_import_sys_exit.py": Attack(("clip_gradient_norm", "td_loss", "checkpointed"),
                                       frozenset({"missing", "error"}), ("SystemExit",),
                                       ("log1pexp", "straight_through_round")),
    "exits_import_os_exit.py": Attack(EXERCISES, frozenset({"missing", "error"}),
                                      ("the process exited with code 0 before grading finished",)),
    "exits_td_loss_sys_exit.py": Attack(("td_loss",), frozenset({"error"}), ("SystemExit",), OTHERS),
    "exits_td_loss_os_exit.py": Attack(("td_loss",), frozenset({"error"}),
                                       ("the process exited with code 0 before grading finished",), OTHERS),
    "exits_td_loss_abort.py": Attack(("td_loss",), frozenset({"error"}), ("killed by SIGABRT",), OTHERS),
    "exits_td_loss_segfault.py": Attack(("td_loss",), frozenset({"error"}), ("killed by SIGSEGV",), OTHERS),
    "exits_td_loss_base_exception.py": Attack(("td_loss",), frozenset({"error"}), ("Boom",), OTHERS),
    "exits_td_loss_keyboard_interrupt.py": Attack(("td_loss",), frozenset({"error"}), ("KeyboardInterrupt",), OTHERS),
    "exits_import_close_stdio.py": Attack((), frozenset(), passing=EXERCISES),
    "exits_import_close_fds.py": Attack((), frozenset(), passing=EXERCISES),
    "exits_td_loss_closerange.py": Attack(("td_loss",), frozenset({"error", "timeout"}),
                                          ("before grading finished", "killed by", "timeout after 5 s in td_loss"),
                                          OTHERS),
    "exits_import_segfault.ipynb": Attack((), frozenset(), passing=EXERCISES),
    # 3. resources
    "resources_import_memory_bomb.py": Attack(("clip_gradient_norm", "td_loss", "checkpointed"),
                                              frozenset({"missing", "error"}), ("MemoryError", "memory limit of"),
                                              ("log1pexp", "straight_through_round")),
    # Touching 100 MB at a time, under a loaded machine, can reach the 5 s case limit before the 2 GiB one:
    # either way the bomb is stopped with a clear message.
    "resources_td_loss_memory_gradual.py": Attack(("td_loss",), frozenset({"error", "timeout"}),
                                                  ("memory limit of", "timeout after 5 s in td_loss"), OTHERS),
    "resources_import_output_flood.ipynb": Attack((), frozenset(), passing=EXERCISES),
    "resources_td_loss_huge_file.py": Attack(("td_loss",), STOPPED, passing=OTHERS),
    "resources_td_loss_fork_bomb.py": Attack(("td_loss",), STOPPED, passing=OTHERS),
    "resources_td_loss_sleepers.py": Attack(("td_loss",), STOPPED, passing=OTHERS),
    "resources_td_loss_threads.py": Attack(("td_loss",), STOPPED, passing=OTHERS),
    # 4. broken files
    "broken_invalid_json.ipynb": Attack(EXERCISES, frozenset({"error"}), ("notebook is not valid JSON: line",)),
    "broken_empty.ipynb": Attack(EXERCISES, frozenset({"error"}), ("empty",)),
    "broken_empty.py": Attack(EXERCISES, frozenset({"error"}), ("empty",)),
    "broken_binary.py": Attack(EXERCISES, frozenset({"error"}), ("could not be read",)),
    "broken_markdown_only.ipynb": Attack(EXERCISES, frozenset({"error"}), ("no code cells",)),
    "broken_syntax_everywhere.ipynb": Attack(EXERCISES, frozenset({"missing", "error"}), ("SyntaxError",)),
    # 5. tampering: wrong numbers stay wrong whatever the child patches or returns
    "tamper_import_patch_everything.py": Attack(EXERCISES, WRONG),
    "tamper_td_loss_patch_numpy.py": Attack(("td_loss",), WRONG, passing=OTHERS),
    "tamper_import_fake_stdout.py": Attack(EXERCISES, frozenset({"not-implemented"})),
    "tamper_lying_objects.py": Attack(EXERCISES, WRONG),
    # 6. attacks on the grader
    "grader_td_loss_kill_parent.py": Attack(("td_loss",), STOPPED, passing=OTHERS),
    "grader_td_loss_kill_all.py": Attack(("td_loss",), STOPPED, passing=OTHERS),
    "grader_import_steal_solutions.py": Attack(EXERCISES, NOT_EARNED),
    "grader_td_loss_steal_solution.py": Attack(("td_loss",), NOT_EARNED, passing=OTHERS),
    "grader_import_copy_other_submission.py": Attack(EXERCISES, NOT_EARNED),
    "grader_import_write_results.py": Attack(EXERCISES, frozenset({"not-implemented"})),
}


# --------------------------------------------------------------------------- running the grader

@dataclass
class Run:
    """What one grader run left behind."""

    returncode: int | None  # None: still running after RUN_TIMEOUT, killed by the fixture
    seconds: float
    stdout: bytes
    stderr: bytes
    results: list | None
    problem: str  # why there are no results
    cwd: Path  # the grader's working directory
    output: Path  # its --output file
    leaked: list[str] = field(default_factory=list)  # processes of the run alive after the grader ended
    files_left: list[tuple[str, int]] = field(default_factory=list)  # (path, bytes) its submissions wrote, still there

    def describe(self) -> str:
        tail = self.stderr[-3000:].decode(errors="replace")
        return f"grader exit code {self.returncode} after {self.seconds:.0f} s; {self.problem}\nstderr tail:\n{tail}"


def _read(path: Path) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return b""


def _processes_of(token: str, base: Path) -> list[tuple[int, str]]:
    """Processes a run started: they carry its token (environment, or name) or work below its folder."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        environ = _read(Path(f"/proc/{name}/environ")).split(b"\0")
        command = _read(Path(f"/proc/{name}/cmdline")).replace(b"\0", b" ").decode(errors="replace").strip()
        try:
            cwd = os.readlink(f"/proc/{name}/cwd")
        except OSError:
            cwd = ""
        if f"HOSTILE_SUITE_TOKEN={token}".encode() in environ or token in command or cwd.startswith(str(base)):
            found.append((int(name), command[:160]))
    return found


def _kill(processes: list[tuple[int, str]]) -> None:
    for pid, _ in processes:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def _files_of(token: str) -> list[Path]:
    """Files a run's submissions left in the temporary folders: named after its token, or starting with it.

    The huge-file attack names its file after the token; the output flood prints it first, so the
    child's captured output holds it. Two levels deep: a child's working directory and what is in it.
    """
    found = set()
    for root in {Path(tempfile.gettempdir()), Path("/tmp"), Path("/var/tmp"), Path("/dev/shm")}:
        try:
            level1 = list(root.iterdir())
            level2 = [p for d in level1 if d.is_dir() and not d.is_symlink() for p in d.iterdir()]
        except OSError:
            level2 = []
        for path in level1 + level2:
            try:
                if path.is_file() and not path.is_symlink() and (token in path.name or token.encode() in _head(path)):
                    found.add(path)
            except OSError:
                continue
    return sorted(found)


def _head(path: Path) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(4096)


def grade_folder(folder: Path | None, prefix: str) -> tuple[Run, Path]:
    """Run `autograder grade FOLDER` for real, in its own session, working directory and output folder.

    Everything lives below a fresh folder of the system's temporary directory, named after a random
    token that the grader also gets in its environment (HOSTILE_SUITE_TOKEN): the guarded attacks touch
    only processes that carry it, and the fixture finds what a run left behind by it. Not pytest's
    tmp_path, whose name carries no token and which lies below a 0700 folder that a child running as
    another user cannot traverse. No TMPDIR of our own either: the grader's default is what is tested.
    ``folder`` None: the honest files, copied to a folder of their own.
    """
    token = uuid.uuid4().hex
    base = Path(tempfile.mkdtemp(prefix=f"autograder-{prefix}-{token}-"))
    base.chmod(0o755)
    if folder is None:
        folder = base / "submissions"
        folder.mkdir()
        for name in HONEST:
            shutil.copy2(HOSTILE / name, folder / name)
    cwd, out = base / "cwd", base / "out"
    cwd.mkdir()
    out.mkdir()
    output = out / "results.json"
    command = [sys.executable, "-m", "autograder", "grade", str(folder), "--assignment", ASSIGNMENT,
               "--format", "json", *LIMITS, "--output", str(output)]
    started = time.monotonic()
    # Files, not pipes: a process that escapes the grader and keeps a pipe open must not hang the test.
    with open(base / "stdout", "wb") as stdout, open(base / "stderr", "wb") as stderr:
        process = subprocess.Popen(command, cwd=cwd, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr,
                                   env=quiet_env(HOSTILE_SUITE_TOKEN=token), start_new_session=True)
        try:
            returncode = process.wait(RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            returncode = None
    seconds = time.monotonic() - started
    deadline = time.monotonic() + GRACE_SECONDS  # what the grader ended, and its fork server, have time to exit
    while _processes_of(token, base) and time.monotonic() < deadline:
        time.sleep(0.25)
    leaked = _processes_of(token, base)
    _kill(leaked)
    left = [(path, path.stat().st_size) for path in _files_of(token) if not path.is_relative_to(base)]
    for path, _ in left:  # a 2 GB file must not outlive the test either; nor the folder the run left it in
        path.unlink(missing_ok=True)
        if path.parent.name.startswith(("autograder-", "submission-")):
            try:
                path.parent.rmdir()
            except OSError:
                pass
    results, problem = None, ""
    try:
        results = json.loads(output.read_text())
    except (OSError, ValueError) as error:
        problem = f"no results file: {error}"
    run = Run(returncode, seconds, _read(base / "stdout"), _read(base / "stderr"), results, problem, cwd, output,
              [f"{pid} {command}" for pid, command in leaked], [(str(path), size) for path, size in left])
    return run, base


@pytest.fixture(scope="module")
def hostile() -> Run:
    run, base = grade_folder(HOSTILE, "hostile")
    print(f"\nhostile folder graded in {run.seconds:.1f} s (exit code {run.returncode})")
    yield run
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def alone() -> Run:
    run, base = grade_folder(None, "honest-alone")
    print(f"\nhonest files graded alone in {run.seconds:.1f} s (exit code {run.returncode})")
    yield run
    shutil.rmtree(base, ignore_errors=True)


def results_of(run: Run) -> dict[str, dict]:
    assert run.results is not None, run.describe()
    return by_file(run.results)


# --------------------------------------------------------------------------- the folder itself

def test_every_file_of_the_folder_has_an_expectation():
    files = {p.name for p in HOSTILE.iterdir() if p.suffix in (".py", ".ipynb")}
    assert files == set(HONEST) | set(ATTACKS)
    assert not set(HONEST) & set(ATTACKS)


# --------------------------------------------------------------------------- the grader survives

def test_grader_survives_and_exits_zero(hostile):
    assert hostile.returncode == 0, hostile.describe()


def test_results_file_is_the_graders_contract_json_with_one_object_per_file(hostile):
    results = hostile.results
    assert isinstance(results, list), hostile.describe()
    names = sorted(p.name for p in HOSTILE.iterdir() if p.suffix in (".py", ".ipynb"))
    assert [Path(r["submission"]).name for r in results] == names  # every file, once, in the order found
    assignment = assignment_by_id(ASSIGNMENT)
    for result in results:
        assert set(result) == {"submission", "student", "assignment", "score", "max_score", "exercises"}
        assert result["student"] == Path(result["submission"]).stem
        assert (result["assignment"], result["max_score"]) == (ASSIGNMENT, 10.0)
        assert [e["id"] for e in result["exercises"]] == [e.id for e in assignment.exercises]
        assert result["score"] == pytest.approx(sum(e["score"] for e in result["exercises"]))
        for item in result["exercises"]:
            assert set(item) == {"id", "score", "max_score", "status", "pitfalls", "feedback"}
            assert item["status"] in STATUSES
            assert 0 <= item["score"] <= item["max_score"] == 2.0
            assert (item["status"] == "passed") == (item["score"] == item["max_score"])
            assert isinstance(item["feedback"], str) and item["feedback"].strip()
            assert FAKE not in item["feedback"]


def test_student_output_never_reaches_the_graders_own(hostile):
    # With --output, the grader prints nothing on stdout; its stderr is for its own short messages.
    assert hostile.stdout == b"", hostile.stdout[:500]
    assert len(hostile.stderr) < 64 * 1024, hostile.describe()
    for marker in (FAKE.encode(), b'{"score": 10}', b"FLOODFLOOD"):
        assert marker not in hostile.stderr


# --------------------------------------------------------------------------- honest neighbours

@pytest.mark.parametrize("name", HONEST)
def test_honest_submission_scores_full_marks(hostile, name):
    result = results_of(hostile)[name]
    assert result["score"] == result["max_score"] == 10.0, json.dumps(result, indent=1)
    assert all(e["status"] == "passed" and not e["pitfalls"] for e in result["exercises"])


@pytest.mark.parametrize("name", HONEST)
def test_honest_submission_gets_the_same_json_as_in_a_clean_run(hostile, alone, name):
    among_attacks, by_itself = results_of(hostile)[name], results_of(alone)[name]
    assert by_itself["score"] == 10.0, "the clean run itself must give full marks"
    for key in ("student", "assignment", "score", "max_score", "exercises"):
        assert among_attacks[key] == by_itself[key], key


# --------------------------------------------------------------------------- each attack

@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_attacked_exercises_earn_nothing_and_say_why(hostile, name):
    attack = ATTACKS[name]
    result = results_of(hostile)[name]
    for exercise_id in attack.attacked:
        item = exercise(result, exercise_id)
        detail = f"{exercise_id}: {item['status']}, {item['score']}\n{item['feedback']}"
        assert item["status"] != "passed" and item["score"] == 0, detail
        assert item["status"] in attack.statuses, detail
        if attack.words:
            assert any(word in item["feedback"] for word in attack.words), f"expected one of {attack.words}\n{detail}"


@pytest.mark.parametrize("name", sorted(n for n, a in ATTACKS.items() if a.passing))
def test_exercises_outside_the_attack_still_pass(hostile, name):
    result = results_of(hostile)[name]
    failing = {e["id"]: f"{e['status']}: {e['feedback']}" for e in result["exercises"]
               if e["id"] in ATTACKS[name].passing and e["status"] != "passed"}
    assert not failing, failing


# --------------------------------------------------------------------------- what attacks leave behind

def test_no_process_started_by_a_submission_outlives_the_grader(hostile):
    # The fork bomb's children, the sleepers' `sleep 1000` in sessions of their own, any child left running.
    assert not hostile.leaked, f"{len(hostile.leaked)} processes left running, e.g.\n" + "\n".join(hostile.leaked[:10])


def test_no_huge_file_outlives_the_grader(hostile):
    # The huge-file attack writes 2 GB: a file-size limit, or a scratch space of its own, must stop it.
    assert not [(path, size) for path, size in hostile.files_left if size > 100 * MiB], hostile.files_left


def test_no_file_a_submission_wrote_outlives_the_grader(hostile):
    # Its huge file, its captured output (the flood's, 300 MB asked): gone with the child's working directory.
    assert not hostile.files_left, hostile.files_left


def test_students_cannot_write_into_the_graders_folders(hostile):
    assert sorted(p.name for p in hostile.output.parent.iterdir()) == ["results.json"]
    assert sorted(p.name for p in hostile.cwd.iterdir()) == []
    assert FAKE not in hostile.output.read_text()


@pytest.mark.parametrize("name", ["tamper_import_fake_stdout.py", "grader_import_write_results.py"])
def test_fake_results_are_not_taken_for_the_graders(hostile, name):
    result = results_of(hostile)[name]
    assert result["score"] == 0
    assert all(FAKE not in e["feedback"] for e in result["exercises"])
