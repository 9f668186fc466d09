"""Issue 32 (round four), each defence on its own, fast (no child runs unless marked slow).

1. A hidden case's feedback is one of the contract's fixed kinds: whatever a submission's code does on a hidden
   case (any exception type, message, line or file name; any shape, dtype or values; None; any exit), every
   writer the kit has renders one of at most eight things for it (the six kinds, not run, passed), the same for
   outcomes of one kind; under two seeds an attack's feedback is the same text.
2. Names students choose are text in every writer's format (a Markdown table's pipes, code spans included),
   and feedback folders map one-to-one to names, each the same whoever else is graded.
3. No page a student can be handed shows the seed or another student's score: the index is beside the
   folder of pages, the class report outside it, and no student's page links to either.
6. Memory no process's resident size shows (anonymous memory files, System V segments nobody maps, the
   scratch tmpfs) counts against the limit or is capped: a submission that fills them is stopped.
Classes 4 and 5 are tests/test_nbgrader_round_four.py's and tests/test_prairielearn.py's; tests/test_hostile.py
runs the attack files for real among honest neighbours (graded exactly as alone).
"""
from __future__ import annotations

import builtins
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from autograder.course import assignment_by_id
from autograder.judge.evaluate import evaluate_exercise
from autograder.judge.evidence import ExerciseEvidence
from autograder.judge.hidden import HIDDEN_KINDS, MEMORY_ERRORS, every_hidden_message
from autograder.load.cells import Cell, SubmissionSource
from autograder.model.course import Case
from autograder.model.outcomes import ErrorInfo, RunStatus, TaskOutcome, Value
from autograder.model.results import SubmissionResult
from autograder.commands import write_html
from autograder.model.results import CaseReport, ExerciseResult, Status
from autograder.report.feedback_pages import index_path, page_paths, write_feedback_pages
from autograder.report.page_folders import student_folder
from helpers import (HOSTILE, Elements, by_file, copy_submissions, every_rendering, exercise, grade_folder, grade_json,
                     new_run_folder)

# --------------------------------------------------------------------------- 1. hidden feedback: fixed kinds

JACOBIAN = assignment_by_id("jacobians").exercise("jacobian")
EXPECTED = np.arange(6.0).reshape(2, 3)
REFERENCE = TaskOutcome(RunStatus.OK, {"jacobian": Value(EXPECTED, "EagerTensor", "float32")})
CASES = [Case("public", "float32 Tensor x = [1, 2, 3], f(x) = A x", {}, public=True),
         Case("hidden", "float32 Tensor x of shape (3,), f(x) = A x", {})]
CODE = "\n".join(f"line_{n} = {n}" for n in range(1, 200)) + "\n"
SOURCE = SubmissionSource(Path("s.ipynb"), "notebook", cells=[Cell(n, CODE, CODE) for n in range(1, 9)])


def _raised(type_: str, message: str, file: str, line: int, contract: bool = False) -> TaskOutcome:
    return TaskOutcome(RunStatus.ERROR, error=ErrorInfo(type_, message, "builtins", contract,
                                                       ((file, line, "jacobian", "raise"),)))


def _returned(array, type_name: str = "EagerTensor", dtype: str = "float32") -> TaskOutcome:
    return TaskOutcome(RunStatus.OK, {"jacobian": Value(None if array is None else np.asarray(array, float),
                                                        type_name, dtype)})


BUILTIN_ERRORS = sorted(name for name, value in vars(builtins).items() if isinstance(value, type)
                        and issubclass(value, BaseException) and name not in MEMORY_ERRORS)
# What the student's code can choose on a hidden case, by the kind the grader must reduce it to.
ATTACKS: dict[str, list[TaskOutcome]] = {
    "error": [_raised(kind, f"{n * 7919}", file, n) for n, kind in enumerate(BUILTIN_ERRORS[:40], start=1)
              for file in ("<cell 3>", "<cell [3]>", "<submission>", f"<cell {n}>")]
    + [_raised("LEAK918273645Error", "x", "<cell 1>", 5), _raised("NotImplementedError", "", "<cell 2>", 7),
       TaskOutcome(RunStatus.CRASHED, message="the process exited with code 42 before grading finished"),
       TaskOutcome(RunStatus.CRASHED, message="killed by SIGSEGV")],
    "shape": [_returned(np.zeros(shape)) for shape in ((3,), (2,), (3, 2), (9, 1, 8), (1, 918273645 % 97))]
    + [_raised("ContractError", "the Jacobian is a str, expected a tf.Tensor", "<cell 1>", 3, contract=True),
       _raised("ContractError", "the Jacobian has shape (918273645,), expected (2, 3)", "", 0, contract=True)],
    "values": [_returned(EXPECTED + delta) for delta in (1.0, -918273645.0, np.nan, np.inf, 1e-1)],
    "none": [_returned(None, "NoneType", None)],
    "timeout": [TaskOutcome(RunStatus.TIMEOUT, message=f"timeout after {s} s in jacobian") for s in (5, 20, 918)],
    "memory": [TaskOutcome(RunStatus.MEMORY, message="memory limit of 2 GiB exceeded (918273645)"),
               _raised("MemoryError", "918273645", "<cell 4>", 18), _raised("ResourceExhaustedError", "OOM", "", 0)],
    "not-run": [TaskOutcome(RunStatus.NOT_RUN, message="not run: 918273645")],
    # right numbers under any type name or dtype the exercise does not check: passed, nothing to show
    "passed": [REFERENCE, _returned(EXPECTED, dtype="float64"), _returned(EXPECTED, "LEAK918273645", "LEAK")],
}
PUBLIC = {"public passes": REFERENCE, "public raises": _raised("ValueError", "public words", "<cell 3>", 2),
          "public wrong": _returned(EXPECTED + 1.0)}


def _result(public: TaskOutcome, hidden: TaskOutcome) -> SubmissionResult:
    evidence = ExerciseEvidence(JACOBIAN, CASES, [public, hidden], [REFERENCE, REFERENCE],
                                [[None, None] for _ in JACOBIAN.mistakes], None, list(JACOBIAN.params), [], SOURCE)
    return SubmissionResult("s.ipynb", "s", "jacobians", [evaluate_exercise(evidence)])


def test_every_code_choice_on_a_hidden_case_is_one_of_the_fixed_kinds():
    for public in PUBLIC.values():
        for kind, outcomes in ATTACKS.items():
            for outcome in outcomes:
                shown = [c for c in _result(public, outcome).exercises[0].cases if not c.public]
                if kind == "passed" or (kind == "not-run" and not shown):
                    assert not shown, (kind, shown)  # a 'not run' is shown only when nothing else is
                    continue
                (case,) = shown
                assert case.message in every_hidden_message(), (kind, case.message)
                assert case.message.startswith(HIDDEN_KINDS.get(kind, "not run")), (kind, case.message)


@pytest.mark.parametrize("public", sorted(PUBLIC))
def test_what_every_writer_reads_of_a_hidden_case_is_a_function_of_its_kind_alone(public):
    """The result every writer renders (the structure, not one writer's text) is the same for every outcome of
    one kind: eight results at most (the six kinds, not run, passed), whatever number, type or line the code
    chose. The count is the bits a hidden case can carry: log2(8) = 3."""
    by_kind = {kind: {repr(_result(PUBLIC[public], outcome)) for outcome in outcomes}
               for kind, outcomes in ATTACKS.items()}
    assert all(len(results) == 1 for results in by_kind.values()), {k: len(r) for k, r in by_kind.items()}
    assert len(set().union(*by_kind.values())) <= len(HIDDEN_KINDS) + 2
    everything = "".join(set().union(*by_kind.values()))
    assert "918273645" not in everything and "LEAK" not in everything


GRADED_AT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)")


@pytest.mark.slow  # imports every module of the kit (nbgrader's, Dask's) and draws the class report's plots
@pytest.mark.parametrize("public", ["public passes", "public raises"])
def test_every_writer_renders_a_hidden_case_as_one_of_the_fixed_kinds(public, tmp_path, monkeypatch):
    """Each writer the kit has (found by what it takes, however modules are named), on results that differ only
    in what the code did on one hidden case (two outcomes of each kind: they are one result, test above): one
    rendering per kind, none holding a number, type or line the code chose."""
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "summary.md"))
    renderings: dict[str, dict[str, set[str]]] = {}
    for kind, outcomes in ATTACKS.items():
        for outcome in (outcomes[0], outcomes[-1]):
            for writer, pieces in every_rendering(_result(PUBLIC[public], outcome), tmp_path / "out").items():
                text = GRADED_AT.sub("<when graded>", "\n".join(pieces))  # the clock's, not the code's
                renderings.setdefault(writer, {}).setdefault(kind, set()).add(text)
    assert len(renderings) >= 20, sorted(renderings)  # the JSON, text, Markdown, HTML, Gradescope, JUnit, ...
    for writer, by_kind in renderings.items():
        assert all(len(texts) == 1 for texts in by_kind.values()), (writer, {k: len(t) for k, t in by_kind.items()})
        everything = "".join(set().union(*by_kind.values()))
        assert "918273645" not in everything and "LEAK" not in everything, writer
        assert not [name for name in BUILTIN_ERRORS if f"{name}:" in everything or f"raised {name}" in everything
                    and name != "ValueError"], writer  # ValueError: the public case's own, quoted
    shown = {writer for writer, by_kind in renderings.items() if len(set().union(*by_kind.values())) > 1}
    assert len(shown) >= 15, "the writers show the failing hidden case (else this test checks nothing)"


def test_a_hidden_cases_message_points_at_the_public_case_that_fails_the_same_way():
    raised = ATTACKS["error"][0]
    with_twin = _result(PUBLIC["public raises"], raised).exercises[0]
    without = _result(PUBLIC["public wrong"], raised).exercises[0]
    assert [c.public for c in with_twin.cases] == [True, False]  # the public twin is shown above
    assert with_twin.cases[1].message.endswith(
        "the public case above fails the same way: its feedback shows the details")
    assert "no public case fails this way" in without.cases[1].message
    assert "public words" in with_twin.cases[0].message and "ValueError" in with_twin.cases[0].message


KINDS_ATTACK = HOSTILE / "leak_all_hidden_kinds.py"
FIXED_KIND = ("log1pexp", "straight_through_round", "clip_gradient_norm", "td_loss", "checkpointed")
HIDDEN_TITLE = re.compile(r"^Hidden case .* \(its values are not shown\):$", re.MULTILINE)


@pytest.mark.slow  # grades a submission for real, twice
def test_a_hidden_input_spelled_in_types_lines_shapes_values_times_and_exit_codes_never_reaches_the_feedback():
    """The attack spells 64 bits of each hidden case in everything it chooses about how it fails (its type,
    message, line and file name, a shape and dtype, gradient values, its time, an exit code, a refused
    structure). Under two seeds (two sets of hidden inputs) the feedback of each exercise that keeps one kind is
    the same text but for the hidden cases' own descriptions; where the code picks the kind itself (safe_norm),
    each hidden message is one of the fixed set."""
    runs = [grade_json(str(KINDS_ATTACK), "--assignment", "custom_gradients", "--seed", str(seed),
                       "--case-time-limit", "10")[0] for seed in (11, 12)]
    feedback = [{e["id"]: HIDDEN_TITLE.sub("Hidden case:", e["feedback"]) for e in run["exercises"]} for run in runs]
    for exercise_id in FIXED_KIND:
        assert feedback[0][exercise_id] == feedback[1][exercise_id], exercise_id
    assert len([e for e in FIXED_KIND if "Hidden case:" in feedback[0][e]]) >= 3, "hidden cases are shown"
    for run in runs:
        for item in run["exercises"]:
            lines = item["feedback"].splitlines()
            hidden = [lines[n + 1].strip() for n, text in enumerate(lines) if HIDDEN_TITLE.fullmatch(text)]
            assert all(message in every_hidden_message() for message in hidden), (item["id"], hidden)
    # What the code wrote shows only from public cases (their inputs are the same under both seeds).
    spelled = [set(re.findall(r"LEAK ?\d+", json.dumps(run))) for run in runs]
    assert spelled[0] == spelled[1] and spelled[0], spelled
    assert runs[0]["exercises"][3]["status"] == "partial"  # td_loss: right on its public case, exits on hidden ones


# --------------------------------------------------------------------------- 2. names are text, and unique

FORGED = "x` | **total 10 of 10** | <img src=//evil.example/b.png onerror=alert(1)> `y"
NAMES = [FORGED, "a|b", "<script>alert(2)</script>", "javascript:alert(3)", "]]><x/>", "=HYPERLINK(\"http://e\")",
         "[link](http://evil.example)", "# heading", "\x1b[2Jansi", "x", "_x", "X", ".x", "x--0123456789abcdef",
         "a b", "a_b", "ümlaut", "con", "index.html", "../../etc"]


def _named(name: str) -> SubmissionResult:
    cases = [CaseReport("c", f"case of {name}", True, f"raised ValueError: {name}")]
    return SubmissionResult(f"submitted/{name}/custom_gradients/{name}.ipynb", name, "custom_gradients", [
        ExerciseResult("log1pexp", 1.0, 2.0, Status.PARTIAL, ["wrong-value"], summary="1 of 2 cases passed.",
                       cases=cases, cases_passed=1, cases_total=2),
        ExerciseResult("td_loss", 2.0, 2.0, Status.PASSED, summary="All 3 cases passed.")], notes=[f"note {name}"])


def _strings(text: str) -> list[str]:
    """A writer's piece of output as strings: itself, or each string of it when it is JSON (in order)."""
    try:
        data = json.loads(text)
    except ValueError:
        return [text]
    found: list[str] = []

    def walk(value):
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
    walk(data)
    return found


def _format(text: str) -> str:
    """What a string of a writer's output is, judged on an honest student's rendering: HTML, Markdown or text."""
    if "<!DOCTYPE html>" in text or "<pre" in text or "<table" in text:
        return "html"
    return "markdown" if "**" in text or "```" in text or text.startswith("#") else "text"


def _live(html: str) -> list[str]:
    """What a browser would obey in ``html``: scripts, frames, handlers, javascript: links, remote images."""
    page = Elements(html)
    live = [tag for tag, _ in page.elements if tag in ("script", "iframe", "frame", "object", "embed")]
    live += [f"{tag} {name}" for tag, attrs in page.elements for name in attrs if name.startswith("on")]
    live += [f"{tag} {value}" for tag, attrs in page.elements for key, value in attrs.items()
             if key in ("href", "src") and value and (value.strip().lower().startswith("javascript:") or "//" in value)]
    return live


@pytest.mark.slow  # imports every module of the kit and renders the class report per name
def test_every_writer_keeps_a_students_name_as_text(tmp_path, monkeypatch):
    """Each writer (found by signature), on a result named by each hostile name: rendered as Markdown with GFM
    tables (markdown-it-py), or as the HTML it is, nothing live comes out, and the points table keeps five cells
    a row (a pipe in a code span once split it: a forged bold 'total 10 of 10' cell and a raw <img> beacon)."""
    from markdown_it import MarkdownIt

    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "summary.md"))
    markdown = MarkdownIt("commonmark").enable("table")
    honest = {writer: [[_format(s) for s in _strings(piece)] for piece in pieces]
              for writer, pieces in every_rendering(_named("ada"), tmp_path / "out").items()}
    checked = 0
    for name in NAMES:
        for writer, pieces in every_rendering(_named(name), tmp_path / "out").items():
            strings = [(kind, s) for piece, kinds in zip(pieces, honest[writer])
                       for kind, s in zip(kinds, _strings(piece))]
            for kind, piece in strings:
                if kind == "text":
                    continue  # plain text (a JSON field, a text report): shown as characters, nothing to obey
                html = piece if kind == "html" else markdown.render(piece)
                assert not _live(html), (writer, name, _live(html))
                assert "<strong>total 10 of 10</strong>" not in html, (writer, name)
                for table in re.findall(r"<table>.*?</table>", html, re.DOTALL):
                    if "<th>submission</th>" in table:
                        checked += 1
                        rows = re.findall(r"<tr>(.*?)</tr>", table, re.DOTALL)
                        assert all(len(re.findall(r"<t[dh]", row)) == 5 for row in rows), (writer, name, table)
    assert checked >= len(NAMES), "the points table was rendered for every name"


def test_feedback_folders_are_one_to_one_stable_and_never_another_students():
    folders = {name: student_folder(name) for name in NAMES}
    assert len(set(folders.values())) == len(NAMES)
    assert len({folder.lower() for folder in folders.values()}) == len(NAMES)  # a file system that ignores case
    for name, folder in folders.items():
        assert re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9._-]*", folder) and ".." not in folder, folder
        assert folder == name or re.fullmatch(r".+--[0-9a-f]{16}", folder), (name, folder)  # kept, or visibly changed
        alone, among = page_paths([_named(name)]), page_paths([_named(other) for other in reversed(NAMES)])
        assert alone[0] in among  # the same folder whoever else is graded, in any order
    assert folders["x"] == "x" and folders["_x"] != "x" and folders["X"] != "x"
    assert folders["x--0123456789abcdef"] != "x--0123456789abcdef"  # a name shaped like a changed one is changed


# --------------------------------------------------------------------------- 3. instructor pages apart

SEED = 918_273_645_012_345


def test_the_folder_handed_to_students_holds_no_seed_no_other_score_and_no_link_out(tmp_path):
    results = [_named("ada"), _named("bram"), _named(FORGED)]
    folder = tmp_path / "feedback"
    (folder).mkdir()
    (folder / "index.html").write_text("<title>Feedback pages</title> an old index", encoding="utf-8")
    written = write_feedback_pages(results, folder, seed=SEED)
    index = index_path(folder)
    assert written[-1] == index and index.parent == tmp_path and str(SEED) in index.read_text(encoding="utf-8")
    assert not (folder / "index.html").exists()  # the index an older version left inside is gone
    assert all(p.is_dir() for p in folder.iterdir())  # students' folders only
    for student, result in zip(("ada", "bram"), results):
        (page,) = (folder / student_folder(student)).iterdir()
        text = page.read_text(encoding="utf-8")
        assert str(SEED) not in text and "index.html" not in text.lower()  # (tabindex makes regions focusable)
        links = [a.get("href") for a in Elements(text).tags("a")]
        assert all(link and link.startswith("#") for link in links), links  # only its own anchors
        other = "bram" if student == "ada" else "ada"
        assert f"feedback for <strong>{other}" not in text
    # the class report is an instructor page too: never inside the folder handed out
    assert write_html(results, str(folder), str(folder / "report"), SEED) == 2
    assert not (folder / "report").exists()
    assert write_html(results, str(folder), str(tmp_path / "report"), SEED) == 0


# --------------------------------------------------------------------------- 6. memory is memory

MEMORY_ATTACKS = ("escape_td_loss_memory_files.py", "escape_td_loss_scratch_memory.py")


@pytest.mark.slow  # grades three files for real, then the honest one alone
def test_memory_held_in_files_and_segments_is_stopped_and_a_neighbour_is_graded_as_alone():
    """With a 1 GiB limit: anonymous memory files held open are counted and stopped at the limit (they were not:
    1.5 GiB held, measured), System V segments are capped by the child's own IPC namespace (16 MiB), the scratch
    tmpfs by its size; td_loss passes only if it held more than the limit. The honest file graded beside them
    gets exactly its JSON alone."""
    limits = ("--assignment", "custom_gradients", "--seed", "5", "--memory-limit", "1", "--case-time-limit", "20")
    base, token = new_run_folder("round-four-memory")
    copy_submissions([*MEMORY_ATTACKS, "honest_a.py"], base / "submissions", token)
    among = grade_folder(base / "submissions", base, token, *limits, timeout=600)
    alone_base, alone_token = new_run_folder("round-four-memory-alone")
    copy_submissions(["honest_a.py"], alone_base / "submissions", alone_token)
    alone = grade_folder(alone_base / "submissions", alone_base, alone_token, *limits, timeout=600)
    try:
        results, honest = by_file(among.results), by_file(alone.results)["honest_a.py"]
        for name in MEMORY_ATTACKS:
            item = exercise(results[name], "td_loss")
            assert item["status"] in ("error", "timeout") and item["score"] == 0, item["feedback"]
        files = exercise(results["escape_td_loss_memory_files.py"], "td_loss")["feedback"]
        assert "memory limit of 1 GiB exceeded" in files, files
        assert {k: results["honest_a.py"][k] for k in ("score", "exercises")} == \
            {k: honest[k] for k in ("score", "exercises")}
        assert not among.leaked and not among.ipc_left, (among.leaked, among.ipc_left)
    finally:
        shutil.rmtree(base, ignore_errors=True)
        shutil.rmtree(alone_base, ignore_errors=True)
