"""Points for people and for spreadsheets: the formatters every writer uses.

People read at most two decimals, as nbgrader shows them ("9.43 / 10"): pages, text, summaries, logs. The
contract's JSON (``points``) and the gradebooks (``exact``) keep four, so that totals add up where a
spreadsheet or a grader adds them.
"""
from __future__ import annotations


def points(value: float) -> float:
    """An exercise's points as the contract's JSON gives them."""
    return round(value, 4)


def _shown(value: float, decimals: int) -> str:
    text = f"{round(value, decimals):.{decimals}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def number(value: float) -> str:
    """For people: 10, 9.33, 0.5: at most 2 decimals, no float noise, never '-0'."""
    return _shown(value, 2)


def exact(value: float) -> str:
    """For gradebooks and machines: 10, 9.3333, 0.5: at most 4 decimals (the JSON's precision)."""
    return _shown(value, 4)
