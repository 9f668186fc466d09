"""custom_gradients: correct solutions in other styles pass clean; each mistake is named and costs points.

One real `autograder grade` run over tests/submissions/custom_gradients/ (one file per style or mistake),
then one assertion per file.
"""
from __future__ import annotations

import pytest

from conftest import by_file, exercise, grade_json

pytestmark = pytest.mark.slow

CORRECT = {  # file -> the exercise it solves in a style other than the reference
    "ok_log1pexp_softplus.py": "log1pexp",
    "ok_log1pexp_where.py": "log1pexp",
    "ok_straight_through_round_stop_gradient.py": "straight_through_round",
    "ok_straight_through_round_pass_through.py": "straight_through_round",
    "ok_clip_gradient_norm_manual.py": "clip_gradient_norm",
    "ok_clip_gradient_norm_global.py": "clip_gradient_norm",
    "ok_td_loss_stop_before_max.py": "td_loss",
    "ok_td_loss_squared_difference.py": "td_loss",
    "ok_checkpointed_decorator.py": "checkpointed",
    "ok_checkpointed_lambda.py": "checkpointed",
}

WRONG = {  # file -> (exercise, the pitfall that must be named)
    "bad_log1pexp_ignores-upstream.py": ("log1pexp", "ignores-upstream"),
    "bad_log1pexp_unstable-gradient.py": ("log1pexp", "unstable-gradient"),
    "bad_log1pexp_unstable-value.py": ("log1pexp", "unstable-value"),
    "bad_log1pexp_no-custom-gradient.py": ("log1pexp", "no-custom-gradient"),
    "bad_straight_through_round_no-gradient.py": ("straight_through_round", "no-gradient"),
    "bad_clip_gradient_norm_clips-value.py": ("clip_gradient_norm", "clips-value"),
    "bad_td_loss_missing-stop-gradient.py": ("td_loss", "missing-stop-gradient"),
    "bad_td_loss_gradient-cut.py": ("td_loss", "gradient-cut"),
    "bad_td_loss_wrong-value.py": ("td_loss", "wrong-value"),
    "bad_checkpointed_not-recomputed.py": ("checkpointed", "not-recomputed"),
}


@pytest.fixture(scope="module")
def results(root):
    return by_file(grade_json("tests/submissions/custom_gradients", "--assignment", "custom_gradients",
                              "--seed", "11", cwd=root))


def test_every_submission_file_is_in_a_table(root, results):
    assert set(results) == set(CORRECT) | set(WRONG)


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_correct_alternative_scores_full_marks_without_accusation(results, name):
    result = exercise(results[name], CORRECT[name])
    assert (result["status"], result["score"], result["pitfalls"]) == ("passed", 2.0, []), result["feedback"]


@pytest.mark.parametrize("name", sorted(WRONG))
def test_mistake_is_named_and_loses_points(results, name):
    exercise_id, pitfall = WRONG[name]
    result = exercise(results[name], exercise_id)
    assert pitfall in result["pitfalls"], result
    assert result["score"] < result["max_score"]
    assert f"[{pitfall}]" in result["feedback"] or pitfall == "wrong-value"
