"""What per_example_gradients's cases cost one submission, per style, side by side with jacobians's other exercises.

    .venv/bin/python benchmarks/per_example_cost.py            # every style, 2 repeats, seed 1
    .venv/bin/python benchmarks/per_example_cost.py --repeats 3 --styles jacobian vectorized_map
    .venv/bin/python benchmarks/per_example_cost.py --repeats 1 --styles jacobian                # smallest

One process imports TensorFlow once, then runs the exercise's probe (what the grader's child runs) on each
case of a seed with each style of answer: the reference's `tape.jacobian` (pfor), `tape.jacobian` without
pfor, `tf.vectorized_map`, a Python loop over the examples and an eager `tf.map_fn`. Each (style, case) runs
`--repeats` times in a row; the table prints the CPU time (process_time: the threads' time summed, which the
machine's load does not inflate as much as wall time) of the last repeat, and the wall time. A first call
pays tracing (a tf.function, pfor's graph): the grader's child meets every case once, so the first repeat is
what a submission pays and the printed "first" column is it. For scale, the last rows run the reference of
jacobians's other five exercises on all their cases the same way. Containment, diagnosis and the mistake
models are not in these numbers. A measurement, not a test.
"""
from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def styles():
    import tensorflow as tf

    def jacobian(model, loss_fn, x, y):
        with tf.GradientTape() as tape:
            losses = loss_fn(y, model(x))
        return tape.jacobian(losses, model.trainable_variables)

    def jacobian_no_pfor(model, loss_fn, x, y):
        with tf.GradientTape(persistent=True) as tape:
            losses = loss_fn(y, model(x))
        return tape.jacobian(losses, model.trainable_variables, experimental_use_pfor=False)

    def one_example(model, loss_fn):
        def gradient(pair):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(loss_fn(pair[1][None], model(pair[0][None])))
            return list(tape.gradient(loss, model.trainable_variables))
        return gradient

    def vectorized_map(model, loss_fn, x, y):
        return tf.vectorized_map(one_example(model, loss_fn), (x, y))

    def python_loop(model, loss_fn, x, y):
        rows = [one_example(model, loss_fn)((x[i], y[i])) for i in range(int(x.shape[0]))]
        return [tf.stack(column) for column in zip(*rows)]

    def map_fn(model, loss_fn, x, y):
        signature = [tf.TensorSpec(v.shape, v.dtype) for v in model.trainable_variables]
        return tf.map_fn(one_example(model, loss_fn), (x, y), fn_output_signature=signature)

    return {"jacobian": jacobian, "jacobian_no_pfor": jacobian_no_pfor, "vectorized_map": vectorized_map,
            "python_loop": python_loop, "map_fn": map_fn}


def timed(call, repeats: int) -> tuple[float, float, float]:
    """(CPU seconds of the first call, CPU seconds of the last, wall seconds of the last). A call that raises
    (a style that cannot return None for an unused variable, on the advisory case) is timed all the same."""
    first = None
    for _ in range(repeats):
        cpu, wall = time.process_time(), time.perf_counter()
        try:
            call()
        except Exception:  # noqa: BLE001
            pass
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        first = cpu if first is None else first
    return first, cpu, wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--styles", nargs="*", default=None)
    args = parser.parse_args()

    import tensorflow as tf

    from autograder.course.jacobians import ASSIGNMENT
    from autograder.course.jacobians.per_example_gradients import EXERCISE

    tf.get_logger().setLevel("ERROR")
    chosen = {name: fn for name, fn in styles().items() if args.styles is None or name in args.styles}
    print(f"per_example_gradients, seed {args.seed}, {os.cpu_count()} cores, load average "
          f"{os.getloadavg()[0]:.1f} at the start")
    print(f"{'style':18} {'case':24} {'first (cpu s)':>13} {'again (cpu s)':>13} {'again (wall s)':>14}")
    totals = {}
    for name, style in chosen.items():
        for case in EXERCISE.cases(args.seed):
            first, cpu, wall = timed(lambda: EXERCISE.probe(style, case.args), args.repeats)
            totals[name] = totals.get(name, 0.0) + first
            print(f"{name:18} {case.id:24} {first:13.3f} {cpu:13.3f} {wall:14.3f}")
    print()
    for name, total in totals.items():
        print(f"{name:18} all {len(EXERCISE.cases(args.seed))} cases, first calls: {total:7.2f} cpu s")
    from autograder.config import find_solutions
    from autograder.load.cells import read_submission

    namespace = {}
    for cell in read_submission(find_solutions() / "jacobians" / "jacobians.ipynb").runnable_cells:
        if cell.code.lstrip().startswith("def "):
            exec(compile(cell.code, "<solution>", "exec"), {"tf": tf, "__builtins__": __builtins__}, namespace)
    others = 0.0
    for exercise in ASSIGNMENT.exercises:
        if exercise.id == EXERCISE.id:
            continue
        spent = 0.0
        for case in exercise.cases(args.seed):
            first, _, _ = timed(lambda: exercise.probe(namespace[exercise.id], case.args), 1)
            spent += first
        others += spent
        print(f"reference {exercise.id:17} all {len(exercise.cases(args.seed))} cases, first calls: {spent:7.2f} cpu s")
    print(f"the other five exercises together: {others:.2f} cpu s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
