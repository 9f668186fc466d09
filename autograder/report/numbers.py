"""Points for people and spreadsheets: the one formatter every writer uses."""
from __future__ import annotations


def points(value: float) -> float:
    """An exercise's points as the contract's JSON gives them."""
    return round(value, 4)


def number(value: float) -> str:
    """10, 9.3333, 0.5: at most 4 decimals, no float noise, never '-0'."""
    text = f"{round(value, 4):.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text
