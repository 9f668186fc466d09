"""What the ``autograder`` commands do once their arguments are parsed (``cli`` parses and dispatches)."""
from __future__ import annotations

import os
import shlex
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console

from autograder import supported
from autograder.config import KIT_ROOT, GiB, Limits, SetupError, Settings, variable
from autograder.frontends import platform_outputs
from autograder.load.discover import find_submissions, in_shard
from autograder.pipeline.grading_run import grade
from autograder.report import formats
from autograder.report.class_plots import matplotlib_missing
from autograder.report.contract import to_json
from autograder.report.lms import RosterError
from autograder.report.numbers import number
from autograder.report.safe_text import cell, line
from autograder.report.text import class_table, submission_text
from autograder.store.atomic import write_atomically
from autograder.store.journal import Journal, beside
from autograder.store.merge import MergeError, merge_results

EXAMPLES = KIT_ROOT / "examples"


def merge_command(args) -> int:
    if problem := roster_problem(args):
        print(f"autograder: error: {problem}", file=sys.stderr)
        return 2
    try:
        results = merge_results([Path(path) for path in args.results])
    except MergeError as error:
        print(f"autograder: error: {error}", file=sys.stderr)
        return 2
    try:
        report = (to_json(results) if args.format == "json" else class_table(results) if args.format == "text"
                  else roster_report(args, results) if args.format in formats.ROSTER_FORMATS
                  else formats.render(args.format, results))
    except RosterError as error:
        print(f"autograder: error: {error}", file=sys.stderr)
        return 2
    if args.output:
        write_atomically(Path(args.output), report)
    else:
        sys.stdout.write(report)
    return 0


def roster_report(args, results) -> str:
    return platform_outputs.fill_lms(args.format, results, args.roster, args.lms_column, args.match_by)


def roster_problem(args) -> str | None:
    if args.format in formats.ROSTER_FORMATS and not args.roster:
        return f"--format {args.format} fills the gradebook exported from the LMS: give it with --roster EXPORT.csv"
    if args.roster and args.format not in formats.ROSTER_FORMATS:
        return "--roster is for --format canvas or moodle"
    if args.roster:
        try:
            platform_outputs.read_roster_file(args.format, args.roster)
        except RosterError as error:
            return str(error)
    return None


def arguments_problem(args, submissions: int) -> str | None:
    """What is wrong with the arguments of ``grade``, said before anything is graded."""
    if args.format in formats.ONE_SUBMISSION and submissions != 1:
        where = {"gradescope": "Gradescope grades one student at a time; see `autograder gradescope-bundle`",
                 "classroom50": "Classroom 50 grades one student's repository at a time",
                 "prairielearn": "PrairieLearn grades one submission at a time; see examples/prairielearn/"}[args.format]
        return (f"--format {args.format} writes one submission's result ({where}); {submissions} submissions found: "
                "grade one notebook")
    if problem := roster_problem(args):
        return problem
    if args.jobs < 1:
        return "--jobs must be at least 1"
    if args.report_dir and (missing := matplotlib_missing()):
        return missing
    return None


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
    """The feedback pages and the class report, when asked for; 2 when a folder cannot be written, or when the
    class report (every score, the seed) would be written inside the feedback folder handed to students."""
    from autograder.report.feedback_pages import page_links, write_feedback_pages
    from autograder.report.page_folders import inside
    if feedback_dir and report_dir and inside(Path(report_dir), Path(feedback_dir)):
        print(f"autograder: error: --report-dir {report_dir} is inside the feedback folder {feedback_dir}: the class "
              "report shows every student's score and the seed, so write it outside the folder handed to students",
              file=sys.stderr)
        return 2
    try:
        if feedback_dir:
            write_feedback_pages(results, Path(feedback_dir), seed)
        if report_dir:
            from autograder.report.class_report import write_class_report
            pages = page_links(results, Path(feedback_dir), Path(report_dir)) if feedback_dir else None
            write_class_report(results, Path(report_dir), sources=sources, seed=seed, pages=pages)
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
    if problem := arguments_problem(args, len(found)) or (tensorflow_problem() if not args.scheduler else None):
        print(f"autograder: error: {problem}", file=sys.stderr)  # said before grading, not after
        return 2
    settings = Settings(jobs=args.jobs, assignment=args.assignment, seed=args.seed, reuse_results=args.reuse_results,
                        solutions=Path(args.solutions) if args.solutions else None,
                        journal=beside(Path(args.output)) if args.output else None,
                        limits=Limits(submission_seconds=args.time_limit, memory_bytes=int(args.memory_limit * GiB),
                                      load_seconds=args.cell_time_limit, case_seconds=args.case_time_limit))
    runner = cluster_runner(args)
    started = time.monotonic()
    try:
        with progress_display(len(found)) as advance:
            graded = grade(found, settings, on_result=advance, runner=runner)
    except SetupError as error:
        print(f"autograder: error: {error}", file=sys.stderr)
        return 2
    finally:
        if runner is not None:
            runner.close()
    results, seed = graded.results, graded.seed
    elapsed = time.monotonic() - started
    in_runner = args.format == "classroom50" or variable("GITHUB_ACTIONS") == "true"
    shown = platform_outputs.named_by_runner(results) if in_runner else results  # the log's and summary's names
    if args.format == "json":
        report = to_json(results)
    elif args.format == "classroom50":  # the file is result.json; the log (stdout) shows the feedback
        platform_outputs.write_classroom50(shown[0], args.output)
        report = submission_text(shown[0])
    elif args.format in formats.ROSTER_FORMATS:
        try:
            report = roster_report(args, results)
        except RosterError as error:
            print(f"autograder: error: {error}", file=sys.stderr)
            return 2
    elif args.format in formats.FORMATS:
        report = formats.render(args.format, results, seed)
    elif not args.paths or len(results) > 1:
        details = "" if not args.paths else "\n".join(submission_text(r) for r in shown) + "\n"
        report = details + class_table(shown, seed) + (
            f"graded {len(results)} submission{'s' if len(results) != 1 else ''} in {elapsed:.1f} s "
            f"(seed {seed}; rerun with --seed {seed} for the same cases)\n") + where_next(results, args.feedback_dir, seed)
    elif variable("GITHUB_ACTIONS") == "true":  # a student's repository: its log is the student's
        report = submission_text(shown[0])
    else:
        report = submission_text(results[0]) + f"(seed {seed})\n"
    if args.output and args.format != "classroom50":  # classroom50's --output is result.json, written above
        write_atomically(Path(args.output), report)
    else:
        sys.stdout.write(report)
    if settings.journal is not None:
        Journal(settings.journal).clear()  # complete: nothing left to resume
    if write_html(shown, args.feedback_dir, args.report_dir, seed) != 0:
        return 2
    if args.step_summary:
        platform_outputs.append_step_summary(shown, args.fail_under)
    for submission, why in graded.unreadable:  # each has its result above; exit 1 says to look at them
        print(f"autograder: error: {line(submission)} could not be graded: {line(why)}", file=sys.stderr)
    below = [r for r in results if args.fail_under is not None and r.score < args.fail_under]
    if below:
        print(f"autograder: {len(below)} submission{'s' if len(below) != 1 else ''} scored below --fail-under "
              f"{number(args.fail_under)}: " + ", ".join(f"{line(r.submission)} ({number(r.score)})" for r in below),
              file=sys.stderr)
    return 1 if below or graded.unreadable else 0


def where_next(results, feedback_dir: str | None, seed: int) -> str:
    """The line after the class table: where the details are (the feedback pages, or one student's text)."""
    if feedback_dir:
        from autograder.report.page_folders import index_path
        index = os.path.relpath(index_path(Path(feedback_dir)))
        return (f"next: open {index} (for you: every score links to that submission's page; hand each student "
                f"their own folder of {feedback_dir})\n")
    example = min(results, key=lambda r: (r.score >= r.max_score, r.submission))  # a submission with feedback
    path = line(example.submission)
    if os.path.isabs(path) and not (relative := os.path.relpath(path)).startswith(".."):
        path = relative  # the default class, given as the kit's absolute path: as typed from here
    return (f"next: one student's feedback as text: autograder grade {shlex.quote(path)} "
            f"--seed {seed}; a feedback page per submission: add --feedback-dir feedback\n")


def cluster_runner(args):
    """The Dask cluster's runner when ``--scheduler`` is given, else None (this machine's fork server)."""
    if not args.scheduler:
        return None
    from autograder.frontends.dask_client import ClusterOptions, ClusterRunner

    return ClusterRunner(ClusterOptions(args.scheduler, args.tls_ca_file, args.tls_cert, args.tls_key))


def worker_command(args) -> int:
    """`autograder worker`: become `dask worker` with one thread per process and the kit's fork server."""
    if problem := "--nworkers must be at least 1" if args.nworkers < 1 else tensorflow_problem():
        print(f"autograder: error: {problem}", file=sys.stderr)
        return 2
    try:
        from autograder.frontends import dask_worker
    except ImportError:
        print("autograder: error: `autograder worker` needs Dask distributed: pip install -e '.[cluster]'",
              file=sys.stderr)
        return 2
    dask_worker.start_workers(dask_worker.worker_command(
        args.scheduler, args.nworkers, args.name, args.tls_ca_file, args.tls_cert, args.tls_key,
        args.local_directory))
    return 0  # not reached: the process became `dask worker`


def tensorflow_problem() -> str | None:
    """Why this machine's TensorFlow cannot run the grader's children (one line with the fix), from pip's
    metadata: the parent never imports TensorFlow. A release newer than the tested ones gets a note."""
    if note := supported.note():
        print(f"autograder: {note}", file=sys.stderr)
    return supported.problem()


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
        yield lambda result: bar.update(task, advance=1,
                                        description=cell(f"{result.student}: {number(result.score)}").markup)
