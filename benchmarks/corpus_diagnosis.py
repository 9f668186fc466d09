"""How well the grader names mistakes on the corpus of tests/submissions: three percentages.

    .venv/bin/python benchmarks/corpus_diagnosis.py            # every assignment, seed 11 (as the tests)
    .venv/bin/python benchmarks/corpus_diagnosis.py --json graded.json   # also keep what the grader said
    .venv/bin/python benchmarks/corpus_diagnosis.py --assignments custom_gradients --first 2 --jobs 1  # smallest

Each folder tests/submissions/<assignment>/ is graded once for real (`autograder grade ... --seed 11
--format json`); its expected.yaml says what each file must get. Counted per (file, exercise) entry that
expected.yaml lists:
- **correct at full marks**: an `ok_` entry expected `passed` got full marks and no pitfall;
- **mistakes caught**: a `bad_` entry lost points;
- **named right**: a `bad_` entry got exactly the expected status and pitfalls.
The same three are also given per file, on the exercise its name is about (``bad_<exercise>_<pitfall>``),
as tests/submissions/FINDINGS.md counted them. Every entry that misses is listed. A measurement, not a test.
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "submissions"
ASSIGNMENTS = ("custom_gradients", "higher_order", "jacobians", "implicit")


def grade(assignment: str, names: list[str], seed: int, jobs: int) -> dict[str, dict]:
    """The named files of the assignment's folder, graded in one real run (from a copy when only some are)."""
    with tempfile.TemporaryDirectory() as scratch:
        folder = CORPUS / assignment
        if len(names) < len(list(folder.glob("*.py")) + list(folder.glob("*.ipynb"))):
            folder = Path(scratch)
            for name in names:
                shutil.copy(CORPUS / assignment / name, folder / name)
        done = subprocess.run([sys.executable, "-m", "autograder", "grade", str(folder), "--assignment",
                               assignment, "--seed", str(seed), "--jobs", str(jobs), "--format", "json"],
                              cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"autograder failed on {assignment}:\n{done.stderr[-3000:]}")
    return {Path(r["submission"]).name: r for r in json.loads(done.stdout)}


def subject(name: str, listed: dict) -> str:
    """The exercise a file's name is about: the longest listed exercise id its name starts with."""
    stem = name.split("_", 1)[1]
    return max((e for e in listed if stem.startswith(e + "_") or stem == e), key=len, default=next(iter(listed)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", type=Path, help="write what the grader said, per assignment, here")
    parser.add_argument("--assignments", nargs="+", choices=ASSIGNMENTS, default=list(ASSIGNMENTS))
    parser.add_argument("--first", type=int, metavar="N", help="only each folder's first N files, by name")
    args = parser.parse_args()
    counts = {key: [0, 0] for key in ("correct", "caught", "named", "file-correct", "file-caught", "file-named")}
    misses: list[str] = []
    said = {}
    for assignment in args.assignments:
        expected = yaml.safe_load((CORPUS / assignment / "expected.yaml").read_text(encoding="utf-8"))["files"]
        expected = dict(sorted(expected.items())[:args.first])
        graded = said[assignment] = grade(assignment, list(expected), args.seed, args.jobs)
        for name, listed in sorted(expected.items()):
            exercises = {e["id"]: e for e in graded[name]["exercises"]}
            about = subject(name, listed)
            for exercise_id, spec in listed.items():
                status, *pitfalls = spec.split()
                got = exercises[exercise_id]
                keys = ["", "file-"] if exercise_id == about else [""]
                if name.startswith("ok_"):
                    good = got["score"] == got["max_score"] and not got["pitfalls"]
                    for prefix in keys:
                        counts[prefix + "correct"][0] += good
                        counts[prefix + "correct"][1] += 1
                    if not good:
                        misses.append(f"correct not at full marks: {assignment}/{name} {exercise_id}: "
                                      f"{got['score']}/{got['max_score']} {got['pitfalls']}")
                    continue
                caught = got["score"] < got["max_score"]
                named = (got["status"], got["pitfalls"]) == (status, pitfalls)
                for prefix in keys:
                    counts[prefix + "caught"][0] += caught
                    counts[prefix + "caught"][1] += 1
                    counts[prefix + "named"][0] += named
                    counts[prefix + "named"][1] += 1
                if not named:
                    misses.append(f"{'named wrong' if caught else 'NOT CAUGHT'}: {assignment}/{name} {exercise_id}: "
                                  f"expected {spec}, got {got['status']} {' '.join(got['pitfalls'])}")
    if args.json:
        args.json.write_text(json.dumps(said, indent=1), encoding="utf-8")
    for label, key in (("correct answers at full marks", "correct"), ("mistakes caught", "caught"),
                       ("mistakes named right", "named")):
        for prefix, per in (("", "entries"), ("file-", "files")):
            good, total = counts[prefix + key]
            print(f"{label} ({per}): {good}/{total} = {100 * good / max(total, 1):.1f} %")
    for miss in misses:
        print("  " + miss)


if __name__ == "__main__":
    main()
