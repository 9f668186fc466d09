"""higher_order: correct solutions in other styles pass clean; each mistake is named and costs points.

One real `autograder grade` run over tests/submissions/higher_order/ (one file per style or mistake, each defining
all five functions: the one under test in that style, the others correct), then one assertion per file.
"""
from __future__ import annotations

import pytest

from conftest import by_file, exercise, grade_json

pytestmark = pytest.mark.slow

EXERCISES = ("derivatives", "hessian_vector_product", "gradient_penalty", "critic_gradients", "newton_step")

CORRECT = {  # file -> the exercise it solves in a style other than the reference
    "ok_derivatives_persistent_tape.py": "derivatives",
    "ok_derivatives_helper_function.py": "derivatives",
    "ok_hessian_vector_product_forward_over_backward.py": "hessian_vector_product",
    "ok_hessian_vector_product_persistent_tape.py": "hessian_vector_product",
    "ok_gradient_penalty_reshape_tf_norm.py": "gradient_penalty",
    "ok_gradient_penalty_manual_sqrt.py": "gradient_penalty",
    "ok_critic_gradients_separate_tapes.py": "critic_gradients",
    "ok_critic_gradients_inline_penalty.py": "critic_gradients",
    "ok_newton_step_cholesky.py": "newton_step",
    "ok_newton_step_lstsq.py": "newton_step",
}

WRONG = {  # file -> (exercise, status, the exact pitfalls named)
    "bad_derivatives_tape-outside-context.py": ("derivatives", "partial", ["tape-outside-context"]),
    "bad_derivatives_unwatched-tensor.py": ("derivatives", "partial", ["unwatched-tensor"]),
    "bad_derivatives_unwatched-tensor_no_watch.py": ("derivatives", "partial", ["unwatched-tensor"]),
    "bad_derivatives_non-persistent-tape.py": ("derivatives", "error", ["non-persistent-tape"]),
    "bad_derivatives_gradient-cut.py": ("derivatives", "partial", ["gradient-cut"]),
    "bad_hessian_vector_product_materialized-hessian.py": ("hessian_vector_product", "partial",
                                                            ["materialized-hessian"]),
    "bad_hessian_vector_product_wrong-value.py": ("hessian_vector_product", "partial", ["wrong-value"]),
    "bad_gradient_penalty_wrong-norm-axis.py": ("gradient_penalty", "partial", ["wrong-norm-axis"]),
    "bad_gradient_penalty_wrong-norm-axis_batch.py": ("gradient_penalty", "failed", ["wrong-norm-axis"]),
    "bad_gradient_penalty_gradient-cut.py": ("gradient_penalty", "failed", ["gradient-cut"]),
    "bad_critic_gradients_tape-outside-context.py": ("critic_gradients", "failed", ["tape-outside-context"]),
    "bad_critic_gradients_wrong-value.py": ("critic_gradients", "failed", ["wrong-value"]),
    "bad_newton_step_wrong-value.py": ("newton_step", "failed", ["wrong-value"]),
    "bad_all_not-implemented.py": ("derivatives", "not-implemented", ["not-implemented"]),
}

# critic_gradients calls the submission's own gradient_penalty, so a broken penalty breaks it too.
KNOCK_ON = {  # file -> {exercise: (status, pitfalls)} for exercises other than the one under test
    "bad_gradient_penalty_wrong-norm-axis.py": {"critic_gradients": ("partial", ["wrong-norm-axis"])},
    "bad_gradient_penalty_wrong-norm-axis_batch.py": {"critic_gradients": ("failed", ["wrong-norm-axis"])},
    # the penalty's gradient is cut inside gradient_penalty: to the loss tape the penalty is a constant,
    # as if computed outside it; the source (NumPy norms in the penalty it calls) says it is a cut
    "bad_gradient_penalty_gradient-cut.py": {"critic_gradients": ("failed", ["gradient-cut"])},
    "bad_all_not-implemented.py": {e: ("not-implemented", ["not-implemented"]) for e in EXERCISES[1:]},
}

REQUIRED_PITFALLS = {  # pitfall id -> the exercises where a submission must get it named
    "tape-outside-context": {"derivatives", "critic_gradients"},
    "unwatched-tensor": {"derivatives"},
    "non-persistent-tape": {"derivatives"},
    "wrong-norm-axis": {"gradient_penalty"},
    "materialized-hessian": {"hessian_vector_product"},
    "gradient-cut": {"derivatives"},
    "not-implemented": {"derivatives"},
    "wrong-value": {"hessian_vector_product", "critic_gradients", "newton_step"},
}


@pytest.fixture(scope="module")
def results(root):
    return by_file(grade_json("tests/submissions/higher_order", "--assignment", "higher_order", "--seed", "11",
                              cwd=root))


def test_every_submission_file_is_in_a_table(results):
    assert set(results) == set(CORRECT) | set(WRONG)


def test_every_required_pitfall_has_a_submission():
    named = {(exercise_id, pitfall) for exercise_id, _, pitfalls in WRONG.values() for pitfall in pitfalls}
    for pitfall, exercises in REQUIRED_PITFALLS.items():
        assert {(e, pitfall) for e in exercises} <= named, pitfall


def test_each_exercise_has_two_correct_alternatives():
    for exercise_id in EXERCISES:
        assert sum(1 for e in CORRECT.values() if e == exercise_id) >= 2, exercise_id


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_correct_alternative_scores_full_marks_without_accusation(results, name):
    result = exercise(results[name], CORRECT[name])
    assert (result["status"], result["score"], result["pitfalls"]) == ("passed", 2.0, []), result["feedback"]
    assert results[name]["score"] == 10.0, [(e["id"], e["status"]) for e in results[name]["exercises"]]


@pytest.mark.parametrize("name", sorted(WRONG))
def test_mistake_is_named_and_loses_points(results, name):
    exercise_id, status, pitfalls = WRONG[name]
    result = exercise(results[name], exercise_id)
    assert (result["status"], result["pitfalls"]) == (status, pitfalls), result["feedback"]
    assert result["score"] < result["max_score"]
    for pitfall in pitfalls:
        assert f"[{pitfall}]" in result["feedback"] or pitfall == "not-implemented", result["feedback"]


@pytest.mark.parametrize("name", sorted(WRONG))
def test_other_exercises_of_a_wrong_submission(results, name):
    """The correct copies pass; a broken gradient_penalty also breaks critic_gradients, which calls it."""
    expected = KNOCK_ON.get(name, {})
    for result in results[name]["exercises"]:
        if result["id"] == WRONG[name][0]:
            continue
        if result["id"] in expected:
            assert (result["status"], result["pitfalls"]) == expected[result["id"]], result["feedback"]
        else:
            assert (result["status"], result["score"]) == ("passed", 2.0), (result["id"], result["feedback"])


def test_materialized_hessian_is_caught_at_scale_only(results):
    result = exercise(results["bad_hessian_vector_product_materialized-hessian.py"], "hessian_vector_product")
    assert "100000" in result["feedback"] and "10 of 11 cases passed" in result["feedback"], result["feedback"]


def test_tape_outside_context_says_where(results):
    for name, line in (("bad_derivatives_tape-outside-context.py", "dy_dx = inner.gradient(y, x)"),
                       ("bad_critic_gradients_tape-outside-context.py",
                        "penalty = gradient_penalty(critic, real, fake, alpha)")):
        feedback = exercise(results[name], WRONG[name][0])["feedback"]
        assert "Where:" in feedback and line in feedback, feedback
