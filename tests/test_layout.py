"""The house inside autograder/: what each folder may import, no import cycle, small modules, and the trust
boundary (what a student's child holds). Read from the source with ast, plus one real import of the child."""
from __future__ import annotations

import ast
import importlib
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.course import all_assignments
from autograder.run.child_modules import CHILD_MODULES, trusted
from helpers import ROOT, quiet_env

PACKAGE = ROOT / "autograder"
MAX_LINES = 300
# What each part may import of the kit (besides itself and the package root's version).
ALLOWED = {
    "model": set(), "config": set(), "supported": set(), "course": {"model"}, "load": {"model", "course"},
    "run": {"model", "config", "course", "supported"}, "judge": {"model", "load", "config"}, "store": {"model", "config", "run"},
    "report": {"model", "course", "store"}, "pipeline": {"config", "course", "judge", "load", "model", "run", "store"},
}
FOLDERS = ("model", "load", "run", "judge", "course", "store", "report", "frontends", "pipeline")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def part_of(module: str) -> str:
    pieces = module.split(".")
    return pieces[1] if len(pieces) > 1 else ""


def kit_imports(path: Path) -> set[str]:
    """Modules of the kit a file imports, at any depth, those under `if TYPE_CHECKING:` too: a reader follows
    a type-only import as they follow any other, so it counts for the folders' rules and for cycles."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "autograder"}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "autograder":
            for alias in node.names:  # `from autograder.run import wire` imports the module autograder.run.wire
                folder = PACKAGE.parent / node.module.replace(".", "/") / alias.name
                submodule = folder.with_suffix(".py").is_file() or (folder / "__init__.py").is_file()
                found.add(f"{node.module}.{alias.name}" if submodule else node.module)
    return found


def graph() -> dict[str, set[str]]:
    return {module_name(p): kit_imports(p) for p in sorted(PACKAGE.rglob("*.py"))}


def test_each_part_imports_only_what_its_docstring_allows():
    wrong = []
    for module, imported in graph().items():
        part = part_of(module)
        if part not in ALLOWED:
            continue  # frontends, cli and the notebook API may import anything
        for target in imported:
            other = part_of(target)
            if other and other != part and other not in ALLOWED[part]:
                wrong.append(f"{module} imports {target}")
    assert not wrong, "\n".join(wrong)


def test_a_type_only_import_counts_as_an_import(tmp_path):
    module = tmp_path / "typed.py"
    module.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from autograder.model.course import Case\n",
                      encoding="utf-8")
    assert kit_imports(module) == {"autograder.model.course"}


def test_no_import_cycle():
    edges = graph()
    state: dict[str, int] = {}
    cycles = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for target in sorted(edges.get(node, ())):
            if target not in edges:
                continue
            if state.get(target) == 1:
                cycles.append(" -> ".join(path[path.index(target):] + [target]) if target in path else target)
            elif target not in state:
                visit(target, path + [target])
        state[node] = 2

    for module in edges:
        if module not in state:
            visit(module, [module])
    assert not cycles, "\n".join(cycles)


def test_modules_are_small_and_folders_say_what_they_hold_and_may_import():
    large = [f"{p.relative_to(ROOT)}: {n} lines" for p in PACKAGE.rglob("*.py")
             if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES]
    assert not large, large
    for folder in FOLDERS:
        doc = ast.get_docstring(ast.parse((PACKAGE / folder / "__init__.py").read_text(encoding="utf-8")))
        assert doc and "May import" in doc, folder


@pytest.mark.slow  # a fresh Python that imports the child and TensorFlow
def test_a_students_child_holds_exactly_the_listed_modules_and_nothing_trusted():
    assert not [m for m in CHILD_MODULES if trusted(m)]
    done = subprocess.run([sys.executable, "-c", "import sys, autograder.run.child; print('\\n'.join(sorted("
                           "m for m in sys.modules if m == 'autograder' or m.startswith('autograder.'))))"],
                          cwd=ROOT, env=quiet_env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert set(done.stdout.split()) == CHILD_MODULES, set(done.stdout.split()) ^ CHILD_MODULES


@pytest.mark.parametrize("assignment", [a.id for a in all_assignments()])
def test_every_mistake_model_is_in_the_trusted_module_with_the_exercises_signature(assignment):
    module = importlib.import_module(f"autograder.course.{assignment}.mistakes")
    assert trusted(module.__name__) and module.__name__ not in CHILD_MODULES
    named = set()
    for exercise in next(a for a in all_assignments() if a.id == assignment).exercises:
        for mistake in exercise.mistakes:
            function = getattr(module, mistake.implementation)
            assert list(inspect.signature(function).parameters) == list(exercise.params), mistake.implementation
            named.add(mistake.implementation)
    public = {name for name, value in vars(module).items() if inspect.isfunction(value) and not name.startswith("_")}
    assert public == named, "every public function of a mistakes module is a mistake model, and only those"


def test_every_environment_variable_is_declared_once_and_documented():
    from autograder.config import VARIABLES

    documented = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    for name, declared in VARIABLES.items():
        assert f"| `{name}` | {declared.default} | {declared.help} |" in documented, name
    reads = {}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and ast.unparse(node.func) in ("os.environ.get", "os.getenv") \
                    and node.args and isinstance(node.args[0], ast.Constant):
                reads.setdefault(node.args[0].value, []).append(path.name)
    # Only config.py reads a variable by name (run/isolation.py copies a fixed list into the child's environment).
    assert {name: files for name, files in reads.items() if set(files) - {"config.py"}} == {}, reads


def test_no_test_module_imports_another_or_conftest():
    tests = ROOT / "tests"
    modules = {p.stem for p in tests.glob("*.py")} - {"helpers"}
    for path in tests.glob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            assert not set(names) & modules, f"{path.name} imports {set(names) & modules}: share code in helpers.py"
