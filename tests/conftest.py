"""Fixtures shared by the test modules (their helpers are in helpers.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from helpers import ROOT


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT
