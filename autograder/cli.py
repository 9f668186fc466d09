"""The ``autograder`` command line."""
from __future__ import annotations

import argparse
import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console

from autograder import __version__
from autograder.config import KIT_ROOT, GiB, Limits, SetupError, Settings
from autograder.course import ASSIGNMENT_IDS
from autograder.load.discover import find_submissions, in_shard
from autograder.pipeline import grade
from autograder.report import formats
from autograder.report.class_report import matplotlib_missing
from autograder.report.contract import to_json
from autograder.report.numbers import number
from autograder.report.text import class_table, submission_text
from autograder.store.atomic import write_atomically
from autograder.store.journal import Journal, beside
from autograder.store.merge import MergeError, merge_results

EXAMPLES = KIT_ROOT / "examples"
GRADE_EPILOG = """\
formats: text (default) and json (the contract's JSON); gradescope (results.json, one submission);
junit (XML, a testsuite per submission); csv (gradebook, a row per student); classroom (GitHub
Classroom: prints the feedback and points, and appends result=<base64 JSON> to $GITHUB_OUTPUT when set).

exit status: 0 grading completed (whatever the scores, unless --fail-under); 1 some submission scored
below --fail-under (the report is still written); 2 the grader could not run (bad arguments, no such
file, unknown assignment, reference solutions missing)."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="autograder", description=__doc__)
    parser.add_argument("--version", action="version", version=f"autograder {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    grade_cmd = commands.add_parser(
        "grade", help="grade submissions (notebooks, .py files, directories)",
        description="Grade submissions against the reference solutions. With no PATH, grade the bundled "
                    "example class and print a class table.",
        epilog=GRADE_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    grade_cmd.add_argument("paths", nargs="*", metavar="PATH", help=".ipynb, .py or a directory of them")
    grade_cmd.add_argument("--assignment", choices=ASSIGNMENT_IDS,
                           help="grade every submission as this assignment (default: from the notebook)")
    grade_cmd.add_argument("--format", choices=("text", "json", *formats.FORMATS), default="text")
    grade_cmd.add_argument("--output", metavar="FILE", help="write the report here instead of stdout")
    grade_cmd.add_argument("--seed", type=int, help="seed of the random cases (default: chosen per run)")
    grade_cmd.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                           help="submissions graded at once (default: the number of cores)")
    grade_cmd.add_argument("--solutions", metavar="DIR", help="the course's solutions/ directory")
    grade_cmd.add_argument("--time-limit", type=float, default=Limits.submission_seconds, metavar="SECONDS",
                           help="wall time per submission (default: %(default)s)")
    grade_cmd.add_argument("--case-time-limit", type=float, metavar="SECONDS",
                           help="cap on each case's time limit (default: each exercise's own, 20-30 s)")
    grade_cmd.add_argument("--cell-time-limit", type=float, default=Limits.load_seconds, metavar="SECONDS",
                           help="time for one notebook cell while loading (default: %(default)s)")
    grade_cmd.add_argument("--shard", metavar="K/N", type=parse_shard,
                           help="grade only the K-th of N deterministic shares of the submissions (needs --seed); "
                                "join the shards' JSON with `autograder merge`")
    grade_cmd.add_argument("--memory-limit", type=float, default=Limits.memory_bytes / GiB, metavar="GiB",
                           help="memory per submission (default: %(default)s)")
    grade_cmd.add_argument("--reuse-results", action="store_true",
                           help="take the grade an earlier run kept (in the cache folder) for a submission that runs "
                                "the same code, with the same seed, solutions, grader and limits, instead of running "
                                "it again (nbgrader's graded cells pass this: grade the class first, autograde after)")
    grade_cmd.add_argument("--fail-under", type=float, metavar="SCORE",
                           help="exit with status 1 when any submission scores below SCORE points")
    grade_cmd.add_argument("--feedback-dir", metavar="DIR",
                           help="also write an HTML feedback page per submission (DIR/<student>/<assignment>.html) "
                                "and DIR/index.html")
    grade_cmd.add_argument("--report-dir", metavar="DIR",
                           help="also write the class report (DIR/index.html with plots; needs matplotlib)")
    merge_cmd = commands.add_parser("merge", help="join the JSON results of shards into one",
                                    description="Join `autograder grade --format json` results (of shards run "
                                                "anywhere) into one list, in path order.")
    merge_cmd.add_argument("results", nargs="+", metavar="RESULTS.json")
    merge_cmd.add_argument("--format", choices=("text", "json", "junit", "csv"), default="json")
    merge_cmd.add_argument("--output", metavar="FILE", help="write here instead of stdout")
    report_cmd = commands.add_parser(
        "report", help="write the class report (HTML with plots) from grading results",
        description="Write DIR/index.html, a class report with plots (score distribution per assignment, how "
                    "often each pitfall occurred, pass rate per exercise) and the numbers behind them, from "
                    "`autograder grade --format json` results (several files are joined as `merge` does).")
    report_cmd.add_argument("results", nargs="+", metavar="RESULTS.json")
    report_cmd.add_argument("--out", metavar="DIR", required=True, help="the report's folder")
    report_cmd.add_argument("--feedback-dir", metavar="DIR",
                            help="also write the feedback pages of these results (as `grade --feedback-dir`)")
    bundle_cmd = commands.add_parser(
        "gradescope-bundle", help="write the autograder zip to upload to Gradescope",
        description="Write the zip to upload as a Gradescope programming assignment's autograder: setup.sh, "
                    "run_autograder, the kit and the assignment's reference solution. Each student's notebook is "
                    "graded as ASSIGNMENT_ID; results.json is always written (score 0 and the reason when "
                    "there is no notebook or grading fails).")
    bundle_cmd.add_argument("assignment", choices=ASSIGNMENT_IDS, metavar="ASSIGNMENT_ID",
                            help=f"one of {', '.join(ASSIGNMENT_IDS)}")
    bundle_cmd.add_argument("--output", metavar="FILE.zip", help="default: gradescope-ASSIGNMENT_ID.zip")
    bundle_cmd.add_argument("--solutions", metavar="DIR", help="the course's solutions/ directory")
    bundle_cmd.add_argument("--visibility", choices=formats.VISIBILITIES, default="visible",
                            help="when students see the tests (Gradescope's values; default: %(default)s)")
    bundle_cmd.add_argument("--timeout", type=int, default=540, metavar="SECONDS",
                            help="time for grading one submission before a score-0 result is written "
                                 "(default: %(default)s; keep Gradescope's own timeout longer)")
    return parser


def parse_shard(text: str) -> tuple[int, int]:
    try:
        k, n = (int(part) for part in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not K/N, e.g. 2/8") from None
    if not 1 <= k <= n:
        raise argparse.ArgumentTypeError(f"{text!r}: K must be between 1 and N")
    return k, n


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "grade":
        return grade_command(args)
    if args.command == "merge":
        return merge_command(args)
    if args.command == "report":
        return report_command(args)
    if args.command == "gradescope-bundle":
        from autograder.frontends.gradescope_bundle import bundle_command
        return bundle_command(args)
    return 2


def merge_command(args) -> int:
    try:
        results = merge_results([Path(path) for path in args.results])
    except MergeError as error:
        print(f"autograder: error: {error}", file=sys.stderr)
        return 2
    report = (to_json(results) if args.format == "json" else class_table(results) if args.format == "text"
              else formats.render(args.format, results))
    if args.output:
        write_atomically(Path(args.output), report)
    else:
        sys.stdout.write(report)
    return 0


def report_command(args) -> int:
    if missing := matplotlib_missing():
        print(f"autograder: error: {missing}", file=sys.stderr)
        return 2
    try:
        results = merge_results([Path(path) for path in args.results])
    except MergeError as error:
        print(f"autograder: error: {error}", file=sys.stderr)
        return 2
    return write_html(results, args.feedback_dir, args.out, None, sources=args.results)


def write_html(results, feedback_dir: str | None, report_dir: str | None, seed: int | None,
               sources: list[str] | None = None) -> int:
    """The feedback pages and the class report, when asked for; 2 when a folder cannot be written."""
    try:
        if feedback_dir:
            from autograder.report.feedback_pages import write_feedback_pages
            write_feedback_pages(results, Path(feedback_dir), seed)
        if report_dir:
            from autograder.report.class_report import write_class_report
            write_class_report(results, Path(report_dir), sources=sources, seed=seed)
    except OSError as error:
        print(f"autograder: error: cannot write the HTML pages: {error}", file=sys.stderr)
        return 2
    return 0


def grade_command(args) -> int:
    paths = args.paths or [str(EXAMPLES)]
    found, missing = find_submissions(paths)
    for path in missing:
        print(f"autograder: error: {path}: no such file or directory", file=sys.stderr)
    if missing:
        return 2
    if not found:
        print(f"autograder: error: no .ipynb or .py submissions found in {', '.join(paths)}", file=sys.stderr)
        return 2
    if args.shard:
        if args.seed is None:
            print("autograder: error: --shard needs --seed, so that every shard grades on the same cases",
                  file=sys.stderr)
            return 2
        found = in_shard(found, *args.shard)
    if args.format == "gradescope" and len(found) != 1:
        print(f"autograder: error: --format gradescope writes one submission's results.json (Gradescope grades one "
              f"student at a time); {len(found)} submissions found: grade one notebook, or see "
              "`autograder gradescope-bundle`", file=sys.stderr)
        return 2
    if args.jobs < 1:
        print("autograder: error: --jobs must be at least 1", file=sys.stderr)
        return 2
    if args.report_dir and (missing := matplotlib_missing()):  # say so before grading, not after
        print(f"autograder: error: {missing}", file=sys.stderr)
        return 2
    settings = Settings(jobs=args.jobs, assignment=args.assignment, seed=args.seed, reuse_results=args.reuse_results,
                        solutions=Path(args.solutions) if args.solutions else None,
                        journal=beside(Path(args.output)) if args.output else None,
                        limits=Limits(submission_seconds=args.time_limit, memory_bytes=int(args.memory_limit * GiB),
                                      load_seconds=args.cell_time_limit, case_seconds=args.case_time_limit))
    started = time.monotonic()
    try:
        with progress_display(len(found)) as advance:
            graded = grade(found, settings, on_result=advance)
    except SetupError as error:
        print(f"autograder: error: {error}", file=sys.stderr)
        return 2
    results, seed = graded.results, graded.seed
    elapsed = time.monotonic() - started
    if args.format == "json":
        report = to_json(results)
    elif args.format in formats.FORMATS:
        report = formats.render(args.format, results, seed)
        if args.format == "classroom" and formats.publish_classroom(results) is None:
            report += "(GITHUB_OUTPUT is not set: no runner result written for the Classroom reporter)\n"
    elif not args.paths or len(results) > 1:
        details = "" if not args.paths else "\n".join(submission_text(r) for r in results) + "\n"
        report = details + class_table(results, seed) + (
            f"graded {len(results)} submission{'s' if len(results) != 1 else ''} in {elapsed:.1f} s "
            f"(seed {seed}; rerun with --seed {seed} for the same cases)\n")
    else:
        report = submission_text(results[0]) + f"(seed {seed})\n"
    if args.output:
        write_atomically(Path(args.output), report)
        Journal(settings.journal).clear()  # complete: nothing left to resume
    else:
        sys.stdout.write(report)
    if write_html(results, args.feedback_dir, args.report_dir, seed) != 0:
        return 2
    below = [r for r in results if args.fail_under is not None and r.score < args.fail_under]
    if below:
        print(f"autograder: {len(below)} submission{'s' if len(below) != 1 else ''} scored below --fail-under "
              f"{number(args.fail_under)}: " + ", ".join(f"{r.submission} ({number(r.score)})" for r in below),
              file=sys.stderr)
        return 1
    return 0


@contextmanager
def progress_display(total: int):
    """A progress bar on a terminal (stderr), nothing on a pipe or a file: logs and CI output stay clean."""
    if not sys.stderr.isatty():
        yield lambda result: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("grading"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("{task.description}"))
    with Progress(*columns, console=Console(file=sys.stderr), transient=True) as bar:
        task = bar.add_task("", total=total)
        yield lambda result: bar.update(task, advance=1, description=f"{result.student}: {number(result.score)}")


if __name__ == "__main__":
    raise SystemExit(main())
