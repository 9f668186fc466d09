"""What runs inside a child process: load one submission, run tasks, send plain data.

The fork server imports this module (and with it TensorFlow) once; each child is a fork of it. Importing
it runs no TensorFlow op: a process that has run one must not fork children that will run ``tf.function``.
What this module imports is all a student's child holds (``child_modules`` lists it, a test checks it);
the mistake models are imported only by a trusted job (a reference's), after the fork.
"""
from __future__ import annotations

import builtins
import importlib
import linecache
import os
import sys
from typing import Any

from autograder.config import quiet_tensorflow

quiet_tensorflow()
import tensorflow as tf  # noqa: E402  (after the environment is quiet)

tf.get_logger().setLevel("ERROR")  # pfor's retracing warnings would otherwise fill the child's output
_ = tf.keras.layers  # Keras loads lazily: load it here, once, before a child hides files or drops privileges

from autograder.course import all_assignments, assignment_by_id, mistake_implementation  # noqa: E402
from autograder.run import capture  # noqa: E402
from autograder.run.isolation import contain  # noqa: E402
from autograder.run.probe import describe_exception, parameters, probe_outcome  # noqa: E402
from autograder.run.tasks import ChildJob, Task  # noqa: E402
from autograder.run.wire.case_inputs import decode_args  # noqa: E402
from autograder.run.wire.error_info import error_to_data  # noqa: E402
from autograder.run.wire.messages import dumps, loads  # noqa: E402
from autograder import supported  # noqa: E402,F401  (the notebooks' setup cell checks TensorFlow with it)

all_assignments()  # the exercise modules too, for the same reason


def _convert_pfor_body() -> None:
    """Let AutoGraph convert the body of ``pfor`` (which every ``tape.jacobian`` wraps in a tf.function) here,
    once, in the fork server, instead of in every child that calls ``tape.jacobian`` (30 ms each).

    The conversion is plain Python (it reads source and writes a module; no TensorFlow op runs, so forking
    afterwards stays safe) and TensorFlow caches it by code object and options, exactly the ones ``pfor``
    uses. If TensorFlow's internals differ from what is expected here, nothing is converted and each child
    converts for itself, as it would anyway.
    """
    try:
        import types

        from tensorflow.python.autograph.core import converter
        from tensorflow.python.autograph.impl import api
        from tensorflow.python.ops.parallel_for import control_flow_ops

        code = next(c for c in control_flow_ops.pfor.__code__.co_consts
                    if isinstance(c, types.CodeType) and c.co_name == "f")
        body = types.FunctionType(code, control_flow_ops.pfor.__globals__, "f", None,
                                  tuple(types.CellType(None) for _ in code.co_freevars))
        options = converter.ConversionOptions(recursive=True, optional_features=None, user_requested=True)
        api._convert_actual(body, converter.ProgramContext(options=options))
    except Exception:  # noqa: BLE001  (an optimisation only)
        pass


_convert_pfor_body()


def student_file(filename: str) -> str | None:
    """The name a traceback frame of the submission's code has (its cells were compiled under these names)."""
    return filename if filename.startswith(("<cell ", "<submission")) else None


def child_main(connection, job: ChildJob) -> None:
    """Entry point of the child process (forked by the fork server): contain it, run the cells, then run the
    tasks the parent hands over one at a time, each with its one case, until the parent says it is done."""
    os.setsid()  # its own process group: the parent can kill everything it starts
    workdir = job.workdir
    os.chdir(workdir)
    _redirect_output(workdir)
    if job.trusted:  # a reference's child (no student code runs in it): its mistake models, before the files close
        importlib.import_module(f"autograder.course.{job.assignment}.mistakes")
    applied = contain(workdir, job.containment)  # in a PID namespace, this returns in the process inside it
    tf.config.threading.set_inter_op_parallelism_threads(job.tf_threads)
    tf.config.threading.set_intra_op_parallelism_threads(job.tf_threads)

    def send(message: dict) -> None:
        connection.send_bytes(dumps(message))

    send({"event": "contained", "measures": applied})
    assignment = assignment_by_id(job.assignment)
    namespace = _load(job, send) if job.load else {}
    # No case exists in this process before this point: each comes with its task, after every cell has run,
    # and only the one the next call runs on (CURRICULUM.md, "The course secret stays with the grader").
    while (order := loads(connection.recv_bytes()))["event"] == "task":
        number, exercise = order["task"], assignment.exercise(order["exercise"])
        task = Task(exercise.id, order["case"], order["implementation"])
        if task.mistake is None:
            function = namespace.get(exercise.id)
        elif job.trusted:  # a reference's job: no student code runs here, so the trusted models may be imported
            function = mistake_implementation(job.assignment, exercise, task.mistake)
        else:
            raise RuntimeError("a mistake model asked of a student's child")
        args = decode_args(order.pop("args"))
        del order
        outcome = probe_outcome(exercise, function, args, student_file)
        del args, function
        send({"event": "task-result", "task": number, "outcome": outcome})
    send({"event": "done"})
    connection.close()
    os._exit(0)  # skip interpreter teardown: TensorFlow's can take seconds


def _redirect_output(workdir: str) -> None:
    """Student prints go to a file in the child's directory, not to the grader's terminal."""
    sys.stdout.flush()
    sys.stderr.flush()
    target = os.open(os.path.join(workdir, "output.txt"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(target, 1)
    os.dup2(target, 2)
    os.close(target)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)


def _notebook_api() -> None:
    """The kit's notebook API, as the cells of a `.py` export call it, doing nothing here: the grader grades.

    The real modules (``autograder.selfcheck``, ``autograder.graded_cell``) are not in a child's view of the
    kit (they import the judge and the stored answers), so the cells would otherwise raise ImportError."""
    import types

    class SelfCheckFailed(AssertionError):
        pass

    class GradingUnavailable(RuntimeError):
        pass

    for name, function, error in (("autograder.selfcheck", "check", SelfCheckFailed),
                                  ("autograder.graded_cell", "grade_exercise", GradingUnavailable)):
        module = types.ModuleType(name, "The notebook's API inside the grader's child: it does nothing.")
        setattr(module, function, lambda *args, **kwargs: None)
        setattr(module, error.__name__, error)
        sys.modules[name] = module


def _load(job: ChildJob, send) -> dict:
    """Run the submission's cells in order; a failing cell is recorded and the next ones still run."""
    _notebook_api()
    namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": builtins, "display": _display}
    errors = []
    for index, code, filename in job.cells:
        if index in job.skip_cells:
            continue
        send({"event": "cell-start", "cell": index})
        # AutoGraph (tf.function over Python loops) and tracebacks read the source through linecache,
        # as they do in IPython, which registers each cell the same way.
        linecache.cache[filename] = (len(code), None, code.splitlines(keepends=True), filename)
        if job.capture_outputs:  # nbgrader's autograded notebook shows what each cell showed
            error, outputs = capture.run_cell(code, filename, namespace)
            send({"event": "cell-outputs", "cell": index, "outputs": outputs})
            if error is not None:
                errors.append({"cell": index, "error": error_to_data(describe_exception(error, student_file))})
            continue
        try:
            exec(compile(code, filename, "exec"), namespace)  # noqa: S102  (this is the sandbox)
        except BaseException as error:  # noqa: BLE001  (SystemExit and KeyboardInterrupt too)
            errors.append({"cell": index, "error": error_to_data(describe_exception(error, student_file))})
    defined = {exercise.id: parameters(namespace[exercise.id])
               for exercise in assignment_by_id(job.assignment).exercises if namespace.get(exercise.id) is not None}
    send({"event": "loaded", "errors": errors, "defined": defined})
    return namespace


def _display(*objects, **_ignored) -> None:
    for obj in objects:
        print(obj)
