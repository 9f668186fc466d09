#!/usr/bin/env python3
"""docs/contract.md, the course contract in the kit's own words, made from the kit itself.

The assignments, exercises, signatures and points come from the course description (``autograder.course``),
each exercise's graded checks from the reasons its graded cases give (the contract clause each rests on), the
pitfalls from the catalogue (``autograder.model.pitfalls``), the statuses from the result model and the JSON
example from the golden JSON of the example class (rendered by the contract's writer). The rest, the rules
that hold for every exercise, is written below once.

    python scripts/contract_doc.py            # write docs/contract.md
    python scripts/contract_doc.py --check    # exit 1 when docs/contract.md is not what the kit says now

tests/test_contract_doc.py fails when the page is stale, and compares its ids and signatures with the shared
contract (../shared/CURRICULUM.md) where that file is at hand.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PAGE = ROOT / "docs" / "contract.md"

INTRO = """\
# The course contract

What students implement and what the grader promises, so that the notebooks, the reference solutions, the
grader and outside checkers agree. An assignment id, an exercise id, a signature or a pitfall id never changes
silently: adding is welcome, renaming or removing needs an issue. This page is made from the kit itself
(`python scripts/contract_doc.py`: the course description in `autograder/course`, the pitfall catalogue in
`autograder/model/pitfalls.py`); a test fails when it is stale.

Everything is TensorFlow 2 eager code (`import tensorflow as tf`). Inputs are float32 unless an exercise says
otherwise; "Tensor" means `tf.Tensor`, not a Variable, unless it says so, and a function that differentiates
with respect to a Tensor input has to `tape.watch` it. Where a derivative is identically zero, `None` and zeros
are both correct. A list of gradients follows the order of the variables it was asked for.

## What earns points

- Points come only from what this contract and the exercise's own statement in the notebook ask for. A correct
  answer never loses a point.
- **Graded cases** use only the inputs the exercise allows (its dtypes, a Tensor unless it names a Variable
  too, functions that depend on `x`); each case names the clause it checks (listed per exercise below).
- **Diagnostic and advisory cases** may go beyond that (another dtype, a Variable where a Tensor is promised, a
  constant `f`): they name a mistake or give advice and never cost a point.
- **Public cases cover every kind of graded check**: passing every public check of an exercise means no hidden
  case can fail it for a kind of reason no public case exercises.
- **Hidden cases stay hidden**: their feedback gives a description without values, and what a hidden case's
  feedback shows is one of a fixed set of kinds (wrong values, wrong shape or dtype, None where a value was
  due, an error, out of time, out of memory), never something the student's code chose; the public twin that
  fails the same way carries the line, the error and the numbers.
- **The course secret stays with the grader**: the seed that draws the hidden cases never reaches a process that
  runs student code; student code meets a hidden case's inputs only while its own function runs on them.
- Each exercise is worth its points (2 in every assignment); partial credit is the share of its graded cases
  passed, and right numbers that miss an exercise's learning goal (no `@tf.custom_gradient` where it is the
  point, a model called once per example) keep at most half of them.
"""

JSON_INTRO = """\
## The grader's JSON

`autograder grade PATH... --assignment ID --format json` prints a JSON array, one object per submission, in the
order given (the example class's bram: his first two exercises, their feedback shortened):
"""

JSON_RULES = """\
`submission` is the file's path as given, or as found below a folder that was given; `student` comes from
nbgrader's `submitted/<student>/<assignment>/` layout where the path has it, else from the file's name. Every
exercise of the assignment appears, in the order above, whatever the submission holds. A submission is a
`.ipynb` notebook or a `.py` file (a folder stands for those below it). One that cannot be read at all (not a
notebook, broken JSON, another suffix such as a browser's `higher_order.ipynb.txt`) still gets an object, every
exercise `error` with feedback that says why (with no assignment to list, when none was given and none can be
told, `exercises` is empty and stderr says why), and `autograder grade` exits 1.
"""


def described_in(assignment, exercise):
    """The module that describes ``exercise`` (its own, or the one that holds it beside a sibling's)."""
    prefix = f"autograder.course.{assignment.id}."
    holders = [module for name, module in sorted(sys.modules.items()) if name.startswith(prefix)
               and any(value is exercise for value in vars(module).values())]
    return next((m for m in holders if m.__name__ == prefix + exercise.id), holders[0] if holders else None)


def exercise_section(assignment, exercise) -> list[str]:
    module = described_in(assignment, exercise)
    summary = (getattr(module, "__doc__", "") or "").strip().split("\n\n")[0].replace("\n", " ")
    summary = summary.split(": ", 1)[1] if summary.startswith("``") and ": " in summary else summary
    summary = summary.replace("``", "`")
    if re.match(r"[a-z]{2,} ", summary):  # a sentence (not a formula such as log(1 + e^x)): its first word capitalised
        summary = summary[0].upper() + summary[1:]
    scope = exercise.scope
    inputs = " or ".join(scope.dtypes) + (", a Tensor or a tf.Variable" if scope.variables else "")
    reasons: list[str] = []
    for case in exercise.cases(0):
        for clause in case.reason.split("; ") if case.graded else ():
            clause = clause.split(": ", 1)[1] if clause.startswith(f"{exercise.id}: ") else clause
            if clause and clause not in reasons:
                reasons.append(clause)
    pitfalls = sorted({m.pitfall for m in exercise.mistakes} | set(exercise.output_pitfalls.values())
                      | ({exercise.materialized_pitfall} if exercise.materialized_pitfall else set())
                      | ({"no-custom-gradient"} if exercise.requires_custom_gradient else set()))
    lines = [f"### `{exercise.id}({', '.join(exercise.params)})`", "",
             f"{summary} {points(exercise.points)}; graded inputs: "
             f"{inputs}. Compared: {', '.join(o.label for o in exercise.outputs)}.", "",
             "Its graded cases check:", ""]
    lines += [f"- {reason}" for reason in reasons]
    if pitfalls:
        lines += ["", "Pitfalls its mistake models name: " + ", ".join(f"`{p}`" for p in pitfalls) + "."]
    return lines + [""]


def points(value: float) -> str:
    return f"{value:g} point{'s' if value != 1 else ''}"


def json_example() -> str:
    from autograder.model.results import from_contract
    from autograder.report.contract import submission_json

    golden = json.loads((ROOT / "tests" / "fixtures" / "example_class_seed1.json").read_text(encoding="utf-8"))
    bram = submission_json(from_contract(next(r for r in golden if r["student"] == "bram")))
    bram["exercises"] = [dict(e, feedback=e["feedback"].split("\n")[0] + " ...") for e in bram["exercises"][:2]]
    return json.dumps([bram], indent=2, ensure_ascii=False)


def page() -> str:
    from autograder.course import all_assignments
    from autograder.model.pitfalls import CATALOGUE
    from autograder.model.results import STATUSES

    lines = [INTRO]
    for assignment in all_assignments():
        lines += [f"## Assignment `{assignment.id}`: {assignment.title}", "",
                  f"{len(assignment.exercises)} exercises, {points(assignment.max_score)}:", "",
                  "| exercise id | signature | points |", "|---|---|---|"]
        lines += [f"| `{e.id}` | `{e.id}({', '.join(e.params)})` | {e.points:g} |" for e in assignment.exercises]
        lines.append("")
        for exercise in assignment.exercises:
            lines += exercise_section(assignment, exercise)
    lines += ["## Pitfall ids", "",
              "The grader names a mistake with one of these ids, in its feedback and in the `pitfalls` list of its "
              "JSON, with what went wrong, where (cell and line where it can) and how to fix it.", "",
              "| id | what the student did | the fix |", "|---|---|---|"]
    lines += [f"| `{p.id}` | {cell(p.what)} | {cell(p.fix)} |" for p in CATALOGUE.values()]
    lines += ["", JSON_INTRO, "```json", json_example(), "```", "",
              "`status` is one of " + ", ".join(f"`{s}`" for s in STATUSES) + ". It is `passed` when the score "
              "equals `max_score`, `error` when the function raised, `missing` when it is not defined.", "",
              JSON_RULES]
    return "\n".join(lines).rstrip("\n") + "\n"


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when docs/contract.md is stale")
    args = parser.parse_args()
    fresh = page()
    if args.check:
        stale = not PAGE.is_file() or PAGE.read_text(encoding="utf-8") != fresh
        print("docs/contract.md is stale: run python scripts/contract_doc.py" if stale else "docs/contract.md is up to date")
        return 1 if stale else 0
    PAGE.write_text(fresh, encoding="utf-8")
    print(f"wrote {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
