"""What the grader runs of a course notebook needs only what grading installs: the kit (numpy, nbformat, rich)
and TensorFlow. The implicit notebook's setup cell once imported matplotlib for its figures; a grader installed
as `.ci/run`'s oldest-TensorFlow venv installs it (`pip install -e .`, no extra) then failed every implicit
submission and the reference itself ("the reference solution of implicit does not run cleanly"). Figures live in
the read-only demo cells, which the grader skips."""
from __future__ import annotations

import ast
import sys

import pytest

from autograder.load.cells import read_submission
from helpers import ASSIGNMENT_IDS, ROOT

GRADING_MODULES = set(sys.stdlib_module_names) | {"numpy", "tensorflow", "autograder", "nbformat", "rich"}


def imported_modules(code: str) -> set[str]:
    """The top-level packages a cell imports, wherever in the cell (a `try:` included)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


@pytest.mark.parametrize("folder", ["solutions", "assignments"])
@pytest.mark.parametrize("assignment", ASSIGNMENT_IDS)
def test_the_cells_the_grader_runs_import_only_what_grading_installs(folder, assignment):
    source = read_submission(ROOT / folder / assignment / f"{assignment}.ipynb")
    assert source.problem is None, source.problem
    for cell in source.runnable_cells:
        extra = imported_modules(cell.code) - GRADING_MODULES
        assert not extra, f"{folder}/{assignment}, cell [{cell.index}] ({cell.grade_id}) imports {sorted(extra)}"


def test_the_check_sees_an_import_in_a_try_and_a_from_import():
    assert imported_modules("try:\n    import matplotlib.pyplot as plt\nexcept ImportError:\n    pass\n"
                            "from scipy.linalg import solve\nfrom . import x") == {"matplotlib", "scipy"}
