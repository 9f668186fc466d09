"""What a grading run leaves for the platform it runs on, beside its report: Classroom 50's files, a GitHub
job summary, an LMS gradebook. The writers build the text (``report``); this module picks the files, reads
the runner's environment and the roster, and says on stderr what an instructor must know."""
from __future__ import annotations

import datetime as dt
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from autograder.config import variable
from autograder.load.discover import layout_student
from autograder.model.results import SubmissionResult
from autograder.report import classroom50, lms
from autograder.report.safe_text import line
from autograder.report.step_summary import step_summary
from autograder.store.atomic import write_atomically

RESULT_FILE = "result.json"  # where Classroom 50's runner reads it: the student's checkout
RELEASE_BODY_FILE = "release-body.md"


def say(message: str) -> None:
    print(f"autograder: {message}", file=sys.stderr)


def runner_student() -> str | None:
    """Whose repository a Classroom 50 or GitHub Actions run grades: Classroom 50's OWNER or USERNAME, else who
    pushed (GITHUB_ACTOR), else the repository's owner (GITHUB_REPOSITORY's first part); None outside a runner."""
    for name in ("OWNER", "USERNAME", "GITHUB_ACTOR"):
        if value := (variable(name) or "").strip():
            return value
    owner = (variable("GITHUB_REPOSITORY") or "").strip().split("/", 1)[0]
    return owner or None


def named_by_runner(results: list[SubmissionResult]) -> list[SubmissionResult]:
    """The results as the run's log and summary show them: a submission outside nbgrader's layout is named after
    its file (``custom_gradients.ipynb`` -> "custom_gradients"), which in a student's repository names the
    assignment, not the student: there the runner says who the student is. Names from the layout are kept."""
    student = runner_student()
    if student is None:
        return results
    return [result if layout_student(Path(result.submission)) is not None else replace(result, student=student)
            for result in results]


def commit_time(folder: Path) -> dt.datetime | None:
    """The committer date of the checkout's HEAD: Classroom 50's submission instant (None outside git)."""
    try:
        done = subprocess.run(["git", "-c", "safe.directory=*", "-C", str(folder), "log", "-1", "--format=%ct", "HEAD"],
                              capture_output=True, text=True, timeout=30, check=False)
        return dt.datetime.fromtimestamp(int(done.stdout.strip()), dt.timezone.utc) if done.returncode == 0 else None
    except (OSError, ValueError, subprocess.SubprocessError):
        return None


def write_classroom50(result: SubmissionResult, output: str | None) -> dict:
    """``result.json`` (at ``output``, else ./result.json), ``release-body.md`` beside it, and the step's
    ``status``/``summary`` outputs when $GITHUB_OUTPUT is set. Returns the result written."""
    target = Path(output) if output else Path.cwd() / RESULT_FILE
    context = classroom50.RunnerContext.from_environ({name: variable(name) for name in classroom50.CONTEXT_VARIABLES})
    now = dt.datetime.now(dt.timezone.utc)
    data = classroom50.classroom50_result(result, context, commit_time(target.parent) or now, now)
    write_atomically(target, classroom50.to_json(data))
    write_atomically(target.with_name(RELEASE_BODY_FILE), classroom50.release_body(result, data))
    if outputs := variable("GITHUB_OUTPUT"):
        with open(outputs, "a", encoding="utf-8") as handle:
            handle.write(classroom50.step_outputs(result, data))
    if context.missing:
        say(f"not a Classroom 50 run ({', '.join(context.missing)} unset): {target} says so in those fields")
    return data


def append_step_summary(results: list[SubmissionResult], fail_under: float | None) -> str | None:
    """Append the job summary to $GITHUB_STEP_SUMMARY; the file written, or None outside GitHub Actions."""
    target = variable("GITHUB_STEP_SUMMARY")
    if not target:
        say("--step-summary: GITHUB_STEP_SUMMARY is not set (not a GitHub Actions step): no summary written")
        return None
    with open(target, "a", encoding="utf-8") as handle:
        handle.write(step_summary(results, fail_under))
    return target


def read_roster_file(fmt: str, roster: str) -> str:
    """The roster's text, checked as this LMS's export (before grading: a wrong file is said at once).
    Raises ``lms.RosterError``."""
    try:
        text = Path(roster).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise lms.RosterError(f"cannot read the roster {roster}: {error}") from None
    lms.read_roster(lms.LAYOUTS[fmt], text)
    return text


def fill_lms(fmt: str, results: list[SubmissionResult], roster: str, column: str | None,
             match_by: str | None) -> str:
    """The filled gradebook; who could not be matched, on stderr. Raises ``lms.RosterError``."""
    filled = lms.fill_roster(lms.LAYOUTS[fmt], read_roster_file(fmt, roster), results, column, match_by)
    for note in filled.notes:
        say(note)
    if filled.not_in_roster:
        say(f"{len(filled.not_in_roster)} graded student{'s are' if len(filled.not_in_roster) > 1 else ' is'} not in "
            f"the roster (not written; match them with --match-by, or add them in the LMS): "
            + "; ".join(map(line, filled.not_in_roster)))
    if filled.without_submission:
        say(f"{len(filled.without_submission)} roster student{'s have' if len(filled.without_submission) > 1 else ' has'} "
            f"no submission (their cell is left empty: the import keeps what the LMS has): "
            + "; ".join(map(line, filled.without_submission)))
    say(f"{len(filled.matched)} student{'s' if len(filled.matched) != 1 else ''} written to the column "
        f"{line(filled.column)!r}")
    return filled.text
