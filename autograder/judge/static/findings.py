"""What the static reading reports: a finding, the report on one function, and the order findings are kept in."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    """One piece of static evidence, located where the student can find it."""

    pitfall: str  # a CURRICULUM pitfall id: "tape-outside-context", "non-persistent-tape", "gradient-cut"
    message: str  # one sentence for the student, naming the code
    cell: int | None  # notebook cell index (None for .py)
    line: int  # line within the cell
    code: str  # the offending source line, stripped
    # Every line the message names, in the order it names them ("the block ends (lines 6-10) ... on line 12":
    # 6, 10, 12), the finding's own line included when named: the excerpt shown to the student covers them.
    related_lines: tuple[int, ...] = ()
    # What a check that knows the cause says about it, so that headline, place and fix come from one finding
    # and talk about the same line: ``headline``, a clause naming the code and what it does (no final period);
    # ``fix``, what to change on that line. Empty: the pitfall's own words are used.
    headline: str = ""
    fix: str = ""
    whole_path: bool = False  # the code it names lies on every path from the inputs to the value: the cause


@dataclass(frozen=True)
class Reached:
    """A top-level function of the submission that the exercise's function calls (directly or through helpers)."""

    name: str
    cell: int | None  # where it is first called from the exercise's code
    line: int
    code: str
    defined_cell: int | None  # where it is defined
    defined_line: int
    defined_end: int = 0  # its last line

    def holds(self, cell: int | None, line: int | None) -> bool:
        """Whether a place (cell, line) is inside this function's definition."""
        return cell == self.defined_cell and line is not None and self.defined_line <= line <= self.defined_end


@dataclass(frozen=True)
class FunctionReport:
    """What the source says about one exercise function."""

    name: str
    defined: bool
    cell: int | None
    line: int | None
    uses_custom_gradient: bool
    uses_recompute_grad: bool
    uses_stop_gradient: bool
    findings: tuple[Finding, ...]
    # Checks that failed on this source, as "which check: ExceptionType: message". Their evidence is missing
    # (the grade goes on without it); under strict mode the first one raises instead.
    crashes: tuple[str, ...] = ()
    reaches: tuple[Reached, ...] = ()  # the top-level functions it calls: another exercise may be the cause


def dedupe(findings: list[Finding], order: dict[int, int]) -> tuple[Finding, ...]:
    """One finding per place and kind, in reading order (``order``: a cell's index -> its place in the notebook)."""
    kept: dict[tuple, Finding] = {}
    for finding in findings:
        key = (finding.pitfall, finding.cell, finding.line,
               finding.message if finding.pitfall == "gradient-cut" else "")
        kept.setdefault(key, finding)
    return tuple(sorted(kept.values(), key=lambda f: (order.get(f.cell, 0) if f.cell is not None else 0, f.line)))
