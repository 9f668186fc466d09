"""How an exercise is described: once, and used by every front end.

An ``Exercise`` names its function and parameters, its points, how to build
its cases from a seed, the *probe* that runs an implementation on one case
(inside the child, with TensorFlow), the outputs to compare and their
tolerances, and its *mistake models*: known-wrong implementations whose
numbers, when a student's match them, name the pitfall.

A ``Mistake`` here is only its description (pitfall, explanation, fix, and the
*name* of its implementation): the implementations, and the correct helpers
some of them use, live in each assignment's trusted ``mistakes`` module, which
the student's child never imports (see ``autograder.run.child_modules``).

The parent process imports this module and the exercise modules without
importing TensorFlow: probes import it inside their body.
"""
from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

# Default tolerances keyed by dtype, as JAX's check_grads does: relative, and an
# absolute floor that scales with the size of the reference (see compare.py).
TOLERANCES: dict[str, tuple[float, float]] = {
    "float32": (2e-3, 1e-5),
    "float64": (1e-6, 1e-10),
}


class ContractError(Exception):
    """An implementation returned something the contract does not allow (wrong structure).

    Raised by probes; the message is shown to the student as it is, so it says
    what was expected and what came back.
    """


GRADED, DIAGNOSTIC, ADVISORY = "graded", "diagnostic", "advisory"
CASE_KINDS = (GRADED, DIAGNOSTIC, ADVISORY)


@dataclass(frozen=True)
class Case:
    """One input on which an implementation is run and compared with the reference.

    Its ``kind`` says what it may cost (../shared/CURRICULUM.md, "What earns points"): a **graded** case is
    inside the exercise's contract line (its ``reason`` names the clause it rests on) and earns points; a
    **diagnostic** case goes beyond the line only to tell two mistakes apart (the Variable twin of a Tensor
    case) and costs nothing; an **advisory** case probes robustness beyond the line (another dtype, an f that
    does not depend on x) and, when it fails, gives its ``advice``, never a lost point.
    """

    id: str  # stable, short: "f64-variable-upstream"
    description: str  # for people: "float64 Variable x of shape (3, 4), loss = sum(w * y)"; no values if hidden
    args: Mapping[str, Any]  # plain data (numpy arrays, numbers, strings); the probe builds TF objects
    dtype: str = "float32"  # selects the tolerance
    weight: float = 1.0  # share of the exercise's points (graded cases only)
    time_limit: float = 20.0  # seconds for this case, in the child
    # "large" (edge magnitudes, huge or tiny), "zero" (an all-zero row), "scale" (n = 100,000), "pfor", "tensor",
    # "variable", "upstream", "degenerate"
    tags: frozenset[str] = frozenset()
    public: bool = False  # a case students also see in their notebook's checks (always graded)
    kind: str = GRADED
    reason: str = ""  # graded: the contract's clause; diagnostic: what it tells apart
    advice: str = ""  # advisory: what to tell the student when it fails

    def has(self, tag: str) -> bool:
        return tag in self.tags

    @property
    def graded(self) -> bool:
        return self.kind == GRADED


@dataclass(frozen=True)
class Scope:
    """What an exercise's contract line allows as graded input: dtypes, Variables, degenerate functions."""

    dtypes: tuple[str, ...] = ("float32",)  # "Inputs are float32 unless a line says otherwise"
    variables: bool = False  # "a tf.Tensor unless it names tf.Variable too"
    degenerate: bool = False  # the contract names a degenerate f as graded here (a linear f in derivatives)


@dataclass(frozen=True)
class Output:
    """One named result of a probe (a value, a gradient, a count) and how it is compared."""

    name: str
    label: str  # "the gradient with respect to x", used in feedback
    none_means_zero: bool = False  # the contract's "None and zeros are both correct" where the reference is zero
    check_dtype: bool = False  # a float32 result for a float64 input is wrong
    gradient: bool = False  # a derivative: None / zeros here where the reference flows is a cut gradient
    exact: bool = False  # booleans and counts: no tolerance
    # Element by element relative, with no absolute floor: values of very different magnitudes in one tensor
    # (safe_norm's rows of 1e30 and 1e-30) are each held to the relative tolerance, and an exact zero to zero.
    relative: bool = False
    # How the result was computed, where the exercise's line asks for one way (the model run once on the whole
    # batch): a case wrong only here keeps its points, and the exercise keeps at most half of them
    # (judge.evaluate.METHOD_CAP), as right numbers that miss an exercise's learning goal do.
    method: bool = False


@dataclass(frozen=True)
class Look:
    """Where a mistake sits in the student's code, so that its feedback can point at the line.

    ``lines``, in order of preference: a regular expression searched line by line in the exercise's function,
    then in the functions it calls (comments and docstrings left out), or a place by its role: "@def" (the
    function's `def` line), "@return" (its last `return`), "@value" (the line that computes the value it returns;
    in a custom gradient, the forward value), "@grad_fn" (what a custom gradient's grad_fn returns).
    ``says``: what that line does wrong, one clause. ``look_for``: what to look for where no line is found.
    """

    lines: tuple[str, ...] = ()
    says: str = ""
    look_for: str = ""


@dataclass(frozen=True)
class Mistake:
    """A known-wrong implementation: when a student's numbers match it, its pitfall is named."""

    pitfall: str
    implementation: str  # its function's name in the assignment's trusted ``mistakes`` module (same signature)
    explanation: str  # what the student probably did, in one sentence
    fix: str  # what to do instead
    cases: Callable[[Case], bool] = lambda case: not case.has("scale")
    outputs: tuple[str, ...] | None = None  # compare only these outputs (None: all); the mistake's signature
    # The exercise whose mistake this model reproduces inside this one (critic_gradients calls the student's own
    # gradient_penalty): when the student's version of that exercise fails too, it is the cause.
    through: str | None = None
    look: Look | None = None  # where this mistake sits in the code (None: where its pitfall usually does)


@dataclass(frozen=True)
class Exercise:
    id: str
    params: tuple[str, ...]
    points: float
    make_cases: Callable[[np.random.Generator], list[Case]]
    probe: Callable[[Callable[..., Any], Mapping[str, Any]], dict[str, Any]]
    outputs: tuple[Output, ...]
    mistakes: tuple[Mistake, ...] = ()
    requires_custom_gradient: bool = False  # the learning goal is @tf.custom_gradient itself
    materialized_pitfall: str | None = None  # pitfall when only the "scale" cases fail
    # tf.stop_gradient is the point of the exercise (a constant target): only other cuts are evidence of a cut
    stop_gradient_expected: bool = False
    # grad_fn divides by the value (safe_norm's x / norm): where the value is wrong the gradient is wrong with it,
    # so a gradient that fails only where the value fails is the value's mistake, not a second one.
    gradient_uses_value: bool = False
    tolerances: Mapping[str, tuple[float, float]] = field(default_factory=lambda: dict(TOLERANCES))
    hints: Mapping[str, str] = field(default_factory=dict)  # pitfall id -> exercise-specific fix
    scope: Scope = field(default_factory=Scope)  # what its graded cases may be (a test checks every one)
    # Outputs whose being wrong is by itself a pitfall, whatever the numbers: clip_gradient_norm's forward must
    # be the identity, so any other value is `clips-value` (output name -> pitfall id).
    output_pitfalls: Mapping[str, str] = field(default_factory=dict)

    def cases(self, seed: int) -> list[Case]:
        """The cases for a run: fixed edge cases plus random ones drawn from the course's secret ``seed``."""
        return self.cases_from_key(case_key(seed, self.id))

    def cases_from_key(self, key: bytes) -> list[Case]:
        """The cases drawn from this exercise's own key (``case_key``): a process that holds only the key (a
        cluster's worker) builds the same cases as the one that holds the secret, and learns nothing else."""
        stream = np.random.default_rng(int.from_bytes(key, "big"))
        cases = self.make_cases(stream)
        ids = [case.id for case in cases]
        if len(set(ids)) != len(ids):
            raise ValueError(f"{self.id}: case ids must be unique, got {ids}")
        if any(case.kind not in CASE_KINDS or (case.public and not case.graded) for case in cases):
            raise ValueError(f"{self.id}: a case kind is one of {CASE_KINDS}, and public cases are graded")
        return cases

    def tolerance(self, case: Case) -> tuple[float, float]:
        """(relative, absolute floor) for the case's dtype."""
        return self.tolerances.get(case.dtype, self.tolerances["float32"])

    def output(self, name: str) -> Output:
        return next(output for output in self.outputs if output.name == name)


@dataclass(frozen=True)
class Assignment:
    id: str
    title: str
    exercises: tuple[Exercise, ...]

    @property
    def max_score(self) -> float:
        return sum(exercise.points for exercise in self.exercises)

    def exercise(self, exercise_id: str) -> Exercise:
        return next(exercise for exercise in self.exercises if exercise.id == exercise_id)


CASE_KEY_LABEL = "tf-autodiff-autograder cases v2: "


def case_key(secret: int, exercise_id: str) -> bytes:
    """An exercise's key, derived one way from the course's secret (HMAC-SHA256, keyed by the secret): each
    exercise draws from its own stream, so adding one does not move the others, and neither the key nor the
    cases drawn from it tell anything of the secret or of another exercise's cases. Exercise ids are unique
    across the course (the contract), so the id alone names the exercise. Only trusted processes derive it:
    the secret never reaches a process that runs student code (CURRICULUM.md, "The course secret stays with
    the grader")."""
    return hmac.new(str(int(secret)).encode("ascii"), (CASE_KEY_LABEL + exercise_id).encode("utf-8"),
                    hashlib.sha256).digest()
