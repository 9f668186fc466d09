"""Fixtures shared by the test modules (their helpers are in helpers.py)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from helpers import ROOT

# A check of the static reading that crashes raises instead of leaving its evidence out, here and in every
# grader the tests start (they inherit this environment): a test expecting no finding cannot pass on a crash.
os.environ["AUTOGRADER_STRICT_STATIC"] = "1"


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT
