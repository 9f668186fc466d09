"""Each assignment's corpus of submissions, graded for real: correct code in other styles passes clean, every
mistake is named and costs points.

tests/submissions/<assignment>/ holds one file per style or mistake, and expected.yaml says what the grader
must answer for each (the exact status and pitfalls of the exercises it is about, and the status of the
others). One real `autograder grade` run per assignment (seed 11), then one test per file.
"""
from __future__ import annotations

import re

import pytest
import yaml

from autograder.course import assignment_by_id
from autograder.model.pitfalls import PITFALL_IDS
from helpers import ASSIGNMENT_IDS, ROOT, by_file, exercise, grade_json, once_per_run

pytestmark = pytest.mark.slow

CORPUS = ROOT / "tests" / "submissions"
NAMED_IN_TEXT_ONLY = {"wrong-value", "not-implemented"}  # named in the list; the text says it its own way


def expectations(assignment: str) -> dict:
    return yaml.safe_load((CORPUS / assignment / "expected.yaml").read_text(encoding="utf-8"))


def expected_files() -> list[tuple[str, str]]:
    return [(a, name) for a in ASSIGNMENT_IDS for name in sorted(expectations(a)["files"])]


class Graded(dict):
    """Each assignment's corpus, graded the first time a test asks for it (`-k implicit` grades that one only),
    once per test run (helpers.once_per_run): the tests of one corpus are one xdist group, so two workers grade
    two corpora at once, and a test that reads another corpus takes the grading its worker left."""

    def __init__(self, tmp_path_factory):
        super().__init__()
        self.tmp_path_factory = tmp_path_factory

    def __missing__(self, assignment: str) -> dict[str, dict]:
        def grade(folder) -> list[dict]:
            # ~100 files an assignment, n = 100,000 cases among them: a loaded 2-core machine needs more than 15 minutes
            return grade_json(f"tests/submissions/{assignment}", "--assignment", assignment, "--seed", "11", cwd=ROOT,
                              timeout=2700)

        self[assignment] = by_file(once_per_run(self.tmp_path_factory, f"corpus-{assignment}", grade)[1])
        return self[assignment]


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, dict[str, dict]]:
    return Graded(tmp_path_factory)


def corpus(assignment: str) -> pytest.MarkDecorator:
    """The xdist group of the tests that read this corpus (conftest.py hands the longest out first)."""
    return pytest.mark.xdist_group(f"corpus-{assignment}")


def parse(expected: str) -> tuple[str, list[str]]:
    status, *pitfalls = expected.split()
    return status, pitfalls


@pytest.mark.parametrize("assignment", [pytest.param(a, marks=corpus(a)) for a in ASSIGNMENT_IDS])
def test_every_file_of_the_corpus_has_its_expectation(graded, assignment):
    on_disk = {p.name for p in (CORPUS / assignment).iterdir() if p.suffix in (".py", ".ipynb")}
    assert on_disk == set(expectations(assignment)["files"]) == set(graded[assignment])


@pytest.mark.parametrize("assignment,name", [pytest.param(a, n, marks=corpus(a)) for a, n in expected_files()])
def test_the_grader_says_what_is_expected(graded, assignment, name):
    spec = expectations(assignment)
    listed = spec["files"][name]
    result = graded[assignment][name]
    for item in result["exercises"]:
        if item["id"] in listed:
            status, pitfalls = parse(listed[item["id"]])
            assert (item["status"], item["pitfalls"]) == (status, pitfalls), item["feedback"]
            if name.startswith("ok_"):
                assert item["score"] == item["max_score"], item["feedback"]
            else:
                assert item["score"] < item["max_score"], item["feedback"]
                for pitfall in set(pitfalls) - NAMED_IN_TEXT_ONLY:
                    assert f"[{pitfall}]" in item["feedback"], item["feedback"]
        else:
            assert item["status"] == spec["others"], (item["id"], item["feedback"])
            if spec["others"] == "passed":
                assert item["score"] == item["max_score"] and item["pitfalls"] == [], (item["id"], item["feedback"])


@pytest.mark.parametrize("assignment", ASSIGNMENT_IDS)
def test_every_exercise_has_two_correct_alternatives(assignment):
    files = expectations(assignment)["files"]
    for item in assignment_by_id(assignment).exercises:
        correct = [n for n, listed in files.items() if n.startswith("ok_") and listed.get(item.id) == "passed"]
        assert len(correct) >= 2, item.id


def test_every_pitfall_of_the_catalogue_is_proven_by_a_wrong_submission():
    proven = {pitfall for a in ASSIGNMENT_IDS for name, listed in expectations(a)["files"].items()
              if name.startswith("bad_") for expected in listed.values() for pitfall in parse(expected)[1]}
    assert set(PITFALL_IDS) - proven == set()


@corpus("higher_order")
def test_a_materialised_hessian_is_caught_at_scale_only(graded):
    for name, exercise_id, scale_cases in (
            ("bad_hessian_vector_product_materialized-hessian.py", "hessian_vector_product", 1),
            ("bad_newton_cg_step_materialized-hessian.py", "newton_cg_step", 2)):  # the public one and a hidden one
        feedback = exercise(graded["higher_order"][name], exercise_id)["feedback"]
        passed, total = map(int, re.match(r"(\d+) of (\d+) cases passed", feedback).groups())
        assert "100000" in feedback and passed == total - scale_cases, feedback


@corpus("higher_order")
def test_tape_outside_context_says_where(graded):
    for name, exercise_id, line in (
            ("bad_derivatives_tape-outside-context.py", "derivatives", "dy_dx = inner.gradient(y, x)"),
            ("bad_critic_gradients_tape-outside-context.py", "critic_gradients",
             "penalty = gradient_penalty(critic, real, fake, alpha)"),
            ("bad_newton_cg_step_tape-outside-context.py", "newton_cg_step", "g_dot_d = tf.reduce_sum(g * d)"),
            ("bad_newton_cg_step_tape-outside-context_zeros.py", "newton_cg_step",
             "g = inner.gradient(y, x, unconnected_gradients=zero)")):
        feedback = exercise(graded["higher_order"][name], exercise_id)["feedback"]
        assert "Where:" in feedback and line in feedback, feedback


def explained(feedback: str, pitfall: str) -> tuple[str, str, str]:
    """The headline, the Where lines and the Fix line of one pitfall's explanation in a feedback text."""
    lines = feedback.splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith(f"[{pitfall}]"))
    fix = next(n for n in range(start, len(lines)) if lines[n].startswith("  Fix: "))
    return lines[start], "\n".join(lines[start + 1:fix]), lines[fix]


@corpus("higher_order")
def test_headline_where_and_fix_talk_about_the_line_named(graded):
    """The two expert cases: the loss summed after the block (the fix moves that line, not the penalty call, which
    is inside already); a critic called before the tape's block (all three say "before")."""
    feedback = exercise(graded["higher_order"]["bad_critic_gradients_tape-outside-context_loss.py"],
                        "critic_gradients")["feedback"]
    headline, where, fix = explained(feedback, "tape-outside-context")
    assert "`loss = wasserstein + gp_weight * gp` is computed after the `with` block of `tape`" in headline
    assert where.startswith("  Where: line 46: `loss = wasserstein + gp_weight * gp`") and "block ends" in where
    assert fix.startswith("  Fix: move `loss = wasserstein + gp_weight * gp` (line 46) into the") and \
        "gradient_penalty" not in fix
    for name in ("bad_gradient_penalty_tape-outside-context.py",
                 "bad_gradient_penalty_tape-outside-context_keras_ops.py"):
        feedback = exercise(graded["higher_order"][name], "gradient_penalty")["feedback"]
        headline, where, fix = explained(feedback, "tape-outside-context")
        assert "is computed before the `with` block of `tape`" in headline and "after" not in headline.split(";")[0]
        assert "block begins" in where and "block ends" not in where
        assert "(indented under it, after `tape.watch(interpolates)`)" in fix and "critic(interpolates)" in fix


@corpus("higher_order")
def test_a_correct_critic_gradients_names_the_failing_gradient_penalty_it_calls(graded):
    """critic_gradients is right but calls the student's gradient_penalty, which raises: the feedback names that
    exercise, its line and its fix; the points stay as the contract says (it uses the student's own penalty)."""
    result = exercise(graded["higher_order"]["bad_gradient_penalty_unwatched-tensor_helper.py"], "critic_gradients")
    assert (result["status"], result["score"], result["pitfalls"]) == ("error", 0.0, ["unwatched-tensor"])
    headline, where, fix = explained(result["feedback"], "unwatched-tensor")
    assert headline.startswith("[unwatched-tensor] `critic_gradients` calls your `gradient_penalty` (line 45: "), \
        headline
    assert where.startswith("  Where: line 33: `return tape.gradient(scores, points)`")
    assert fix.startswith("  Fix: in `gradient_penalty`, which `critic_gradients` calls: call `tape.watch(points)`")
    wrong_axis = exercise(graded["higher_order"]["bad_gradient_penalty_wrong-norm-axis_last_axis.py"],
                          "critic_gradients")["feedback"]
    assert "`critic_gradients` calls your `gradient_penalty`" in wrong_axis and "over axis -1 only" in wrong_axis
    jacobian = exercise(graded["jacobians"]["bad_hessian_gradient-cut_calls_jacobian.py"], "hessian")["feedback"]
    assert "`hessian` calls your `jacobian`" in explained(jacobian, "gradient-cut")[0]


@corpus("higher_order")
def test_the_four_forms_are_named_by_what_they_do(graded):
    custom = graded["custom_gradients"]
    clipped = exercise(custom["bad_clip_gradient_norm_clips-value_clip_by_value.py"], "clip_gradient_norm")["feedback"]
    headline, where, fix = explained(clipped, "clips-value")
    assert "`tf.clip_by_value(t, -max_norm, max_norm)`" in headline and "the value is not close" in clipped
    stopped = exercise(custom["bad_straight_through_round_gradient-cut_stop_whole.py"],
                       "straight_through_round")["feedback"]
    headline, where, fix = explained(stopped, "gradient-cut")
    assert "plain" not in stopped and "wraps every path from `x`" in headline
    assert fix.endswith("`x + tf.stop_gradient(tf.round(x) - x)`.") or "tf.stop_gradient((tf.round(x) - x))" in fix
    helper = exercise(graded["higher_order"]["bad_derivatives_tape-outside-context_helper_after.py"],
                      "derivatives")["feedback"]
    assert "Where: line 16: `first = _grad(inner, y, x)`" in explained(helper, "tape-outside-context")[1]
    axis = exercise(graded["higher_order"]["bad_gradient_penalty_wrong-norm-axis_last_axis.py"],
                    "gradient_penalty")["feedback"]
    assert "`tf.norm(g, axis=-1)`" in explained(axis, "wrong-norm-axis")[0]


# Named mistakes that sit on no single line: the feedback says what to look for, and the lines it may be.
NO_SINGLE_LINE = {
    ("bad_safe_norm_wrong-norm-axis.py", "wrong-norm-axis"),  # axis=0 on the scale's line and on the sum's
    ("bad_root_solve_materialized-jacobian.py", "materialized-jacobian"),  # tape.jacobian for dx and for dtheta
}


def explanation_blocks(feedback: str) -> dict[str, str]:
    """Each named pitfall's explanation in a feedback text: its headline to its Fix line."""
    lines, blocks = feedback.splitlines(), {}
    for start, line in enumerate(lines):
        if line.startswith("[") and "] " in line:
            end = next((n for n in range(start, len(lines)) if lines[n].startswith("  Fix: ")), len(lines))
            blocks.setdefault(line[1:line.index("]")], "\n".join(lines[start:end + 1]))
    return blocks


@corpus("higher_order")  # reads every corpus: by the time the longest is graded, the others are too
@pytest.mark.parametrize("pitfall", sorted(set(PITFALL_IDS) - {"not-implemented"}))
def test_every_named_pitfall_points_at_its_line(graded, pitfall):
    """Issue 33: a named mistake that sits on a line shows it ("Where: cell [7], line 4: `code`"), from the static
    reading or the line a public case raised on; the others say what to look for. Every pitfall the corpus names
    is checked on every file that names it."""
    seen = 0
    for assignment in ASSIGNMENT_IDS:
        for name, result in graded[assignment].items():
            for item in result["exercises"]:
                block = explanation_blocks(item["feedback"]).get(pitfall)
                if block is None or not name.startswith("bad_"):
                    continue
                seen += 1
                if (name, pitfall) in NO_SINGLE_LINE:
                    assert "  Look for: " in block and "  Where: " not in block, block
                else:
                    assert "  Where: " in block, (name, block)
    assert seen, f"no file of the corpus names {pitfall} with an explanation"
