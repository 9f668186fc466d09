#!/usr/bin/env python3
"""The outputs and numbers the README, docs/ and examples/ show, made again by the kit's own writers.

Each claim below finds one shown output in a file (a regular expression) and says what the kit prints there
today: from the golden JSON of the example class at seed 1 (tests/fixtures/example_class_seed1.json, which
tests/test_examples.py keeps equal to a real run), rendered by the same writers the CLI uses (class table, CSV,
JUnit, Classroom 50, PrairieLearn, the text format: the writers render the golden JSON's results exactly as a
run's, which a test checks). tests/test_docs_outputs.py fails on every stale one with its file, line and what
is due.

    python scripts/docs_outputs.py            # check: each stale claim with file:line, what is there, what is due
    python scripts/docs_outputs.py --write    # rewrite the stale ones in place (then review `git diff`)

After a change of grades or feedback: regenerate the golden JSON first (docs/development.md), then --write.
A claim whose anchor is gone (the page was reworded) is reported as such: fix the claim here.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
GOLDEN = ROOT / "tests" / "fixtures" / "example_class_seed1.json"
SEED = 1
BRAM_CG = "examples/submitted/bram/custom_gradients/custom_gradients.ipynb"
BRAM_HO = "examples/submitted/bram/higher_order/higher_order.ipynb"


@cache
def golden() -> list:
    from autograder.model.results import from_contract

    return [from_contract(data) for data in json.loads(GOLDEN.read_text(encoding="utf-8"))]


def result(submission: str):
    return next(r for r in golden() if r.submission == submission)


def number(value: float) -> str:
    from autograder.report.numbers import number as kit_number

    return kit_number(value)


def score(submission: str) -> str:
    found = result(submission)
    return f"{number(found.score)} / {number(found.max_score)}"


@dataclass(frozen=True)
class Claim:
    """``pattern`` finds the shown output in ``file`` (one match); ``due(match)`` is what the kit prints there."""

    file: str
    pattern: str
    due: Callable[[re.Match], str]
    reflow: bool = False  # the page wraps the output's line where it likes: compared with whitespace runs as one


def class_table_head(_: re.Match) -> str:
    """The class table as `autograder grade` prints it, down to bram's rows (the page cuts it there)."""
    from autograder.report.text import class_table

    lines = [line.rstrip() for line in class_table(golden(), SEED).splitlines()]
    start = next(i for i, line in enumerate(lines) if "Class results (" in line)
    bram = next(i for i, line in enumerate(lines) if line.startswith("│ bram "))
    end = next(i for i in range(bram + 1, len(lines)) if not lines[i].startswith("│  "))
    return "\n".join(lines[start:end]) + "\n"


def graded_line(match: re.Match) -> str:
    return f"graded {len(golden())} submissions in {match.group(2)} s (seed {SEED}; rerun with --seed {SEED} for the " \
           "same cases)"


def next_line(_: re.Match) -> str:
    from autograder.commands import where_next

    return where_next(golden(), None, SEED).rstrip("\n")


def csv_row(_: re.Match) -> str:
    from autograder.report import formats

    rows = [row.split(",") for row in formats.render("csv", golden(), SEED).splitlines()]
    column = rows[0].index("custom_gradients")  # bram's row up to his custom_gradients total
    return ",".join(next(row for row in rows if row[0] == "bram")[:column + 1]) + ",..."


def junit_suite(_: re.Match) -> str:
    from autograder.report import formats

    junit = formats.render("junit", golden(), SEED)
    suite = re.search(rf'<testsuite name="{re.escape(BRAM_CG)}" tests="\d+" failures="\d+"', junit).group(0)
    return suite + " ...>"


def junit_failure(_: re.Match) -> str:
    from autograder.report import formats

    junit = formats.render("junit", golden(), SEED)
    suite = junit[junit.index(f'<testsuite name="{BRAM_CG}"'):]
    failure = re.search(r'<failure message="[^"]*" type="\w+">[^\n<]*', suite).group(0)  # to the first line's end
    return failure + " ..."


def classroom50_numbers(_: re.Match) -> str:
    from autograder.report.classroom50 import scaled

    found = result(BRAM_CG)
    return f'"score": {scaled(found.score)}, "max-score": {scaled(found.max_score)},'


def classroom50_test(_: re.Match) -> str:
    from autograder.report.classroom50 import scaled

    first = result(BRAM_CG).exercises[0]
    return (f'"tests": [{{"test-name": "{first.id}", "passed": {str(first.status.value == "passed").lower()}, '
            f'"score": {scaled(first.score)}, "max-score": {scaled(first.max_score)}, "status": "{first.status.value}",')


def classroom50_points(_: re.Match) -> str:
    first = result(BRAM_CG).exercises[0]
    return f'"points": {number(first.score)}, "max-points": {float(first.max_score)}}}, ...]}}'


def classroom50_sentence(_: re.Match) -> str:
    from autograder.report.classroom50 import scaled

    found = result(BRAM_CG)
    return f"({number(found.score)} of {number(found.max_score)} is {scaled(found.score)} of {scaled(found.max_score)};"


def prairielearn_message(_: re.Match) -> str:
    from autograder.report.prairielearn import prairielearn_results

    return f"(`{prairielearn_results(result(BRAM_CG))['message']}` for bram's `custom_gradients` of the example class)"


def prairielearn_test(_: re.Match) -> str:
    from autograder.report.prairielearn import prairielearn_results

    return f"(`{prairielearn_results(result(BRAM_CG))['tests'][0]['message']}`)"


def examples_row(match: re.Match) -> str:
    """A row of examples/README.md's table: the score, and each exercise named with its status, points, pitfalls."""
    student, assignment, _, rest = match.groups()
    found = result(f"examples/submitted/{student}/{assignment}/{assignment}.ipynb")

    def exercise(named: re.Match) -> str:
        item = next(e for e in found.exercises if e.id == named.group(1))
        pitfalls = ", ".join(item.pitfalls)
        return f"`{item.id}` {item.status.value} {number(item.score)}" + (f" [{pitfalls}]" if pitfalls else "")

    rest = re.sub(r"`(\w+)` ([a-z-]+) ([\d.]+)(?: \[[^\]]*\])?", exercise, rest)
    return f"| {student} | {assignment} | {number(found.score)} / {number(found.max_score)} |{rest}"


def bram_cg_score(match: re.Match) -> str:
    return match.group(0).replace(match.group(1), score(BRAM_CG))


def bram_cg_points(match: re.Match) -> str:
    return match.group(0).replace(match.group(1), number(result(BRAM_CG).score))


def bram_cg_log1pexp(match: re.Match) -> str:
    from autograder.report.text import submission_text

    shown = submission_text(result(BRAM_CG)).splitlines()[1]
    return shown if shown.strip().startswith("~ log1pexp") else match.group(0)


def example_count(match: re.Match) -> str:
    return match.group(0).replace(match.group(1), str(len(golden())))


def students_and_notebooks(match: re.Match) -> str:
    students = len({r.student for r in golden()})
    return re.sub(r"\d+ students, \d+ notebooks", f"{students} students, {len(golden())} notebooks", match.group(0))


def example_students(match: re.Match) -> str:
    return re.sub(r"\d+ students", f"{len({r.student for r in golden()})} students", match.group(0))


def nbgrader_course_counts(_: re.Match) -> str:
    """tests/test_nbgrader_course.py's course: the example class and one more custom_gradients notebook."""
    from autograder.course import assignment_by_id

    cells = sum(len(r.exercises) for r in golden()) + len(assignment_by_id("custom_gradients").exercises)
    return f"({len(golden()) + 1} notebooks, {cells} graded cells)"


NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def class_run(match: re.Match) -> str:
    references = NUMBER_WORDS[len({r.assignment for r in golden()})]
    return f"the {len(golden())} notebooks plus the {references} references"


def bram_text(_: re.Match) -> str:
    """`autograder grade <bram's higher_order> --seed 1`, as the text format prints it."""
    from autograder.report.text import submission_text

    return f"$ autograder grade {BRAM_HO} --seed {SEED}\n{submission_text(result(BRAM_HO))}(seed {SEED})\n"


CLAIMS = [
    Claim("docs/cli.md", r"^ *Class results \(.*\n(?:[┏┃┡│].*\n)+?(?=\.\.\.\n)", class_table_head),
    Claim("docs/cli.md", r"^graded (\d+) submissions in ([\d.]+) s \(seed 1; rerun with --seed 1 for the same cases\)",
          graded_line),
    Claim("docs/cli.md", r"^next: one student's feedback as text: .*", next_line),
    Claim("docs/cli.md", r"^\$ autograder grade examples/submitted/bram/higher_order/higher_order\.ipynb --seed 1\n"
                         r"(?:(?!```).*\n)+", bram_text),
    Claim("docs/platforms.md", r"^bram,[\d.,]+,\.\.\.$", csv_row),
    Claim("docs/platforms.md", rf'<testsuite name="{re.escape(BRAM_CG)}" tests="\d+" failures="\d+" \.\.\.>', junit_suite),
    Claim("docs/platforms.md", r'<failure message="[^"]*" type="\w+">[^\n<]*\.\.\.', junit_failure),
    Claim("docs/platforms.md", r'"score": \d+, "max-score": \d+,(?= "tests")|"score": \d+, "max-score": \d+,$',
          classroom50_numbers),
    Claim("docs/platforms.md", r'"tests": \[\{"test-name": "\w+", "passed": \w+, "score": \d+, "max-score": \d+, '
                               r'"status": "[\w-]+",', classroom50_test),
    Claim("docs/platforms.md", r'"points": [\d.]+, "max-points": [\d.]+\}, \.\.\.\]\}', classroom50_points),
    Claim("docs/platforms.md", r"\([\d.]+ of \d+ is \d+ of \d+;", classroom50_sentence),
    Claim("examples/prairielearn/README.md", r"\((?:`[^`]*`|[\d.]+ / \d+) for bram's `custom_gradients` of the example "
                                             r"class\)", prairielearn_message),
    Claim("examples/prairielearn/README.md", r"\(`partial: [\d.]+ / [\d.]+ points\s\[[^\]]*\]`\)", prairielearn_test,
          reflow=True),
    Claim("examples/classroom50/README.md", r"the points \(`([\d.]+ / \d+)`\)", bram_cg_score),
    Claim("examples/github-actions/README.md", r"octo-bram · custom_gradients · ([\d.]+ / \d+)", bram_cg_score),
    Claim("examples/github-actions/README.md", r"^  ~ log1pexp .*", bram_cg_log1pexp),
    Claim("examples/github-actions/README.md", r"custom_gradients\.ipynb \(([\d.]+)\)", bram_cg_points),
    Claim("examples/github-actions/README.md", r"## Autograder: ([\d.]+ / \d+) points", bram_cg_score),
    Claim("README.md", r"then (\d+) notebooks graded in", example_count),
    Claim("examples/README.md", r"\d+ students, \d+ notebooks", students_and_notebooks),
    Claim("examples/README.md", r"the \d+ notebooks plus the \w+ references", class_run),
    Claim("docs/nbgrader.md", r"\(`examples/submitted/`, \d+ students", example_students),
    Claim("docs/nbgrader.md", r"\(\d+ notebooks, \d+ graded cells\)", nbgrader_course_counts),
]
# One claim per row of the example class's table in examples/README.md (every row: the table is the class).
EXAMPLE_ROW = r"^\| (\w+) \| (custom_gradients|higher_order|jacobians|implicit) \| ([\d.]+ / \d+) \|(.*)$"


@dataclass
class Finding:
    file: str
    line: int
    shown: str
    due: str | None  # None: the anchor was not found


def check(claim: Claim, root: Path = ROOT) -> list[Finding]:
    text = (root / claim.file).read_text(encoding="utf-8")
    matches = list(re.finditer(claim.pattern, text, re.MULTILINE))
    if len(matches) != 1:
        return [Finding(claim.file, 0, f"{len(matches)} matches of {claim.pattern!r}", None)]
    return compare(claim.file, text, matches[0], claim.due(matches[0]), claim.reflow)


def compare(file: str, text: str, match: re.Match, due: str, reflow: bool = False) -> list[Finding]:
    if match.group(0) == due or (reflow and match.group(0).split() == due.split()):
        return []
    return [Finding(file, text.count("\n", 0, match.start()) + 1, match.group(0), due)]


def check_example_rows(root: Path = ROOT) -> list[Finding]:
    file = "examples/README.md"
    text = (root / file).read_text(encoding="utf-8")
    matches = list(re.finditer(EXAMPLE_ROW, text, re.MULTILINE))
    shown = {(m.group(1), m.group(2)) for m in matches}
    due = {(r.student, r.assignment) for r in golden()}
    findings = [Finding(file, 0, f"no row for {s}'s {a}", None) for s, a in sorted(due - shown)]
    findings += [Finding(file, 0, f"a row for {s}'s {a}, which the example class does not hold", None)
                 for s, a in sorted(shown - due)]
    for match in matches:
        if (match.group(1), match.group(2)) in due:
            findings += compare(file, text, match, examples_row(match))
    return findings


def findings(root: Path = ROOT) -> list[Finding]:
    """Every stale shown output below ``root`` (a checkout, or a copy of its pages)."""
    found = check_example_rows(root)
    for claim in CLAIMS:
        found += check(claim, root)
    return found


def write(root: Path = ROOT) -> int:
    """Rewrite every stale claim whose anchor is found; return how many."""
    count = 0
    for claim in [*CLAIMS, Claim("examples/README.md", EXAMPLE_ROW, examples_row)]:
        path = root / claim.file
        text = path.read_text(encoding="utf-8")
        new = re.sub(claim.pattern, lambda m: m.group(0) if compare(claim.file, text, m, claim.due(m), claim.reflow)
                     == [] else claim.due(m), text, flags=re.MULTILINE)
        if new != text:
            path.write_text(new, encoding="utf-8")
            count += 1
    return count


def report(stale: list[Finding]) -> str:
    return "".join((f"{f.file}:{f.line}: " if f.line else f"{f.file}: ")
                   + (f"anchor not found: {f.shown}\n" if f.due is None
                      else f"stale\n  shown: {f.shown!r}\n  due:   {f.due!r}\n") for f in stale)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite the stale outputs in place")
    args = parser.parse_args()
    if args.write:
        print(f"rewrote {write()} claims; check `git diff`")
    stale = findings()
    print(report(stale), end="")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
