"""What the rules have found so far about one exercise (``Diagnosis``): the pitfalls named, each with one
explanation, the mistake models that matched, and the helpers every rule shares to read the evidence (a case's
outcome, the static finding that locates a pitfall, an error quoted only from a public case). The rules
(``judge.diagnose``), the signals they test and the pointing read it; it imports none of them."""
from __future__ import annotations

from dataclasses import dataclass

from autograder.judge.cases import CaseVerdict, Verdict
from autograder.judge.evidence import ExerciseEvidence
from autograder.judge.hidden import known_type
from autograder.judge.messages import headline, trimmed
from autograder.judge.static.findings import Finding
from autograder.judge.where import where_of
from autograder.model.outcomes import ErrorInfo, TaskOutcome
from autograder.model.pitfalls import Look, describe
from autograder.model.results import Explanation, Where


@dataclass
class Diagnosis:
    """What the rules found, in the order they found it (one explanation per pitfall)."""

    evidence: ExerciseEvidence
    verdicts: list[CaseVerdict]

    def __post_init__(self):
        self.found: dict[str, Explanation] = {}
        self.through: set[str] = set()  # exercises whose mistake a matching mistake model reproduces (causes)
        self.looks: dict[str, Look] = {}  # pitfall -> the look of the mistake model that named it
        self.findings = list(getattr(self.evidence.static, "findings", ()))
        self._positions = {case.id: n for n, case in enumerate(self.evidence.cases)}

    def name(self, pitfall: str, text: str | None = None, fix: str | None = None, where: Where | None = None,
             at: Finding | None = None, consequence: str = "") -> None:
        """Name a pitfall once. ``at``: the static finding that locates it; when that finding knows the cause
        (its headline and fix), headline, place and fix all come from it, so that they talk about one line and
        cannot disagree. ``consequence``: what the numbers showed of it, said after the cause."""
        if pitfall in self.found:
            return
        default = describe(pitfall)
        if at is None and where is None:
            at = self.finding(pitfall)  # the static reading saw it: its line, and its words for it
        if at is not None:
            where = self.where(at)
            if at.headline:
                text, fix = at.headline, at.fix or fix
        text = text or default.what
        if consequence:
            text = f"{text}; {consequence}"
        self.found[pitfall] = Explanation(pitfall, text, fix or self.evidence.exercise.hints.get(pitfall, default.fix),
                                          where)

    def finding(self, pitfall: str) -> Finding | None:
        """The static finding that best locates ``pitfall``, or None: one on every path from the inputs to the
        value first; tf.stop_gradient, often intended (targets, straight-through), after other cuts."""
        for finding in sorted(self.findings, key=lambda f: (not f.whole_path, "stop_gradient" in f.code)):
            if finding.pitfall == pitfall:
                return finding
        return None

    def where(self, finding: Finding) -> Where:
        return where_of(self.evidence.source, finding.cell, finding.line, finding.code, finding.message,
                        finding.related_lines)

    def located(self, pitfall: str) -> Where | None:
        """Where the static reading saw ``pitfall``, or None."""
        finding = self.finding(pitfall)
        return None if finding is None else self.where(finding)

    @property
    def failing(self) -> list[CaseVerdict]:
        return [v for v in self.verdicts if not v.passed]

    @property
    def wrong(self) -> list[CaseVerdict]:
        return [v for v in self.failing if v.kind == Verdict.WRONG]

    def index(self, verdict: CaseVerdict) -> int:
        """The verdict's case's position in the evidence (the verdicts may leave some cases out)."""
        return self._positions[verdict.case.id]

    def student(self, verdict: CaseVerdict) -> TaskOutcome | None:
        return self.evidence.student[self.index(verdict)]

    def raises(self, error: ErrorInfo) -> str:
        """'the TypeError your code raises ("its message")', quoted from a public case only: a hidden case's
        error is named by its type, Python's or TensorFlow's, and never quoted (``judge.hidden``)."""
        public = any(v.case.public and self.student(v) is not None and self.student(v).error is error
                     for v in self.verdicts)
        if public:
            return f'the {error.type} your code raises ("{trimmed(headline(error), 160)}")'
        return f"the {known_type(error) or 'exception'} your code raises"
