"""Gradescope: the autograder zip an instructor uploads.

``autograder gradescope-bundle ASSIGNMENT_ID [--output FILE.zip]`` writes a zip with, at
its root (Gradescope unpacks it into ``/autograder/source``):

- ``setup.sh`` and ``run_autograder`` (``gradescope_scripts``): the image's installation, and
  the grading of each submission (by ``gradescope_grading``), which ALWAYS writes
  ``/autograder/results/results.json``;
- the kit's source (``autograder/``, ``pyproject.toml``, ``README.md``) and the reference
  ``solutions/<id>/<id>.ipynb``.

The same kit gives the same zip, byte for byte (fixed timestamps, sorted entries).
"""
from __future__ import annotations

import os
import sys
import zipfile
from pathlib import Path

from autograder.config import KIT_ROOT, SetupError, find_solutions
from autograder.course import assignment_by_id
from autograder.frontends.gradescope_scripts import filled_scripts
from autograder.report.formats import VISIBILITIES

KIT = KIT_ROOT
DEFAULT_TIMEOUT = 540  # below Gradescope's default 10 minutes, so that the fallback result is written in time
ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed timestamps: the same kit gives the same zip
IGNORED = {"__pycache__", ".ipynb_checkpoints", "__MACOSX"}


class BundleError(RuntimeError):
    pass


def build_bundle(assignment_id: str, output: Path, solutions: Path | None = None, visibility: str = "visible",
                 timeout: int = DEFAULT_TIMEOUT, seed: int | None = None) -> list[str]:
    """Write the zip; return the names of its entries."""
    assignment = assignment_by_id(assignment_id)
    if visibility not in VISIBILITIES:
        raise BundleError(f"visibility must be one of {', '.join(VISIBILITIES)}")
    if not (KIT / "pyproject.toml").is_file():
        raise BundleError(f"no pyproject.toml in {KIT}: build the bundle from a checkout of the course, "
                          "where the autograder package has its pyproject.toml beside it")
    try:
        solutions = find_solutions(solutions)
    except SetupError as error:
        raise BundleError(str(error)) from None
    reference = solutions / assignment_id / f"{assignment_id}.ipynb"
    if not reference.is_file():
        raise BundleError(f"the reference solution {reference} does not exist")
    scripts = filled_scripts(assignment, visibility, timeout, seed)
    entries: list[tuple[str, bytes, int]] = [
        ("setup.sh", scripts["setup.sh"].encode(), 0o755),
        ("run_autograder", scripts["run_autograder"].encode(), 0o755),
        ("pyproject.toml", (KIT / "pyproject.toml").read_bytes(), 0o644),
    ]
    if (KIT / "README.md").is_file():  # pyproject.toml names it as the package's readme: pip needs it
        entries.append(("README.md", (KIT / "README.md").read_bytes(), 0o644))
    package = KIT / "autograder"
    for path in sorted(package.rglob("*")):
        relative = path.relative_to(KIT)
        if path.is_file() and path.suffix != ".pyc" and not any(
                part in IGNORED or part.startswith(".") for part in relative.parts):
            entries.append((relative.as_posix(), path.read_bytes(), 0o644))
    entries.append((f"solutions/{assignment_id}/{assignment_id}.ipynb", reference.read_bytes(), 0o644))
    output.parent.mkdir(parents=True, exist_ok=True)
    temporary = output.with_name(f".{output.name}.tmp")
    with zipfile.ZipFile(temporary, "w", compression=zipfile.ZIP_DEFLATED) as bundle:
        for name, content, mode in entries:
            info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
            info.external_attr = (0o100000 | mode) << 16  # a regular file with these permissions
            info.compress_type = zipfile.ZIP_DEFLATED
            bundle.writestr(info, content)
    os.replace(temporary, output)
    return [name for name, _, _ in entries]


def bundle_command(args) -> int:
    output = Path(args.output or f"gradescope-{args.assignment}.zip")
    try:
        names = build_bundle(args.assignment, output, Path(args.solutions) if args.solutions else None,
                             args.visibility, args.timeout, getattr(args, "seed", None))
    except BundleError as error:
        print(f"autograder: error: {error}", file=sys.stderr)
        return 2
    print(f"wrote {output} ({len(names)} files, {output.stat().st_size // 1024} KiB): upload it as the autograder "
          f"of a Gradescope programming assignment (base image Ubuntu 22.04 or newer); it grades each student's "
          f"notebook as {args.assignment}.")
    return 0
