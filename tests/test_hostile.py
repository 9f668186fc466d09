"""Hostile and broken submissions: the grader contains every attack and grades its neighbours as if alone.

One module-scoped fixture runs the real CLI once over a copy of tests/submissions/hostile/ (hostile files
with honest ones mixed in, graded two at a time), to which it adds what cannot live in git: file names
that are not UTF-8 or that hold ANSI escapes, newlines, rich markup or spreadsheet formulas (honest code,
full marks expected), links to a classmate and to the reference solution, a 600 MB notebook, one of 6,000
cells, a 16 MB line. A second grades the honest files alone in a clean run; a third grades them again with
the first run's cache and --reuse-results (a forged kept grade or a poisoned reference entry would show
there). The tests are small assertions on what the runs left behind: the results file, the grader's own
output, its working, output and cache folders, the processes, files and shared memory a submission may
leave on the machine; and every writer is run on the hostile results.

Every attack that touches other processes or their folders is guarded: it acts only on processes that
carry the random token this module gives the grader it starts (HOSTILE_SUITE_TOKEN in its environment,
the name of its output folder on its command line), and it learns the token from its own text, where the
fixture writes it when it copies the file: graded anywhere else, an attack is inert. Whatever a run leaves
behind is found by that token, or by the uids its grader gives its children, and removed by the fixture.
"""
from __future__ import annotations

import csv
import functools
import io
import json
import os
import re
import shutil
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pytest

from autograder.course import assignment_by_id
from autograder.judge.hidden import every_hidden_message
from autograder.load.reading import shown
from autograder.model.results import STATUSES, from_contract
from helpers import (HOSTILE, ROOT, SECRET_VARIABLE, GraderRun, by_file, copy_submissions, entries_verify, exercise,
                     grade_folder, new_run_folder, run_autograder, secret_forms, under_load)

# Private mounts (solutions and classmates hidden) and a uid per child need root, as in CI and Gradescope;
# run as another user, the grader applies only the resource limits and these promises do not all hold.
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(os.geteuid() != 0, reason="full containment needs a grader running as root")]

ASSIGNMENT = "custom_gradients"
EXERCISES = ("log1pexp", "straight_through_round", "clip_gradient_norm", "td_loss", "checkpointed")
OTHERS = tuple(e for e in EXERCISES if e != "td_loss")
SEED = 7419263805551902311  # the course's secret in this run (63 bits, as nbgrader_config.py makes one)


@functools.cache
def case_seconds() -> int:
    """The case and cell limit: 5 s on a quiet machine, scaled by the machine's load when the first run starts (the
    honest exercises, and the oracle's search, must finish within it; the loops must hit it). At most 20 s, every
    case's own limit: the option caps those, so a larger one would not be the limit the feedback names."""
    return min(under_load(5), 20)


def limits() -> tuple[str, ...]:
    case = str(case_seconds())
    return ("--seed", str(SEED), "--case-time-limit", case, "--cell-time-limit", case, "--time-limit",
            str(12 * case_seconds()))


def run_timeout() -> int:
    return 60 * case_seconds()  # the grader should need well under half of it


FAKE = "FAKE-RESULT-7f3a"  # what the fake-result attacks write
INJECTED = "INJECTED-LINE"  # what the injection attack tries to write as a line of its own
MiB = 2**20

# Fully correct: full marks, and exactly the JSON of a clean run without hostile neighbours.
HONEST = ("honest_a.py", "honest_b.py", "honest_c.ipynb", "broken_bom.py", "broken_latin1.py")


@dataclass(frozen=True)
class Attack:
    attacked: tuple[str, ...]  # none of these may pass, each scores 0
    statuses: frozenset[str]  # the statuses an attacked exercise may have
    words: tuple[str, ...] = ()  # an attacked exercise's feedback holds one of these
    passing: tuple[str, ...] = ()  # these must still pass, every case


# Honest code under names a writer must survive (relative path -> the honest file copied there): each must get
# exactly that file's grade. Two of one student ("x]"), so that the class table labels them by their paths,
# which hold rich's closing tag "[/x]".
ODD_NAMES = {
    os.fsdecode(b"caf\xe9_not_utf8.py"): "honest_a.py",  # on disk: not UTF-8; in the JSON: caf\xe9
    "a[/x].py": "honest_a.py", "b[/x].ipynb": "honest_c.ipynb",  # rich's MarkupError in the class table
    "markup_[blink][link=http---evil]styles.py": "honest_a.py",  # markup that does not fail, but styles
    "ansi_\x1b[2J\x1b[31m_newline\nINJECTED-LINE.py": "honest_a.py",  # a cleared terminal, a fake line
    "=HYPERLINK(\"http---x\")_formula.py": "honest_a.py", "@SUM(1+1)_formula.py": "honest_a.py",
    "+1_formula.py": "honest_a.py", "-1_formula.py": "honest_a.py", "\t=1_formula.py": "honest_a.py",
    "\r=1_formula.py": "honest_a.py",  # OWASP's CSV injection starts
}
# Generated beside them, with what each must get.
GENERATED = ("link_to_honest.py", "link_to_solution.ipynb", "huge_outputs.ipynb", "many_cells.ipynb",
             "long_line.py")

NOT_EARNED = frozenset({"not-implemented", "failed", "error", "missing"})
WRONG = frozenset({"failed", "error"})
STOPPED = frozenset({"failed", "error", "timeout"})

ATTACKS: dict[str, Attack] = {
    # 1. loops
    "loops_import_while_true.py": Attack(EXERCISES, frozenset({"missing", "error", "timeout"}),
                                         ("did not finish within {case} s", "timeout after {case} s")),
    "loops_import_while_true.ipynb": Attack((), frozenset(), passing=EXERCISES),
    "loops_td_loss_while_true.py": Attack(("td_loss",), frozenset({"timeout"}), ("timeout after {case} s in td_loss",),
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
                                          ("before grading finished", "killed by", "timeout after {case} s in td_loss"),
                                          OTHERS),
    "exits_import_segfault.ipynb": Attack((), frozenset(), passing=EXERCISES),
    # 3. resources
    "resources_import_memory_bomb.py": Attack(("clip_gradient_norm", "td_loss", "checkpointed"),
                                              frozenset({"missing", "error"}), ("MemoryError", "memory limit of"),
                                              ("log1pexp", "straight_through_round")),
    # Touching 100 MB at a time, under a loaded machine, can reach the case limit before the 2 GiB one:
    # either way the bomb is stopped with a clear message.
    "resources_td_loss_memory_gradual.py": Attack(("td_loss",), frozenset({"error", "timeout"}),
                                                  ("memory limit of", "timeout after {case} s in td_loss"), OTHERS),
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
    # --- round two (issue 13) ---
    # 7. full marks without the work: a correct implementation, the checkout, the cache
    "steal_td_loss_import_mistakes.py": Attack(("td_loss",), NOT_EARNED, ("no correct implementation",), OTHERS),
    "steal_td_loss_read_checkout.py": Attack(("td_loss",), NOT_EARNED, ("no checkout in reach",), OTHERS),
    "steal_td_loss_cache.py": Attack(("td_loss",), NOT_EARNED, ("no cache in reach",), OTHERS),
    # 8. stopping or slowing the class: the result pipe, the deadlines, reading the files
    "pipe_td_loss_deep_nesting.py": Attack(("td_loss",), frozenset({"error"}), ("broke the grader's protocol",), OTHERS),
    "pipe_td_loss_huge_int.py": Attack(("td_loss",), frozenset({"error"}), ("broke the grader's protocol",), OTHERS),
    "pipe_td_loss_bad_shape.py": Attack(("td_loss",), frozenset({"error"}), ("broke the grader's protocol",), OTHERS),
    "loops_td_loss_rearm_deadline.py": Attack(("td_loss",), frozenset({"error", "timeout"}),
                                              ("broke the grader's protocol", "timeout after {case} s"), OTHERS),
    "broken_metadata_not_object.ipynb": Attack((), frozenset(), passing=EXERCISES),
    "broken_grade_id_list.ipynb": Attack((), frozenset(), passing=EXERCISES),
    "broken_deep_json.ipynb": Attack(EXERCISES, frozenset({"error"}), ("nested too deeply",)),
    "broken_deep_expression.ipynb": Attack((), frozenset(), passing=EXERCISES),
    "link_to_honest.py": Attack(EXERCISES, frozenset({"error"}), ("symbolic link",)),
    "link_to_solution.ipynb": Attack(EXERCISES, frozenset({"error"}), ("symbolic link",)),
    "huge_outputs.ipynb": Attack(EXERCISES, frozenset({"error"}), ("the grader reads submissions up to 32 MiB",)),
    "many_cells.ipynb": Attack(EXERCISES, frozenset({"error"}), ("more than 5000 cells",)),
    "long_line.py": Attack(EXERCISES, frozenset({"missing", "error"}), ("characters of code",)),
    # 9. escaping containment
    "escape_td_loss_setsid_survivor.py": Attack(("td_loss",), WRONG, passing=OTHERS),
    "escape_td_loss_fork_chain.py": Attack(("td_loss",), STOPPED, passing=OTHERS),
    "escape_td_loss_fork_server.py": Attack(("td_loss",), NOT_EARNED, ("neither the fork server",), OTHERS),
    "escape_td_loss_scratch_memory.py": Attack(("td_loss",), frozenset({"error", "timeout"}),
                                               ("could write", "memory limit of"), OTHERS),
    "escape_td_loss_host_writes.py": Attack(("td_loss",), WRONG, passing=OTHERS),
    # 10. leaks
    "leak_td_loss_environ.py": Attack(("td_loss",), NOT_EARNED, ("no secret in reach",), OTHERS),
    "leak_td_loss_classmates.py": Attack(("td_loss",), NOT_EARNED, ("no classmate in reach",), OTHERS),
    # 11. output injection
    "inject_td_loss_exception_text.py": Attack(("td_loss",), frozenset({"error"}), passing=OTHERS),
    # --- round three (issue 22): the course's secret and the hidden cases (their own tests below)
    "leak_all_hidden_channels.py": Attack((), frozenset()),
    "leak_td_loss_memory_oracle.py": Attack((), frozenset(), passing=OTHERS),
    # --- round four (issue 32): what a hidden case shows is one of the fixed kinds (tests/test_round_four.py too)
    "leak_all_hidden_kinds.py": Attack(("log1pexp", "straight_through_round", "clip_gradient_norm", "checkpointed",
                                        "safe_norm"), frozenset({"failed", "error"})),
    "escape_td_loss_memory_files.py": Attack(("td_loss",), frozenset({"error", "timeout"}),
                                             ("memory limit of", "could hold", "timeout after 5 s"), OTHERS),
}


# --------------------------------------------------------------------------- running the grader

def shown_name(relative: str) -> str:
    """A file's name as the grader's JSON gives it (bytes that are not UTF-8 as \\xNN)."""
    return Path(shown(relative)).name


def place_odd_names(folder: Path) -> None:
    for relative, source in ODD_NAMES.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(HOSTILE / source, folder / relative)


def make_generated(folder: Path) -> None:
    """What cannot live in git: odd names of honest code, links, huge and endless notebooks."""
    honest = (HOSTILE / "honest_a.py").read_bytes()
    place_odd_names(folder)
    (folder / "link_to_honest.py").symlink_to(folder / "honest_a.py")
    (folder / "link_to_solution.ipynb").symlink_to(ROOT / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    with open(folder / "huge_outputs.ipynb", "wb") as huge:  # 600 MB of "saved outputs" (sparse: no disk)
        huge.write(b'{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5, "outputs": "')
        huge.truncate(600 * MiB)
    cells = [{"cell_type": "markdown", "metadata": {}, "source": [f"cell {n}"]} for n in range(6000)]
    (folder / "many_cells.ipynb").write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4,
                                                          "nbformat_minor": 5}))
    (folder / "long_line.py").write_bytes(b"import tensorflow as tf\nx = '" + b"a" * (16 * MiB) + b"'\n" + honest)


def hostile_folder(base: Path, token: str) -> Path:
    folder = base / "submissions"
    copy_submissions(sorted(p.name for p in HOSTILE.iterdir() if p.suffix in (".py", ".ipynb")), folder, token,
                     seed=SEED)
    make_generated(folder)
    return folder


@pytest.fixture(scope="module")
def hostile() -> GraderRun:
    base, token = new_run_folder("hostile")
    run = grade_folder(hostile_folder(base, token), base, token, "--assignment", ASSIGNMENT, *limits(),
                       timeout=run_timeout())
    print(f"\nhostile folder graded in {run.seconds:.1f} s (exit code {run.returncode})")
    yield run
    shutil.rmtree(base, ignore_errors=True)


def _alone(prefix: str, cache: Path | None = None, *extra: str) -> tuple[GraderRun, Path]:
    base, token = new_run_folder(prefix)
    folder = base / "submissions"
    copy_submissions(list(HONEST), folder, token)
    place_odd_names(folder)
    return grade_folder(folder, base, token, "--assignment", ASSIGNMENT, *limits(), *extra, cache=cache,
                        timeout=run_timeout()), base


@pytest.fixture(scope="module")
def alone() -> GraderRun:
    run, base = _alone("honest-alone")
    print(f"\nhonest files graded alone in {run.seconds:.1f} s (exit code {run.returncode})")
    yield run
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def reused(hostile) -> GraderRun:
    """The honest files again, with the hostile run's cache and its kept grades (--reuse-results)."""
    run, base = _alone("honest-reused", hostile.cache, "--reuse-results")
    yield run
    shutil.rmtree(base, ignore_errors=True)


def results_of(run: GraderRun) -> dict[str, dict]:
    assert run.results is not None, run.describe()
    return by_file(run.results)


def every_file(run: GraderRun) -> list[str]:
    folder = run.base / "submissions"
    return sorted(shown_name(str(p)) for p in folder.rglob("*") if p.suffix in (".py", ".ipynb"))


# --------------------------------------------------------------------------- the folder itself

def test_every_file_of_the_folder_has_an_expectation():
    files = {p.name for p in HOSTILE.iterdir() if p.suffix in (".py", ".ipynb")} | set(GENERATED)
    assert files == set(HONEST) | set(ATTACKS)
    assert not set(HONEST) & set(ATTACKS)


# --------------------------------------------------------------------------- the grader survives

def test_grader_survives_and_exits_one_naming_exactly_the_files_it_could_not_read(hostile):
    """Exit 1: the report is written, and the broken files (each with its result) are named on stderr."""
    assert hostile.returncode == 1, hostile.describe()
    said = {Path(line.split(" could not be graded: ")[0].removeprefix("autograder: error: ")).name
            for line in hostile.stderr.decode(errors="replace").splitlines() if " could not be graded: " in line}
    unreadable = {name for name, result in results_of(hostile).items()
                  if all("could not be read" in e["feedback"] for e in result["exercises"])}
    assert said == unreadable and "broken_invalid_json.ipynb" in said and not said & set(HONEST), (said, unreadable)


def test_results_file_is_the_graders_contract_json_with_one_object_per_file(hostile):
    results = hostile.results
    assert isinstance(results, list), hostile.describe()
    assert sorted(Path(r["submission"]).name for r in results) == every_file(hostile)  # every file, once
    assignment = assignment_by_id(ASSIGNMENT)
    for result in results:
        assert set(result) == {"submission", "student", "assignment", "score", "max_score", "exercises"}
        assert result["student"] == Path(result["submission"]).stem
        assert (result["assignment"], result["max_score"]) == (ASSIGNMENT, assignment.max_score)
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

ODD_SHOWN = {shown_name(relative): source for relative, source in ODD_NAMES.items()}


@pytest.mark.parametrize("name", [*HONEST, *ODD_SHOWN])
def test_honest_submission_scores_full_marks(hostile, name):
    result = results_of(hostile)[name]
    assert result["score"] == result["max_score"] == assignment_by_id(ASSIGNMENT).max_score, json.dumps(result, indent=1)
    assert all(e["status"] == "passed" and not e["pitfalls"] for e in result["exercises"])


@pytest.mark.parametrize("name", [*HONEST, *ODD_SHOWN])
def test_honest_submission_gets_the_same_json_as_in_a_clean_run(hostile, alone, reused, name):
    """Among attacks, alone, and alone again from the hostile run's cache and kept grades (--reuse-results):
    a poisoned reference entry or a forged kept grade would show in the third."""
    among_attacks, by_itself, again = results_of(hostile)[name], results_of(alone)[name], results_of(reused)[name]
    assert by_itself["score"] == assignment_by_id(ASSIGNMENT).max_score, "the clean run itself must give full marks"
    for key in ("student", "assignment", "score", "max_score", "exercises"):
        assert among_attacks[key] == by_itself[key] == again[key], key


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
        words = tuple(word.format(case=case_seconds()) for word in attack.words)
        if words:
            assert any(word in item["feedback"] for word in words), f"expected one of {words}\n{detail}"


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


def test_no_shared_memory_segment_outlives_the_grader(hostile):
    # The host-writes attack makes a System V segment keyed by the token (a private IPC namespace holds it).
    assert not hostile.ipc_left, hostile.ipc_left


# --------------------------------------------------------------------------- round two: what no attack reached

def test_no_child_saw_the_graders_environment(hostile):
    secret = f"secret-{hostile.token}"
    assert all(secret not in e["feedback"] for r in hostile.results for e in r["exercises"])
    assert secret.encode() not in hostile.stderr


def test_the_cache_holds_nothing_a_child_wrote_and_every_entry_verifies(hostile):
    """A child can neither read the cache (the steal attack would pass), nor forge a kept grade, nor rewrite
    an entry: what the folder holds is the grader's, each entry under its key."""
    files = [p.relative_to(hostile.cache).as_posix() for p in hostile.cache.rglob("*") if p.is_file()]
    assert [name for name in files if name.startswith("reference-")], "the run kept its reference outcomes"
    assert not [name for name in files if not re.fullmatch(r"key|reference-[0-9a-f]{64}\.json|durations\.json|"
                                                            r"results/result-[0-9a-f]{64}\.json", name)], files
    assert entries_verify(hostile.cache) == []  # nothing rewritten: each entry verifies under the folder's key
    assert oct(hostile.cache.stat().st_mode & 0o777) == "0o700"


def test_a_message_that_breaks_the_protocol_ends_its_task_not_the_run(hostile):
    for name in ("pipe_td_loss_deep_nesting.py", "pipe_td_loss_huge_int.py", "pipe_td_loss_bad_shape.py"):
        result = results_of(hostile)[name]
        assert exercise(result, "td_loss")["status"] == "error"
        assert exercise(result, "checkpointed")["status"] == "passed"  # the next exercise, in a new child


def test_a_resent_task_start_does_not_stretch_the_deadline(hostile):
    item = exercise(results_of(hostile)["loops_td_loss_rearm_deadline.py"], "td_loss")
    assert item["status"] != "passed", item["feedback"]


def test_the_whole_run_stays_quick(hostile):
    # 5 s per case, 60 s per submission (both scaled by the load), two at a time: a run the attacks could stretch
    # would need far more.
    assert hostile.seconds < run_timeout() / 2, hostile.describe()


# --------------------------------------------------------------------------- every writer, on the hostile results

def _raw_control(text: str) -> list[str]:
    return [repr(c) for c in set(text) if (ord(c) < 32 and c not in "\n\t") or 0x7f <= ord(c) < 0xa0
            or 0xd800 <= ord(c) < 0xe000 or c in "\u202e\u2066\u2067\u2068\u2069"]


@pytest.mark.parametrize("fmt", ["text", "csv", "junit", "json"])
def test_every_writer_survives_what_students_control(hostile, tmp_path, fmt):
    """The hostile results through `autograder merge` in every format: no traceback, no raw control
    character or escape, no line that a file name or an exception type wrote on its own, no formula."""
    output = tmp_path / f"merged.{fmt}"
    done = run_autograder("merge", str(hostile.output), "--format", fmt, "--output", str(output), timeout=120)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-3000:]
    text = output.read_text(encoding="utf-8")
    if fmt != "json":
        assert not _raw_control(text), _raw_control(text)
        assert not [line for line in text.splitlines() if line.lstrip("│ ").startswith(INJECTED)]
    if fmt == "csv":
        for row in csv.reader(io.StringIO(text)):
            assert not row[0].startswith(("=", "+", "-", "@", "\t", "\r")), row[0]
        assert any(row and row[0].startswith("'=HYPERLINK") for row in csv.reader(io.StringIO(text)))
    if fmt == "junit":
        ET.fromstring(text.encode("utf-8"))


def test_the_text_report_of_each_submission_survives_what_students_control(hostile):
    from autograder.report.text import class_table, submission_text

    results = [from_contract(r) for r in hostile.results]
    text = "\n".join(submission_text(r) for r in results) + class_table(results, seed=5)
    assert not _raw_control(text), _raw_control(text)
    assert not [line for line in text.splitlines() if line.lstrip("│ ").startswith(INJECTED)]
    assert "\\x1b[2J" in text and "[/x]" in text  # shown, escaped, not obeyed


def test_the_html_pages_survive_what_students_control(hostile, tmp_path):
    done = run_autograder("report", str(hostile.output), "--out", str(tmp_path / "report"), "--feedback-dir",
                          str(tmp_path / "feedback"), timeout=300)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-3000:]
    handed = list((tmp_path / "feedback").rglob("*.html"))  # what students may be handed
    pages = handed + [tmp_path / "report" / "index.html", tmp_path / "feedback-index.html"]
    assert len(handed) == len(hostile.results)
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert not _raw_control(text), (page, _raw_control(text))
        assert str(SEED) not in text or page not in handed


# --------------------------------------------------------------------------- round three: the course's secret

CHANNELS, ORACLE = "leak_all_hidden_channels.py", "leak_td_loss_memory_oracle.py"
# A hidden case's message (autograder/judge/hidden.py): one of the contract's fixed kinds, and whether a public
# case fails the same way; never a type, message, line, shape or limit of the student's code (round four).
GRADERS_WORDS = every_hidden_message()


def hidden_messages(feedback: str) -> list[str]:
    """Each line a hidden case's message holds in an exercise's feedback."""
    lines, found, inside = feedback.splitlines(), [], False
    for text in lines:
        if text.startswith("Hidden case "):
            inside = True
        elif inside and text.startswith("    "):
            found.append(text.strip())
        else:
            inside = False
    return found


def every_output(run: GraderRun, folder: Path) -> dict[str, str]:
    """Everything anyone sees of a run: its results file and stderr, and every writer's rendering of its results
    (the text report and class table, CSV, JUnit, Gradescope's results, the Markdown of Gradescope, the job
    summary and Classroom 50's release, the feedback pages)."""
    import datetime

    from autograder.report import classroom50, formats
    from autograder.report.feedback_pages import write_feedback_pages
    from autograder.report.markdown import submission_markdown
    from autograder.report.step_summary import step_summary
    from autograder.report.text import class_table, submission_text

    results = [from_contract(r) for r in run.results]
    moment = datetime.datetime(2026, 12, 1, tzinfo=datetime.timezone.utc)
    context = classroom50.RunnerContext.from_environ({})
    outputs = {"results.json": run.output.read_text(encoding="utf-8"),
               "stderr": run.stderr.decode("utf-8", "replace"),
               "text": "\n".join(submission_text(r) for r in results) + class_table(results),
               "csv": formats.to_csv(results), "junit": formats.to_junit(results),
               "gradescope": json.dumps([formats.gradescope_results(r) for r in results]),
               "markdown": "\n".join(submission_markdown(r) for r in results) + step_summary(results),
               "classroom50": "\n".join(classroom50.release_body(r, classroom50.classroom50_result(
                   r, context, moment, moment)) for r in results)}
    write_feedback_pages(results, folder / "pages")
    outputs.update({f"page {p.name}": p.read_text(encoding="utf-8") for p in (folder / "pages").rglob("*.html")})
    return outputs


def test_no_output_holds_the_seed_a_key_a_hidden_input_or_a_graders_folder(hostile, tmp_path):
    """Round three: whatever the channel attacks wrote, and whatever the oracle found, nothing anyone reads of
    the run holds the seed, an exercise's key, a random hidden input (as the attacks write them: hex of its
    bytes, its first value), or the solutions' or the cache's folder."""
    forms = secret_forms(ASSIGNMENT, SEED)
    forms.update({"the solutions folder": str(ROOT / "solutions"), "the cache folder": str(hostile.cache)})
    assert len([label for label in forms if label.endswith("bytes")]) >= 10, "the hidden cases draw random inputs"
    leaks = [(output, label) for output, text in every_output(hostile, tmp_path).items()
             for label, form in forms.items() if form in text]
    assert not leaks, leaks


def test_a_hidden_case_says_only_the_graders_words_whatever_the_code_wrote(hostile):
    """Exception type names and messages, shapes, dtypes, type names, values, forged results, unknown events,
    exit codes, files left for the next child: each hidden case's message is the grader's, and the public cases
    (run first) never met a hidden input."""
    result = results_of(hostile)[CHANNELS]
    everything = json.dumps(result)
    assert "LEAK:" not in everything and "PUBLICSAW" not in everything, everything[:3000]
    for item in result["exercises"]:
        if item["status"] == "missing":
            continue  # the channels file predates safe_norm
        messages = hidden_messages(item["feedback"])
        assert messages and item["status"] != "passed", (item["id"], item["feedback"])
        assert not [m for m in messages if m not in GRADERS_WORDS], (item["id"], messages)


def test_whatever_the_code_spells_in_how_it_fails_a_hidden_case_shows_one_of_the_fixed_kinds(hostile):
    """Round four: the kinds attack spells each hidden input in its exception's type, message, line and file
    name, shapes, dtypes, values, time and exit code; each hidden case says one of the fixed kinds."""
    result = results_of(hostile)["leak_all_hidden_kinds.py"]
    messages = [m for item in result["exercises"] for m in hidden_messages(item["feedback"])]
    assert len(messages) >= 3 and all(m in GRADERS_WORDS for m in messages), messages


def test_the_child_holds_no_secret_and_no_case_before_its_turn(hostile):
    """The oracle looked through its whole process on each hidden td_loss case (LookupError: it found its own
    case, so the search works, and nothing else); it passes only where it found the seed or a later case."""
    item = exercise(results_of(hostile)[ORACLE], "td_loss")
    messages = hidden_messages(item["feedback"])
    assert item["status"] != "passed" and len(messages) == 2, item["feedback"]
    assert all(m.startswith("an error (") for m in messages), (
        "out of memory: the oracle used up its 4.5 s of CPU time, or the case limit (scaled by the load) came first; "
        "wrong values: it "
        f"could not find the case it holds\n{item['feedback']}")


def test_a_moodle_gradebook_of_the_hostile_run_holds_no_formula_and_leaves_the_formula_row_out(hostile, tmp_path):
    """Round three (issue 22), item 4: the roster's identifier columns are students' own (an editable e-mail
    address): a row whose identifier a spreadsheet would run is left out with a note, every other cell is
    neutralised, and honest students get their points."""
    roster = tmp_path / "moodle.csv"
    roster.write_text("First name,Last name,Username,Email address,Quiz\n"
                      "Honest,A,honest_a,a@example.edu,\n"
                      '=HYPERLINK("http://x"),Eve,leak_all_hidden_channels,"=HYPERLINK(""http://x"")@example.com",\n',
                      encoding="utf-8")
    output = tmp_path / "moodle-import.csv"
    done = run_autograder("merge", str(hostile.output), "--format", "moodle", "--roster", str(roster), "--output",
                          str(output), timeout=120)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-3000:]
    rows = list(csv.reader(io.StringIO(output.read_text(encoding="utf-8"))))
    assert [row[2:] for row in rows[1:]] == [["honest_a", "a@example.edu", f"{assignment_by_id(ASSIGNMENT).max_score:g}"]], rows
    assert not [cell for row in rows for cell in row if cell.startswith(("=", "+", "-", "@", "\t", "\r"))], rows
    assert "left out of the file" in done.stderr and "Email address" in done.stderr
