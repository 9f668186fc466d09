"""Grade a class of N submissions with the kit and with `nbgrader autograde`, side by side.

    .venv/bin/python benchmarks/class_speed.py            # N = 20 (both tools) and N = 200 (the kit)
    .venv/bin/python benchmarks/class_speed.py --sizes 20 --skip-nbgrader

The class is built from the example class (examples/submitted), copied round-robin into students
s000, s001, ... so that each size has the example class's mix of assignments and mistakes. Every copy
gets a comment line of its own in its first solution cell, so no two files have the same bytes: the
kit's grading of byte-identical submissions once (dedupe) cannot help, every submission really runs.

The kit runs three times per size: with an empty reference cache (it runs the reference solutions and the
mistake models itself: a first run with a new seed), and twice with the reference outcomes kept by an earlier
run with the same seed (AUTOGRADER_CACHE; what a second run, a regrade, or a class graded in shards pays):
first without the times the first run kept of each program (the order a first grading of these programs
has: by assignment), then with them (a regrade's: longest first by each program's own time).
``--dedupe-row`` adds, for sizes above the example class's 29 notebooks, a run of a class whose copies of
the same example run the SAME code and differ only as re-saved notebooks do (metadata), to show what
grading each program once saves, apart.

``--nbgrader-reuse-row`` adds (N = 20) an instructor's nbgrader workflow with the kit first: `autograder
grade submitted --seed 2026` on the course, then `nbgrader autograde`, whose graded cells reuse the kept
grades (--reuse-results); its wall time is both commands together.

The floor row is what no isolated grader can beat on these cases: every example notebook's own code on
its exercises' cases, run one after another in ONE process that imported TensorFlow once (no fork, no
containment, no diagnosis, no reference; warm caches shared by all notebooks), then for a class of N
copies: the import plus the sum of the copies' times divided by the cores. That division is an ideal no
process pair reaches on a real machine (two busy cores slow each other), so a second floor row is measured:
``--jobs`` warm processes at once, each importing TensorFlow and running its share of the copies (shared
longest first, as the kit shares its submissions). ``--skip-floor`` leaves both out.

Printed per run: wall time, the median time per submission (the kit: each submission's time in its
worker, from the grader's results; nbgrader: the time between consecutive notebooks in its log; the
floor: each notebook's time in the warm process), the CPU seconds of every process of the run (the kit:
the grader, its fork server and every child, from the kernel's accounting of reaped children; the floor:
its import plus each copy's notebook, measured in its process), the largest resident memory of any one
process (sampled from /proc), and nbgrader's wall time over the kit's (and over the floor's). On a machine
that other work loads, wall times stretch by however busy it was at that moment; CPU seconds much less:
compare the kit with the floor in CPU seconds there.
A measurement, not a test.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def examples() -> list[Path]:
    return sorted((ROOT / "examples" / "submitted").glob("*/*/*.ipynb"))


def copies_of(size: int) -> list[Path]:
    """The example notebooks a class of ``size`` copies is made of, round-robin."""
    sources = examples()
    return [sources[number % len(sources)] for number in range(size)]


def build_class(folder: Path, size: int, distinct: bool = True) -> list[Path]:
    """``distinct``: each copy's code differs by a comment; else copies run the same code and differ only as
    notebooks re-saved by JupyterLab do (execution counts, metadata), so they differ in bytes all the same."""
    made = []
    for number, source in enumerate(copies_of(size)):
        assignment = source.parent.name
        target = folder / "submitted" / f"s{number:03d}" / assignment / source.name
        target.parent.mkdir(parents=True, exist_ok=True)
        notebook = json.loads(source.read_text(encoding="utf-8"))
        if distinct:
            cell = next(c for c in notebook["cells"] if c["cell_type"] == "code"
                        and c.get("metadata", {}).get("nbgrader", {}).get("solution"))
            lines = cell["source"] if isinstance(cell["source"], list) else cell["source"].splitlines(True)
            if lines and not lines[-1].endswith("\n"):
                lines[-1] += "\n"
            cell["source"] = lines + [f"# handed in by s{number:03d}"]
        else:
            notebook["metadata"]["saved_by"] = f"s{number:03d}"
        target.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        made.append(target)
    assert len({p.read_bytes() for p in made}) == len(made), "copies must differ in bytes"
    return made


def environment(**extra: str) -> dict[str, str]:
    from autograder.config import quiet_environment

    env = quiet_environment()
    env["PATH"] = f"{BIN}{os.pathsep}{env['PATH']}"
    env.update(extra)
    return env


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, str]:
    """Wall seconds, the largest resident MiB of any one process the command started (sampled 5 times a
    second), and its stderr."""
    return cpu_timed(command, cwd, env)[:3]


def cpu_timed(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, str, float]:
    """``timed``, and the CPU seconds of the command and every process it reaped (which reaped theirs)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    with tempfile.TemporaryFile("w+") as errors:
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=errors, text=True)
        peak = 0
        while process.poll() is None:
            peak = max([peak, *(rss for _, rss in descendants(process.pid))])
            time.sleep(0.2)
        wall = time.monotonic() - started
        errors.seek(0)
        stderr = errors.read()
    if process.returncode != 0:
        raise SystemExit(f"{command[:4]} failed:\n{stderr[-3000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, peak / 2**20, stderr, cpu


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


def kit(folder: Path, jobs: int, cache: Path) -> dict:
    """`autograder grade` on the class, through this script's --kit-run (the CLI itself, plus a record of
    each submission's time)."""
    seconds = folder / "seconds.json"
    wall, peak, _, cpu = cpu_timed([sys.executable, str(Path(__file__).resolve()), "--kit-run", str(seconds), "--",
                                    "grade", str(folder), "--jobs", str(jobs), "--seed", "1", "--format", "json",
                                    "--output", str(folder / "results.json")], ROOT,
                                   environment(AUTOGRADER_CACHE=str(cache)))
    per = json.loads(seconds.read_text())
    return {"wall": wall, "peak": peak, "median": statistics.median(v for _, v in per), "count": len(per),
            "assignments": medians_by_assignment(per), "cpu": cpu}


def medians_by_assignment(per: list[tuple[str, float]]) -> dict[str, float]:
    """(assignment, seconds) pairs -> each assignment's median seconds."""
    by_assignment: dict[str, list[float]] = {}
    for assignment, value in per:
        by_assignment.setdefault(assignment, []).append(value)
    return {a: statistics.median(v) for a, v in sorted(by_assignment.items())}


def kit_run(seconds_file: str, argv: list[str]) -> int:
    """Run the CLI as `autograder` does, noting each result's seconds (its time in the worker)."""
    from autograder import cli, commands

    noted: list[tuple[str, float]] = []
    grade = commands.grade

    def noting(found, settings, on_result=None, **more):  # `grade`'s other arguments (its runner) pass through
        def both(result):
            noted.append((result.assignment, result.seconds))
            if on_result:
                on_result(result)
        return grade(found, settings, on_result=both, **more)

    commands.grade = noting
    status = cli.main(argv)
    Path(seconds_file).write_text(json.dumps(noted))
    return status


def floor_run(output: str, count: int | None = None, listed: str | None = None) -> int:
    """The least any isolated grader could pay: every example notebook's own code on its exercises' cases
    (seed 1, the kit's runs' seed), one after another in ONE warm process that imported TensorFlow once,
    with no fork, no containment, no reading, no diagnosis and no reference. Written as JSON: the import's
    seconds and each notebook's seconds (its cells, then every case of every exercise). ``listed``: a JSON
    file of the notebooks to run instead (paths below ROOT, repeats allowed: one share of a class), whose
    times are written in order as ``runs``."""
    import builtins
    import contextlib
    import io
    import signal

    started, started_cpu = time.perf_counter(), time.process_time()
    import autograder.run.child  # noqa: F401  (what the fork server imports: TensorFlow, Keras, the exercises)
    import tensorflow as tf

    from autograder.course import assignment_by_id
    from autograder.load.cells import read_submission
    from autograder.load.program import cells_for_child
    from autograder.run.isolation import Containment, _limits
    from autograder.run.probe import encoded_outputs

    imported, imported_cpu = time.perf_counter() - started, time.process_time() - started_cpu
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 2)  # the examples' pfor failures log pages of graph through TensorFlow's own handler
    # As in each child: one thread each, and the memory ceiling that stops a materialised 100,000 x 100,000
    # Jacobian at once (without it, allocating fails only after a minute of page faults).
    tf.config.threading.set_inter_op_parallelism_threads(1)
    tf.config.threading.set_intra_op_parallelism_threads(1)
    settings = Containment()
    _limits(settings, [])

    def on_alarm(*_):
        raise TimeoutError

    signal.signal(signal.SIGALRM, on_alarm)
    seconds, cpu, runs = {}, {}, []
    notebooks = ([ROOT / p for p in json.loads(Path(listed).read_text())] if listed
                 else examples()[:count])  # the first ``count``: those a class of fewer copies holds
    for notebook in notebooks:
        assignment = assignment_by_id(notebook.parent.name)
        namespace = {"__name__": "__main__", "__builtins__": builtins, "display": print}
        began, began_cpu = time.perf_counter(), time.process_time()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            for _, code, filename in cells_for_child(read_submission(notebook)):
                try:
                    signal.alarm(30)
                    exec(compile(code, filename, "exec"), namespace)  # noqa: S102  (the example class, trusted)
                except BaseException:  # noqa: BLE001  (the examples make mistakes on purpose)
                    pass
                finally:
                    signal.alarm(0)
            for exercise in assignment.exercises:
                for case in exercise.cases(1):
                    try:
                        signal.alarm(int(case.time_limit) + 1)
                        encoded_outputs(exercise, namespace[exercise.id], case.args)
                    except BaseException:  # noqa: BLE001
                        pass
                    finally:
                        signal.alarm(0)
        name = str(notebook.relative_to(ROOT))
        seconds[name], cpu[name] = time.perf_counter() - began, time.process_time() - began_cpu
        runs.append((notebook.parent.name, seconds[name]))
    Path(output).write_text(json.dumps({"import": imported, "notebooks": seconds, "import_cpu": imported_cpu,
                                        "cpu": cpu, "runs": runs}))
    return 0


def floor(scratch: Path, size: int) -> dict:
    """The floor's measure of every example notebook a class of ``size`` copies holds."""
    out = scratch / "floor.json"
    timed([sys.executable, str(Path(__file__).resolve()), "--floor-run", str(out), "--floor-notebooks",
           str(min(size, len(examples())))], ROOT, environment())
    return json.loads(out.read_text())


def floor_row(measured: dict, size: int, jobs: int) -> dict:
    """The class of ``size`` copies, at the floor: the import once, then the notebooks' own seconds shared
    perfectly among ``jobs`` cores."""
    copies = copies_of(size)
    per = [(source.parent.name, measured["notebooks"][str(source.relative_to(ROOT))]) for source in copies]
    cpu = measured["import_cpu"] + sum(measured["cpu"][str(source.relative_to(ROOT))] for source in copies)
    return {"wall": measured["import"] + sum(v for _, v in per) / jobs, "median": statistics.median(v for _, v in per),
            "assignments": medians_by_assignment(per), "cpu": cpu}


def floor_measured(scratch: Path, size: int, jobs: int, solo: dict) -> dict:
    """The floor as it really runs on ``jobs`` cores: ``jobs`` warm processes at once, each importing
    TensorFlow and then running its share of the class's copies, shared longest first by the solo floor's
    times (what the kit does with its submissions). Its wall time is the last process's end: what the
    division in ``floor_row`` leaves out is what two busy cores cost each other (and the import, paid by
    each process at once)."""
    copies = [str(source.relative_to(ROOT)) for source in copies_of(size)]
    shares: list[list[str]] = [[] for _ in range(jobs)]
    load = [0.0] * jobs
    for copy in sorted(copies, key=lambda c: -solo["notebooks"][c]):
        least = load.index(min(load))
        shares[least].append(copy)
        load[least] += solo["notebooks"][copy]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    processes = []
    for number, share in enumerate(shares):
        listed = scratch / f"floor-share-{size}-{number}.json"
        listed.write_text(json.dumps(share))
        processes.append(subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--floor-run",
                                           str(scratch / f"floor-measured-{size}-{number}.json"), "--floor-list",
                                           str(listed)], cwd=ROOT, env=environment(), stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL))
    if any(process.wait() != 0 for process in processes):
        raise SystemExit("a floor process failed")
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    per = [tuple(run) for number in range(jobs)
           for run in json.loads((scratch / f"floor-measured-{size}-{number}.json").read_text())["runs"]]
    return {"wall": wall, "median": statistics.median(v for _, v in per), "assignments": medians_by_assignment(per),
            "cpu": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)}


COURSE_SEED = "2026"  # nbgrader_config.py's AUTOGRADER_SEED
NBGRADER_LINE = re.compile(r"^\[(?P<time>[\d.]+)\] .*?(?:submitted|autograded)/(?P<student>[^/]+)/")


def nbgrader(folder: Path, cache: Path, graded_first: bool = False) -> dict:
    """A real nbgrader course: the release generated from solutions/, then `autograde` on every submission.
    ``graded_first``: the class is graded by the kit before (`autograder grade submitted --seed` with the
    course's seed, as docs/nbgrader.md suggests), so the graded cells reuse its grades; its time counts too."""
    shutil.copytree(ROOT / "solutions", folder / "solutions")
    shutil.copy(ROOT / "nbgrader_config.py", folder)
    env = environment(AUTOGRADER_CACHE=str(cache))
    for assignment in sorted(p.name for p in (folder / "solutions").iterdir()):
        timed([sys.executable, "-m", "nbgrader", "generate_assignment", assignment, "--force"], folder, env)
    walls, peaks, per, cpus = [], [], [], []
    if graded_first:
        wall, peak, _, cpu = cpu_timed([sys.executable, "-m", "autograder", "grade", "submitted", "--jobs", "2",
                                        "--seed", COURSE_SEED, "--solutions", "solutions", "--format", "json",
                                        "--output", "class.json"], folder, env)
        walls.append(wall)
        cpus.append(cpu)
        peaks.append(peak)
    for assignment in sorted({p.parent.name for p in (folder / "submitted").glob("*/*/*.ipynb")}):
        wall, peak, log, cpu = cpu_timed([sys.executable, "-m", "nbgrader", "autograde", assignment, "--force",
                                          "--Application.log_format=[%(created)f] %(message)s",
                                          "--Application.log_level=INFO"], folder, env)
        walls.append(wall)
        cpus.append(cpu)
        peaks.append(peak)
        # A notebook's time: from the first log line that names its student (sanitizing the submission) to
        # the last (writing the autograded notebook, after the course's executor, contained by default, ran it).
        spans: dict[str, list[float]] = {}
        for match in filter(None, map(NBGRADER_LINE.match, log.splitlines())):
            spans.setdefault(match["student"], []).append(float(match["time"]))
        per += [max(times) - min(times) for times in spans.values()]
    return {"wall": sum(walls), "peak": max(peaks), "median": statistics.median(per) if per else float("nan"),
            "cpu": sum(cpus), "count": len(per), "assignments": {}}


def main() -> None:
    from autograder.store.durations import FILE as DURATIONS  # the programs' times a kept cache holds

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 200])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--skip-nbgrader", action="store_true")
    parser.add_argument("--dedupe-row", action="store_true", help="also grade a class of copies that run the same code")
    parser.add_argument("--skip-floor", action="store_true")
    parser.add_argument("--nbgrader-reuse-row", action="store_true",
                        help="also time the kit's class run followed by nbgrader autograde reusing its grades")
    parser.add_argument("--kit-run", metavar="SECONDS_FILE", help=argparse.SUPPRESS)
    parser.add_argument("--floor-run", metavar="OUTPUT", help=argparse.SUPPRESS)
    parser.add_argument("--floor-notebooks", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--floor-list", help=argparse.SUPPRESS)
    args, rest = parser.parse_known_args()
    if args.floor_run:
        raise SystemExit(floor_run(args.floor_run, args.floor_notebooks, args.floor_list))
    if args.kit_run:
        raise SystemExit(kit_run(args.kit_run, rest[1:] if rest[:1] == ["--"] else rest))
    rows = [("tool", "N", "reference cache", "wall s", "s / submission (median)", "CPU s", "peak MiB",
             "nbgrader / kit")]
    details = []
    with tempfile.TemporaryDirectory(prefix="bench-") as scratch:
        scratch = Path(scratch)
        measured_floor = None if args.skip_floor else floor(scratch, max(args.sizes))
        for size in args.sizes:
            folder = scratch / f"kit{size}"
            build_class(folder, size)
            cold = kit(folder, args.jobs, scratch / f"cache-cold-{size}")  # empty: a first run with this seed
            # The outcomes the first run kept, first without its programs' times (the order by assignment that a
            # first grading of these programs has), then with them (a regrade's order: longest first by each
            # program's time in the run before, ``store.durations``).
            (scratch / f"cache-cold-{size}" / DURATIONS).unlink(missing_ok=True)
            unseen = kit(folder, args.jobs, scratch / f"cache-cold-{size}")
            warm = kit(folder, args.jobs, scratch / f"cache-cold-{size}")
            runs = [("empty", cold), ("kept, programs not seen before", unseen), ("kept", warm)]
            if args.dedupe_row and size > len(examples()):
                copies = scratch / f"copies{size}"
                build_class(copies, size, distinct=False)
                runs.append((f"kept, copies of {len(examples())} programs (each graded once)",
                             kit(copies, args.jobs, scratch / f"cache-cold-{size}")))
            nb = nb_reuse = None
            if size <= 20 and not args.skip_nbgrader:
                course = scratch / f"nbgrader{size}"
                build_class(course, size)
                nb = nbgrader(course, scratch / f"cache-nbgrader-{size}")
                if args.nbgrader_reuse_row:
                    course = scratch / f"nbgrader-reuse{size}"
                    build_class(course, size)
                    nb_reuse = nbgrader(course, scratch / f"cache-nbgrader-reuse-{size}", graded_first=True)
            for label, run in runs:
                ratio = f"{nb['wall'] / run['wall']:.1f}x" if nb and not label.startswith("kept,") else ""
                rows.append((f"autograder --jobs {args.jobs}", str(size), label, f"{run['wall']:.1f}",
                             f"{run['median']:.2f}", f"{run['cpu']:.1f}", f"{run['peak']:.0f}", ratio))
                details.append(f"  N = {size}, cache {label}: median s per submission by assignment: "
                               + ", ".join(f"{a} {s:.2f}" for a, s in run["assignments"].items()))
            if measured_floor:
                low = floor_row(measured_floor, size, args.jobs)
                ratio = f"{nb['wall'] / low['wall']:.1f}x" if nb else ""
                rows.append((f"floor on {args.jobs} cores, one process's sum / cores (no isolation)", str(size),
                             "not needed", f"{low['wall']:.1f}", f"{low['median']:.2f}", f"{low['cpu']:.1f}", "",
                             ratio))
                details.append(f"  N = {size}, floor: median s per submission by assignment: "
                               + ", ".join(f"{a} {s:.2f}" for a, s in low["assignments"].items()))
                real = floor_measured(scratch, size, args.jobs, measured_floor)
                rows.append((f"floor, {args.jobs} warm processes at once (measured, no isolation)", str(size),
                             "not needed", f"{real['wall']:.1f}", f"{real['median']:.2f}", f"{real['cpu']:.1f}",
                             "", f"{nb['wall'] / real['wall']:.1f}x" if nb else ""))
                details.append(f"  N = {size}, floor measured on {args.jobs} processes: median s per submission by "
                               "assignment: " + ", ".join(f"{a} {s:.2f}" for a, s in real["assignments"].items()))
                details.append(f"  N = {size}, kit with kept references over the floor: wall "
                               f"{warm['wall'] / low['wall']:.2f}x the division, {warm['wall'] / real['wall']:.2f}x "
                               f"the measured; CPU {warm['cpu'] / low['cpu']:.2f}x, {warm['cpu'] / real['cpu']:.2f}x; "
                               f"median per submission {warm['median'] / low['median']:.2f}x, "
                               f"{warm['median'] / real['median']:.2f}x")
                details.append(f"  N = {size}, the same, programs not seen before: wall "
                               f"{unseen['wall'] / low['wall']:.2f}x the division, "
                               f"{unseen['wall'] / real['wall']:.2f}x the measured; median per submission "
                               f"{unseen['median'] / low['median']:.2f}x, {unseen['median'] / real['median']:.2f}x")
            if nb:
                rows.append(("nbgrader autograde", str(size), "", f"{nb['wall']:.1f}", f"{nb['median']:.2f}",
                             f"{nb['cpu']:.1f}", f"{nb['peak']:.0f}", ""))
            if nb_reuse:
                rows.append(("autograder grade, then nbgrader autograde (graded cells reuse)", str(size), "empty",
                             f"{nb_reuse['wall']:.1f}", f"{nb_reuse['median']:.2f}", f"{nb_reuse['cpu']:.1f}",
                             f"{nb_reuse['peak']:.0f}", f"{nb['wall'] / nb_reuse['wall']:.1f}x"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)))
    print("\n".join(details))
    print("\nmarkdown:\n")
    print("| " + " | ".join(rows[0]) + " |")
    print("|" + "---|" * len(rows[0]))
    for row in rows[1:]:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
