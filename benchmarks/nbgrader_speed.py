"""`nbgrader autograde` with the kit's contained executor, with kernels, and `autograder grade`: one run.

    .venv/bin/python benchmarks/nbgrader_speed.py              # N = 20
    .venv/bin/python benchmarks/nbgrader_speed.py --size 20 --skip-kernels

The same class of N notebooks (``class_speed.build_class``: the example class copied round-robin, every
copy's code different by a comment, so nothing is graded twice) is graded three ways, each in a course of
its own with an empty cache (each pays its references once, as a first run with the course's seed does):

- ``autograder grade submitted --jobs J --seed S --solutions solutions`` (the CLI);
- ``nbgrader autograde <assignment>`` for every assignment, with the course's nbgrader_config.py as it is
  (the contained executor: no kernel, one fork server per nbgrader process);
- the same with the config's one line switched to the kernel path (``EXECUTOR = Execute``).

Each nbgrader run's gradebook is checked against the CLI's JSON: total and per-exercise points for every
notebook (parity). Printed: wall seconds, peak resident MiB of any one process, and each row over the CLI.
A measurement, not a test.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

from class_speed import ROOT, build_class, environment, timed

SEED = "2026"
CONTAINED_LINE = 'EXECUTOR = "autograder.frontends.nbgrader_executor.ContainedExecute"'


def course(folder: Path, size: int, executor: str | None) -> Path:
    build_class(folder, size)
    shutil.copytree(ROOT / "solutions", folder / "solutions")
    config = (ROOT / "nbgrader_config.py").read_text(encoding="utf-8")
    if executor is not None:
        assert config.count(CONTAINED_LINE) == 1
        config = config.replace(CONTAINED_LINE, f"EXECUTOR = {executor}")
    (folder / "nbgrader_config.py").write_text(config, encoding="utf-8")
    return folder


def assignments(folder: Path) -> list[str]:
    return sorted({p.parent.name for p in (folder / "submitted").glob("*/*/*.ipynb")})


def cli(folder: Path, jobs: int) -> dict:
    env = environment(AUTOGRADER_CACHE=str(folder / "cache"))
    wall, peak, _ = timed([sys.executable, "-m", "autograder", "grade", "submitted", "--jobs", str(jobs), "--seed", SEED,
                           "--solutions", "solutions", "--format", "json", "--output", "class.json"], folder, env)
    return {"wall": wall, "peak": peak, "results": json.loads((folder / "class.json").read_text())}


def nbgrader(folder: Path) -> dict:
    """generate_assignment (not timed: the release exists before grading), then autograde, timed."""
    env = environment(AUTOGRADER_CACHE=str(folder / "cache"), AUTOGRADER_SEED=SEED)
    for assignment in sorted(p.name for p in (folder / "solutions").iterdir()):
        timed([sys.executable, "-m", "nbgrader", "generate_assignment", assignment, "--force"], folder, env)
    walls, peaks = [], []
    for assignment in assignments(folder):
        wall, peak, _ = timed([sys.executable, "-m", "nbgrader", "autograde", assignment, "--force"], folder, env)
        walls.append(wall)
        peaks.append(peak)
    return {"wall": sum(walls), "peak": max(peaks), "folder": folder}


def parity(folder: Path, results: list[dict]) -> tuple[int, list[str]]:
    """How many notebooks nbgrader graded exactly as the CLI did, and the differences."""
    from nbgrader.api import Gradebook

    same, differences = 0, []
    with Gradebook(f"sqlite:///{folder / 'gradebook.db'}") as gradebook:
        for result in results:
            notebook = gradebook.find_submission_notebook(result["assignment"], result["assignment"], result["student"])
            points = {grade.name: grade.score for grade in notebook.grades}
            wrong = [e["id"] for e in result["exercises"] if abs(points[f"test_{e['id']}"] - e["score"]) > 1e-4]
            if wrong or abs(notebook.score - result["score"]) > 1e-3:
                differences.append(f"{result['student']}/{result['assignment']}: {wrong or 'total'}")
            else:
                same += 1
    return same, differences


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--skip-kernels", action="store_true", help="leave out the kernel path (minutes)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-nbgrader-") as scratch:
        scratch = Path(scratch)
        base = cli(course(scratch / "cli", args.size, None), args.jobs)
        runs = [("nbgrader autograde, contained executor (the course's default)",
                 nbgrader(course(scratch / "contained", args.size, None)))]
        if not args.skip_kernels:
            runs.append(("nbgrader autograde, kernels (EXECUTOR = Execute)",
                         nbgrader(course(scratch / "kernels", args.size, "Execute"))))
        rows = [("tool", "N", "wall s", "peak MiB", "over the CLI", "parity with the CLI"),
                (f"autograder grade --jobs {args.jobs}", str(args.size), f"{base['wall']:.1f}", f"{base['peak']:.0f}",
                 "1.0x", "")]
        notes = []
        for label, run in runs:
            same, differences = parity(run["folder"], base["results"])
            notes += [f"  {label}: {d}" for d in differences]
            rows.append((label, str(args.size), f"{run['wall']:.1f}", f"{run['peak']:.0f}",
                         f"{run['wall'] / base['wall']:.2f}x", f"{same} / {len(base['results'])} notebooks"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)))
    print("\n".join(notes) or "every notebook: the same total and per-exercise points as the CLI")
    print("\nmarkdown:\n")
    print("| " + " | ".join(rows[0]) + " |")
    print("|" + "---|" * len(rows[0]))
    for row in rows[1:]:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
