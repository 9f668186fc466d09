"""What each exercise's cases cost per submission, side by side: one exercise against the rest of its assignment.

    .venv/bin/python benchmarks/exercise_cost.py                          # higher_order, seed 1
    .venv/bin/python benchmarks/exercise_cost.py --assignment jacobians --seed 2026
    .venv/bin/python benchmarks/exercise_cost.py --assignment custom_gradients --examples 1   # smallest

For the reference solution and every example notebook of the assignment (examples/submitted/*/<id>/), in ONE
process that imported TensorFlow once, one thread as in the grader's children and their memory ceiling: the
notebook's cells, then every case of every exercise, each timed (the student's function through the grader's
probe, nothing else: no fork, no containment, no diagnosis). Then the trusted mistake models on the cases a
reference run gives them (what a new seed costs once per class). Printed: per exercise, the median seconds per
submission over the notebooks and its share of the assignment; the slowest cases of each exercise; the mistake
models' seconds per seed. The floor of `benchmarks/class_speed.py` is the same measure for whole notebooks.
A measurement, not a test: on a loaded machine every number grows, the shares less so.
"""
from __future__ import annotations

import argparse
import builtins
import contextlib
import io
import os
import signal
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def load(notebook: Path) -> dict:
    from autograder.load.cells import read_submission
    from autograder.load.program import cells_for_child

    namespace = {"__name__": "__main__", "__builtins__": builtins, "display": print}
    for _, code, filename in cells_for_child(read_submission(notebook)):
        try:
            signal.alarm(60)
            exec(compile(code, filename, "exec"), namespace)  # noqa: S102  (the course's own notebooks, trusted)
        except BaseException:  # noqa: BLE001  (the examples make mistakes on purpose)
            pass
        finally:
            signal.alarm(0)
    return namespace


def timed_cases(exercise, function, cases) -> list[float]:
    from autograder.run.probe import encoded_outputs

    seconds = []
    for case in cases:
        began = time.perf_counter()
        try:
            signal.alarm(int(case.time_limit) + 1)
            encoded_outputs(exercise, function, case.args)
        except BaseException:  # noqa: BLE001  (a wrong answer still costs its time)
            pass
        finally:
            signal.alarm(0)
        seconds.append(time.perf_counter() - began)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--assignment", default="higher_order")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--examples", type=int, metavar="N", help="only the first N example notebooks, by name")
    args = parser.parse_args()

    import autograder.run.child  # noqa: F401  (what the fork server imports)
    import tensorflow as tf

    from autograder.course import assignment_by_id, mistake_implementation
    from autograder.run.isolation import Containment, _limits

    def on_alarm(*_):
        raise TimeoutError

    signal.signal(signal.SIGALRM, on_alarm)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    tf.config.threading.set_intra_op_parallelism_threads(1)
    _limits(Containment(), [])
    os.dup2(os.open(os.devnull, os.O_WRONLY), 2)  # TensorFlow's own logs of the examples' failures

    assignment = assignment_by_id(args.assignment)
    cases = {exercise.id: exercise.cases(args.seed) for exercise in assignment.exercises}
    notebooks = [ROOT / "solutions" / assignment.id / f"{assignment.id}.ipynb",
                 *sorted((ROOT / "examples" / "submitted").glob(f"*/{assignment.id}/{assignment.id}.ipynb"))[:args.examples]]
    per_exercise: dict[str, list[float]] = {e.id: [] for e in assignment.exercises}
    per_case: dict[str, list[list[float]]] = {e.id: [] for e in assignment.exercises}
    for notebook in notebooks:
        with contextlib.redirect_stdout(io.StringIO()):
            namespace = load(notebook)
            for exercise in assignment.exercises:
                seconds = timed_cases(exercise, namespace.get(exercise.id), cases[exercise.id])
                per_exercise[exercise.id].append(sum(seconds))
                per_case[exercise.id].append(seconds)
        name = "reference" if notebook.parts[-4] == "solutions" else notebook.parts[-3]
        print(f"{name:10s} " + "  ".join(f"{e}: {per_exercise[e][-1]:.2f} s" for e in per_exercise), flush=True)

    total = sum(statistics.median(v) for v in per_exercise.values())
    print(f"\n{assignment.id}, seed {args.seed}, {len(notebooks)} notebooks (the reference and the example class): "
          "median seconds per submission")
    for exercise in assignment.exercises:
        median = statistics.median(per_exercise[exercise.id])
        slowest = sorted(zip(map(statistics.median, zip(*per_case[exercise.id])),
                             (c.id for c in cases[exercise.id])), reverse=True)[:3]
        reference = per_exercise[exercise.id][0]
        print(f"  {exercise.id:24s} {median:7.3f} s  ({median / total:5.1%})   reference {reference:.3f} s; slowest "
              "cases: " + ", ".join(f"{case} {s:.3f} s" for s, case in slowest))
    print(f"  {'all':24s} {total:7.3f} s")

    print(f"\nmistake models on the cases a reference run gives them (once per seed), seconds:")
    for exercise in assignment.exercises:
        spent = 0.0
        for k, mistake in enumerate(exercise.mistakes):
            mine = [c for c in cases[exercise.id] if mistake.cases(c) and c.kind != "advisory"]
            with contextlib.redirect_stdout(io.StringIO()):
                spent += sum(timed_cases(exercise, mistake_implementation(assignment.id, exercise, k), mine))
        print(f"  {exercise.id:24s} {spent:7.3f} s  ({len(exercise.mistakes)} models)")
    sys.stdout.flush()
    os._exit(0)  # TensorFlow's teardown can take seconds


if __name__ == "__main__":
    main()
