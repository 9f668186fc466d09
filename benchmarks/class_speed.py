"""Grade a class of N submissions with the kit and with `nbgrader autograde`, side by side.

    .venv/bin/python benchmarks/class_speed.py            # N = 20 (both tools) and N = 200 (the kit)
    .venv/bin/python benchmarks/class_speed.py --sizes 20 --skip-nbgrader

The class is built from the example class (examples/submitted), copied round-robin into
students s000, s001, ... so that each size has the example class's mix of assignments and
mistakes. Prints wall time, time per submission, the largest resident memory of any process
(sampled from /proc) and the ratio. A measurement, not a test.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def build_class(folder: Path, size: int) -> list[Path]:
    examples = sorted((ROOT / "examples" / "submitted").glob("*/*/*.ipynb"))
    made = []
    for number in range(size):
        source = examples[number % len(examples)]
        assignment = source.parent.name
        target = folder / "submitted" / f"s{number:03d}" / assignment / source.name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, target)
        made.append(target)
    return made


def environment() -> dict[str, str]:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", TF_ENABLE_ONEDNN_OPTS="0", PYTHONWARNINGS="ignore")
    env["PATH"] = f"{BIN}{os.pathsep}{env['PATH']}"
    return env


def timed(command: list[str], cwd: Path) -> tuple[float, float]:
    """Wall seconds, and the largest resident MiB of any one process the command started (sampled 5 times a second)."""
    started = time.monotonic()
    process = subprocess.Popen(command, cwd=cwd, env=environment(), stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    peak = 0
    while process.poll() is None:
        peak = max([peak, *(rss for _, rss in descendants(process.pid))])
        time.sleep(0.2)
    wall = time.monotonic() - started
    if process.returncode != 0:
        raise SystemExit(f"{command[:4]} failed:\n{process.stderr.read()[-3000:]}")
    return wall, peak / 2**20


def descendants(root: int) -> list[tuple[int, int]]:
    """(pid, resident bytes) of every process below ``root``."""
    parents, resident = {}, {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = dict(line.split(":", 1) for line in open(f"/proc/{entry}/status") if ":" in line)
                parents[int(entry)] = int(fields["PPid"])
                resident[int(entry)] = int(fields.get("VmRSS", "0 kB").split()[0]) * 1024
            except (OSError, ValueError, KeyError):
                continue
    below, frontier = set(), {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - below
        below |= frontier
    return [(pid, resident[pid]) for pid in below | {root} if pid in resident]


def kit(folder: Path, jobs: int) -> tuple[float, float]:
    return timed([sys.executable, "-m", "autograder", "grade", str(folder), "--jobs", str(jobs), "--seed", "1",
                  "--format", "json", "--output", str(folder / "results.json")], ROOT)


def nbgrader(folder: Path) -> tuple[float, float]:
    """A real nbgrader course: the release generated from solutions/, then `autograde` on every submission."""
    shutil.copytree(ROOT / "solutions", folder / "solutions")
    shutil.copy(ROOT / "nbgrader_config.py", folder)
    for assignment in sorted(p.name for p in (folder / "solutions").iterdir()):
        timed([sys.executable, "-m", "nbgrader", "generate_assignment", assignment, "--force"], folder)
    walls, peaks = [], []
    for assignment in sorted({p.parent.name for p in (folder / "submitted").glob("*/*/*.ipynb")}):
        wall, peak = timed([sys.executable, "-m", "nbgrader", "autograde", assignment, "--force"], folder)
        walls.append(wall)
        peaks.append(peak)
    return sum(walls), max(peaks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 200])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--skip-nbgrader", action="store_true")
    args = parser.parse_args()
    rows = [("tool", "N", "wall s", "s / submission", "peak MiB", "nbgrader / kit")]
    for size in args.sizes:
        with tempfile.TemporaryDirectory(prefix="bench-") as scratch:
            folder = Path(scratch) / "kit"
            build_class(folder, size)
            kit_wall, kit_peak = kit(folder, args.jobs)
            rows.append((f"autograder --jobs {args.jobs}", str(size), f"{kit_wall:.1f}", f"{kit_wall / size:.2f}",
                         f"{kit_peak:.0f}", ""))
            if size <= 20 and not args.skip_nbgrader:
                course = Path(scratch) / "nbgrader"
                build_class(course, size)
                nb_wall, nb_peak = nbgrader(course)
                rows.append(("nbgrader autograde", str(size), f"{nb_wall:.1f}", f"{nb_wall / size:.2f}",
                             f"{nb_peak:.0f}", f"{nb_wall / kit_wall:.1f}x"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)))


if __name__ == "__main__":
    main()
