"""jacobians: correct solutions in other styles pass clean; each mistake is named and costs points.

One real `autograder grade` run over tests/submissions/jacobians/ (one file per style or mistake; in each
file only the exercise under test is written, the other four raise NotImplementedError), then one
assertion per file.
"""
from __future__ import annotations

import pytest

from conftest import by_file, exercise, grade_json

pytestmark = pytest.mark.slow

EXERCISES = ("jacobian", "batch_jacobian", "robust_jacobian", "hessian", "jvp")

CORRECT = {  # file -> the exercise it solves in a style other than the reference
    "ok_jacobian_rows.py": "jacobian",  # persistent tape, one gradient per unstacked output
    "ok_jacobian_forward_columns.py": "jacobian",  # ForwardAccumulator, one column per basis vector
    "ok_batch_jacobian_einsum_diagonal.py": "batch_jacobian",  # tape.jacobian, then einsum("bibj->bij")
    "ok_batch_jacobian_vectorized_map.py": "batch_jacobian",  # tf.vectorized_map of per-example Jacobians
    "ok_batch_jacobian_output_loop.py": "batch_jacobian",  # one backward pass per output index
    "ok_robust_jacobian_one_hot_rows.py": "robust_jacobian",  # Python loop, output_gradients = e_i
    "ok_robust_jacobian_unstack.py": "robust_jacobian",  # Python loop over tf.unstack(y) on the tape
    "ok_hessian_persistent_rows.py": "hessian",  # persistent outer tape, one gradient per row
    "ok_hessian_forward_over_backward.py": "hessian",  # ForwardAccumulator over the inner gradient
    "ok_jvp_double_vjp.py": "jvp",  # the double-vjp trick with a zero dummy
    "ok_jvp_double_vjp_dot.py": "jvp",  # double vjp through the scalar <J^T u, v>
}

WRONG = {  # file -> (exercise, the pitfall that must be named, expected status)
    "bad_jacobian_transposed.py": ("jacobian", "transposed", "failed"),
    "bad_jacobian_summed-gradient.py": ("jacobian", "summed-gradient", "partial"),
    "bad_jacobian_unwatched-tensor.py": ("jacobian", "unwatched-tensor", "partial"),  # None for Tensors
    "bad_jacobian_wrong-value.py": ("jacobian", "wrong-value", "partial"),  # finite differences
    "bad_jacobian_not-implemented.py": ("jacobian", "not-implemented", "not-implemented"),
    "bad_batch_jacobian_full-jacobian.py": ("batch_jacobian", "full-jacobian", "partial"),
    "bad_batch_jacobian_transposed.py": ("batch_jacobian", "transposed", "partial"),
    "bad_batch_jacobian_unwatched-tensor.py": ("batch_jacobian", "unwatched-tensor", "partial"),  # zeros
    "bad_robust_jacobian_pfor-unsupported.py": ("robust_jacobian", "pfor-unsupported", "partial"),
    "bad_robust_jacobian_non-persistent-tape.py": ("robust_jacobian", "non-persistent-tape", "error"),
    "bad_robust_jacobian_transposed.py": ("robust_jacobian", "transposed", "failed"),
    "bad_hessian_tape-outside-context.py": ("hessian", "tape-outside-context", "partial"),  # None
    "bad_hessian_tape-outside-context_zeros.py": ("hessian", "tape-outside-context", "partial"),  # zeros
    "bad_hessian_non-persistent-tape.py": ("hessian", "non-persistent-tape", "partial"),
    "bad_hessian_summed-gradient.py": ("hessian", "summed-gradient", "partial"),
    "bad_hessian_unwatched-tensor.py": ("hessian", "unwatched-tensor", "partial"),
    "bad_jvp_materialized-jacobian.py": ("jvp", "materialized-jacobian", "partial"),
    "bad_jvp_transposed.py": ("jvp", "transposed", "partial"),  # J^T v: right shape only when n == m
    "bad_jvp_summed-gradient.py": ("jvp", "summed-gradient", "partial"),
}


@pytest.fixture(scope="module")
def results(root):
    return by_file(grade_json("tests/submissions/jacobians", "--assignment", "jacobians", "--seed", "11", cwd=root))


def test_every_submission_file_is_in_a_table(root, results):
    assert set(results) == set(CORRECT) | set(WRONG)


def test_every_exercise_has_two_correct_alternatives():
    for exercise_id in EXERCISES:
        assert sum(1 for e in CORRECT.values() if e == exercise_id) >= 2, exercise_id


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_correct_alternative_scores_full_marks_without_accusation(results, name):
    result = exercise(results[name], CORRECT[name])
    assert (result["status"], result["score"], result["pitfalls"]) == ("passed", 2.0, []), result["feedback"]


@pytest.mark.parametrize("name", sorted(WRONG))
def test_mistake_is_named_and_loses_points(results, name):
    exercise_id, pitfall, status = WRONG[name]
    result = exercise(results[name], exercise_id)
    assert pitfall in result["pitfalls"], result
    assert result["status"] == status, result
    assert result["score"] < result["max_score"]
    assert f"[{pitfall}]" in result["feedback"] or pitfall in ("wrong-value", "not-implemented")


@pytest.mark.parametrize("name", sorted(WRONG))
def test_only_the_expected_pitfall_is_named(results, name):
    exercise_id, pitfall, _ = WRONG[name]
    assert exercise(results[name], exercise_id)["pitfalls"] == [pitfall]


def test_stubs_are_not_implemented_everywhere(results):
    for exercise_id in EXERCISES:
        result = exercise(results["bad_jacobian_not-implemented.py"], exercise_id)
        assert (result["status"], result["score"], result["pitfalls"]) == ("not-implemented", 0.0,
                                                                             ["not-implemented"])
