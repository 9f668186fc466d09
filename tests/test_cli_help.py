"""A command line that explains itself: what the tool does, help for every option, and where to look next."""
from __future__ import annotations

import argparse

from autograder.cli import FORMAT_HELP, build_parser
from autograder.commands import where_next
from autograder.model.results import ExerciseResult, Status, SubmissionResult
from autograder.report import formats
from helpers import run_autograder


def parsers(parser: argparse.ArgumentParser, name: str = "autograder"):
    """Every parser of the command line (the top one, each command, each of their sub-commands), by name."""
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub_name, sub in action.choices.items():
                yield from parsers(sub, f"{name} {sub_name}")


def test_help_says_what_the_tool_does_and_how_to_start():
    done = run_autograder("--help")
    assert done.returncode == 0
    assert "Grade TensorFlow autodiff notebooks" in done.stdout and "argparse" not in done.stdout
    for start in ("autograder grade ", "--feedback-dir", "autograder course init"):
        assert start in done.stdout, start
    for command in ("grade", "merge", "report", "course", "gradescope-bundle", "worker"):
        assert f"\n    {command}" in done.stdout, command  # each command listed with its one-line help


def test_every_option_and_argument_of_every_command_has_help():
    missing = [f"{name}: {action.option_strings or action.dest}"
               for name, parser in parsers(build_parser()) for action in parser._actions
               if not isinstance(action, argparse._SubParsersAction) and not (action.help or "").strip()]
    assert missing == []
    for name, parser in parsers(build_parser()):
        subcommands = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        for action in subcommands:
            assert all((choice.help or "").strip() for choice in action._choices_actions), name


def test_format_help_lists_every_format_with_what_it_writes():
    for name, parser in parsers(build_parser()):
        for action in parser._actions:
            if "--format" in action.option_strings:
                for choice in action.choices:
                    assert f"{choice}: " in action.help, (name, choice)
    assert set(FORMAT_HELP) == {"text", "json", *formats.FORMATS}
    merge = run_autograder("merge", "--help").stdout
    assert "RESULTS.json" in merge and "`autograder grade --format json` output files" in merge


def result(student: str, score: float, submission: str) -> SubmissionResult:
    return SubmissionResult(submission, student, "custom_gradients",
                            [ExerciseResult("log1pexp", score, 2.0, Status.PASSED if score == 2 else Status.PARTIAL)])


def test_after_the_class_table_one_line_says_where_to_look_next():
    results = [result("ada", 2.0, "submitted/ada/custom_gradients/a.ipynb"),
               result("bram", 1.5, "submitted/bram/custom_gradients/my notebook.ipynb")]
    hint = where_next(results, None, 7)
    assert hint.count("\n") == 1 and hint.startswith("next: ")
    # one student's text: a submission that has something to read, as a command to paste (quoted), same cases
    assert "autograder grade 'submitted/bram/custom_gradients/my notebook.ipynb' --seed 7" in hint
    assert "--feedback-dir feedback" in hint
    pages = where_next(results, "out/pages", 7)
    assert pages.startswith("next: open out/pages-index.html") and pages.count("\n") == 1
