"""The ``autograder`` command line: argparse and dispatch (what each command does is ``commands``)."""
from __future__ import annotations

import argparse
import os

from autograder import __version__, commands
from autograder.config import GiB, Limits
from autograder.course import ASSIGNMENT_IDS
from autograder.report import formats

DESCRIPTION = """\
Grade TensorFlow autodiff notebooks (the kit's four assignments: custom_gradients, higher_order, jacobians, implicit)
against the course's reference solutions. Each submission runs apart from the grader, is compared with the
reference on fixed edge cases and random cases, gets partial credit, and is told which classic mistake it
made, where in its code, and how to fix it."""

MAIN_EPILOG = """\
start here:
  autograder grade                                      grade the bundled example class: a class table
  autograder grade submitted/ --feedback-dir feedback   grade a class, with an HTML feedback page per submission
  autograder grade path/to/notebook.ipynb               one student's feedback as text
  autograder course init my-course --example-class      an nbgrader course of your own (formgrader included)

`autograder COMMAND --help` describes a command and its options."""

FORMAT_HELP = {
    "text": "per submission a mark per exercise, the points and the feedback, then a class table for several",
    "json": "the contract's JSON: a list, one object per submission",
    "gradescope": "Gradescope's results.json (one submission; feedback in Markdown)",
    "junit": "JUnit XML, a testsuite per submission (CI dashboards)",
    "csv": "the kit's gradebook, a row per student",
    "classroom50": "Classroom 50: writes ./result.json and release-body.md, prints the feedback (one submission)",
    "prairielearn": "PrairieLearn's external grader results.json (one submission; score 0..1, a test per exercise)",
    "canvas": "Canvas's gradebook export (--roster) with this run's points in one column",
    "moodle": "Moodle's gradebook export (--roster) with this run's points in one column",
}


def format_help(choices: tuple[str, ...], default: str, **instead: str) -> str:
    """--format's help: every format and what it writes (``instead``: this command's own words for one)."""
    listed = "; ".join(f"{name}: {instead.get(name, FORMAT_HELP[name])}" for name in choices)
    return (f"what to write (default: {default}). {listed}").replace("%", "%%")


GRADE_EPILOG = """\
exit status: 0 grading completed (whatever the scores, unless --fail-under); 1 the report is written, but
some submission could not be graded (not a notebook or .py file, unreadable, or its assignment unknown:
stderr names each, and its result says why) or scored below --fail-under; 2 the grader could not run (bad
arguments, no such file, unknown assignment, reference solutions missing)."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="autograder", description=DESCRIPTION, epilog=MAIN_EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"autograder {__version__}",
                        help="print the kit's version and exit")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    grade_cmd = commands.add_parser(
        "grade", help="grade submissions (notebooks, .py files, directories)",
        description="Grade submissions against the reference solutions. With no PATH, grade the bundled\n"
                    "example class and print a class table.",
        epilog=GRADE_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    grade_cmd.add_argument("paths", nargs="*", metavar="PATH", help="a .ipynb notebook, a .py file or a directory of them")
    grade_cmd.add_argument("--assignment", choices=ASSIGNMENT_IDS,
                           help="grade every submission as this assignment (default: from the notebook)")
    grade_formats = ("text", "json", *formats.FORMATS)
    grade_cmd.add_argument("--format", choices=grade_formats, default="text", metavar="FORMAT",
                           help=format_help(grade_formats, "text"))
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
                                "and, beside DIR, the instructor's index DIR-index.html")
    grade_cmd.add_argument("--report-dir", metavar="DIR",
                           help="also write the class report (DIR/index.html with plots; needs matplotlib)")
    grade_cmd.add_argument("--step-summary", action="store_true",
                           help="also append the points and the feedback to the GitHub Actions job summary "
                                "($GITHUB_STEP_SUMMARY)")
    add_lms_arguments(grade_cmd)
    cluster = grade_cmd.add_argument_group("grading over a Dask cluster (pip install -e '.[cluster]')")
    cluster.add_argument("--scheduler", metavar="ADDRESS",
                         help="run the submissions on the `autograder worker`s of this Dask scheduler (tcp:// or "
                              "tls://HOST:8786); judging, the journal and the reports stay here (--jobs is ignored)")
    add_tls_options(cluster, "the client's")
    worker_cmd = commands.add_parser(
        "worker", help="start Dask workers that grade for `autograder grade --scheduler`",
        description="Start N Dask worker processes (one thread each, `dask worker --nthreads 1 --preload "
                    "autograder.frontends.dask_worker`), each with the kit's fork server beside it, attached to "
                    "the Dask scheduler at SCHEDULER_ADDRESS (start one with `dask scheduler`).")
    worker_cmd.add_argument("scheduler", metavar="SCHEDULER_ADDRESS", help="e.g. tcp://10.0.0.5:8786")
    worker_cmd.add_argument("--nworkers", type=int, default=os.cpu_count() or 1, metavar="N",
                            help="worker processes, one submission at a time each (default: the number of cores)")
    worker_cmd.add_argument("--name", help="the workers' name (Dask appends -0, -1, ... with several)")
    worker_cmd.add_argument("--local-directory", metavar="DIR", help="Dask's scratch folder (default: Dask's)")
    add_tls_options(worker_cmd, "the worker's")
    merge_cmd = commands.add_parser("merge", help="join the JSON results of shards into one",
                                    description="Join `autograder grade --format json` results (of shards run "
                                                "anywhere) into one list, in path order.")
    merge_cmd.add_argument("results", nargs="+", metavar="RESULTS.json",
                           help="`autograder grade --format json` output files (shards, or one file per assignment)")
    merge_formats = ("json", "text", "junit", "csv", *formats.ROSTER_FORMATS)
    merge_cmd.add_argument("--format", choices=merge_formats, default="json", metavar="FORMAT",
                           help=format_help(merge_formats, "json", text="the class table"))
    merge_cmd.add_argument("--output", metavar="FILE", help="write here instead of stdout")
    add_lms_arguments(merge_cmd)
    report_cmd = commands.add_parser(
        "report", help="write the class report (HTML with plots) from grading results",
        description="Write DIR/index.html, a class report with plots (score distribution per assignment, how "
                    "often each pitfall occurred, pass rate per exercise) and the numbers behind them, from "
                    "`autograder grade --format json` results (several files are joined as `merge` does).")
    report_cmd.add_argument("results", nargs="+", metavar="RESULTS.json",
                            help="`autograder grade --format json` output files (joined as `merge` joins them)")
    report_cmd.add_argument("--out", metavar="DIR", required=True, help="the report's folder")
    report_cmd.add_argument("--feedback-dir", metavar="DIR",
                            help="also write the feedback pages of these results (as `grade --feedback-dir`)")
    course_cmd = commands.add_parser(
        "course", help="lay out an nbgrader course of your own (`course init DIR`)",
        description="Lay out an nbgrader course that grades with the kit, as `nbgrader quickstart` does for "
                    "nbgrader's demo.")
    course_actions = course_cmd.add_subparsers(dest="action", required=True, metavar="ACTION")
    init_cmd = course_actions.add_parser(
        "init", help="write a new course folder",
        description="Write DIR: the kit's solutions as nbgrader's source (solutions/), the released notebooks "
                    "(assignments/), nbgrader_config.py, a course-local exchange (exchange/), the gradebook, and "
                    "submitted/ (empty, or the example class). Run nbgrader's commands in DIR afterwards.")
    init_cmd.add_argument("directory", metavar="DIR", help="the course's folder: new, or empty")
    init_cmd.add_argument("--example-class", action="store_true",
                          help="put the kit's example class (examples/submitted) in submitted/ to try the workflow")
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
    bundle_cmd.add_argument("--seed", type=int, metavar="N",
                            help="the course's secret seed of the hidden cases, kept in the zip (students never see "
                                 "it); default: a seed drawn per run")
    bundle_cmd.add_argument("--timeout", type=int, default=540, metavar="SECONDS",
                            help="time for grading one submission before a score-0 result is written "
                                 "(default: %(default)s; keep Gradescope's own timeout longer)")
    return parser


def add_lms_arguments(command: argparse.ArgumentParser) -> None:
    lms = command.add_argument_group("LMS gradebooks (--format canvas or moodle)")
    lms.add_argument("--roster", metavar="EXPORT.csv",
                     help="the gradebook exported from Canvas or Moodle: its students, filled with the points")
    lms.add_argument("--lms-column", metavar="TITLE",
                     help='the column to fill, e.g. "Custom gradients (1234)" for a Canvas assignment '
                          "(default: a column titled with the assignment's id, added when missing)")
    lms.add_argument("--match-by", metavar="COLUMN",
                     help="the roster column that holds the kit's student ids (default: Canvas: SIS Login ID, "
                          "then SIS User ID, then Student; Moodle: Username, then ID number, then Email address)")


def add_tls_options(parser, whose: str) -> None:
    parser.add_argument("--tls-ca-file", metavar="PEM", help="CA certificate(s) of the cluster's TLS")
    parser.add_argument("--tls-cert", metavar="PEM", help=f"{whose} TLS certificate")
    parser.add_argument("--tls-key", metavar="PEM", help=f"{whose} TLS private key")


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
        return commands.grade_command(args)
    if args.command == "worker":
        return commands.worker_command(args)
    if args.command == "merge":
        return commands.merge_command(args)
    if args.command == "report":
        return commands.report_command(args)
    if args.command == "course":
        from autograder.frontends.nbgrader_course import course_command
        return course_command(args)
    if args.command == "gradescope-bundle":
        from autograder.frontends.gradescope_bundle import bundle_command
        return bundle_command(args)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
