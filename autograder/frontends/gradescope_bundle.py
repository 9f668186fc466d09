"""Gradescope: the autograder zip an instructor uploads, and what runs inside it.

``autograder gradescope-bundle ASSIGNMENT_ID [--output FILE.zip]`` writes a zip with, at
its root (Gradescope unpacks it into ``/autograder/source``):

- ``setup.sh``: run once when Gradescope builds the image (Ubuntu, as root): installs
  Python 3 and pip if missing, then ``pip install`` of the bundled kit (which brings
  TensorFlow and the other dependencies);
- ``run_autograder``: run for each submission; grades the notebook found in
  ``/autograder/submission`` as ASSIGNMENT_ID and ALWAYS writes
  ``/autograder/results/results.json`` (score 0 and an output that says why when there is
  no notebook or the grader cannot run);
- the kit's source (``autograder/``, ``pyproject.toml``, ``README.md``) and the reference
  ``solutions/<id>/<id>.ipynb``.

Which notebook counts: the one named ``<id>.ipynb`` (the shallowest, if several); else
the only notebook; else every notebook is graded and the highest score counts (the
output lists each). Without any ``.ipynb``, the same rules apply to ``.py`` files.

Environment of ``run_autograder``: ``GRADESCOPE_AUTOGRADER_ROOT`` (default
``/autograder``) is the root holding ``source/``, ``submission/`` and ``results/``;
``AUTOGRADER_SEED`` (an integer, a course secret: the hidden cases derive from it) fixes the random cases,
which by default are drawn per run from the system's randomness. Students never see the seed: it is only in
run_autograder's own log (stdout, hidden from students), never in results.json.

``run_autograder`` is two layers. The outer one (the script, standard library only)
starts the inner one (``python -m autograder.frontends.gradescope_bundle``, which grades with the
bundled kit: ``source/`` comes first on ``PYTHONPATH``) under a time limit, and writes a
score-0 result itself when the inner one died, timed out or could not even import, so a
broken installation still reaches the student as a message rather than a missing file.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
import zipfile
from pathlib import Path

from autograder.config import KIT_ROOT, SetupError, Settings, find_solutions, variable
from autograder.course import ASSIGNMENT_IDS, assignment_by_id
from autograder.load.discover import Found
from autograder.model.results import ExerciseResult, Status, SubmissionResult
from autograder.pipeline.grading_run import grade
from autograder.report.formats import VISIBILITIES, gradescope_results
from autograder.report.numbers import number
from autograder.store.atomic import write_atomically

ROOT_ENV = "GRADESCOPE_AUTOGRADER_ROOT"
SEED_ENV = "AUTOGRADER_SEED"  # the same name the graded cells read
KIT = KIT_ROOT
DEFAULT_TIMEOUT = 540  # below Gradescope's default 10 minutes, so that the fallback result is written in time
ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed timestamps: the same kit gives the same zip
IGNORED = {"__pycache__", ".ipynb_checkpoints", "__MACOSX"}


class BundleError(RuntimeError):
    pass


# --------------------------------------------------------------------------- building the zip

SETUP_SH = r"""#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image, with this zip
# unpacked in /autograder/source. Made by `autograder gradescope-bundle __ASSIGNMENT__`.
set -euo pipefail
SOURCE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if ! command -v python3 >/dev/null 2>&1 || ! python3 -m pip --version >/dev/null 2>&1; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 python3-pip
fi
if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
    echo "setup.sh: the grader needs Python 3.10 or newer: choose an Ubuntu 22.04 (or newer) base image" >&2
    exit 1
fi

# The image exists only to grade: install into its Python (Ubuntu 24.04 marks it externally managed).
export PIP_BREAK_SYSTEM_PACKAGES=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
# A grading image has no TensorFlow of its own: the `tf` extra brings the supported one.
python3 -m pip install "$SOURCE[tf]"
chmod +x "$SOURCE/run_autograder"
# Fail the build now, not at the first student, if the kit does not import.
python3 -c "import autograder.cli, autograder.frontends.gradescope_bundle"
echo "setup.sh: the autograder for __ASSIGNMENT__ is installed"
"""

RUN_AUTOGRADER = r'''#!/usr/bin/env python3
"""Gradescope runs this for each submission. Made by `autograder gradescope-bundle __ASSIGNMENT__`.

It grades the notebook in <root>/submission as __ASSIGNMENT__ and ALWAYS writes
<root>/results/results.json; when the grader cannot run, a result with score 0 and an
output that says why. <root> is $GRADESCOPE_AUTOGRADER_ROOT (default /autograder);
$AUTOGRADER_SEED (an integer) fixes the random cases. Standard library only, so that even
a broken installation is reported to the student instead of leaving no result.
"""
import json
import math
import os
import signal
import subprocess
import sys
from pathlib import Path

ASSIGNMENT = __ASSIGNMENT_JSON__
EXERCISES = __EXERCISES_JSON__  # [id, points] of each exercise, for the fallback result
VISIBILITY = __VISIBILITY_JSON__
TIMEOUT = __TIMEOUT__  # seconds for the grader; keep Gradescope's own timeout longer
SEED = __SEED_PYTHON__  # the course's secret seed of the hidden cases (None: drawn per run); students never see it


def main() -> int:
    root = Path(os.environ.get("GRADESCOPE_AUTOGRADER_ROOT") or "/autograder")
    results = root / "results" / "results.json"
    results.parent.mkdir(parents=True, exist_ok=True)
    if results.exists():
        results.unlink()  # a stale file must not pass for this run's result
    source = root / "source"
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", TF_ENABLE_ONEDNN_OPTS="0", PYTHONWARNINGS="ignore")
    if SEED is not None:
        env.setdefault("AUTOGRADER_SEED", str(SEED))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(source), os.environ.get("PYTHONPATH", "")) if p)
    command = [sys.executable, "-m", "autograder.frontends.gradescope_bundle", "--root", str(root),
               "--assignment", ASSIGNMENT, "--visibility", VISIBILITY]
    problem = None
    try:
        child = subprocess.Popen(command, env=env, cwd=str(source), start_new_session=True)
        try:
            status = child.wait(timeout=TIMEOUT)
            if status != 0:
                problem = f"the grader stopped with exit status {status}"
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)  # the grader and every process it started
            child.wait()
            problem = f"the grader did not finish within {TIMEOUT} seconds"
    except OSError as error:
        problem = f"the grader could not start: {error}"
    if not valid(results):
        reason = problem or "the grader wrote no result"
        print(f"run_autograder: {reason}; writing a score-0 result", file=sys.stderr)
        write(results, fallback(reason))
    return 0


def valid(path: Path) -> bool:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    score = data.get("score") if isinstance(data, dict) else None
    return (isinstance(score, (int, float)) and not isinstance(score, bool) and math.isfinite(score)
            and isinstance(data.get("tests"), list))


def fallback(reason: str) -> dict:
    message = (f"The autograder could not grade this submission: {reason}. "
               "Nothing was graded; please tell your instructor.")
    return {
        "score": 0.0,
        "output": message,
        "output_format": "text",
        "test_output_format": "text",
        "test_name_format": "text",
        "visibility": VISIBILITY,
        "stdout_visibility": "hidden",
        "extra_data": {"assignment": ASSIGNMENT, "grader_failed": True},
        "tests": [{"name": name, "number": str(n), "score": 0.0, "max_score": points, "status": "failed",
                   "output": f"not graded: {reason}", "output_format": "text", "visibility": VISIBILITY}
                  for n, (name, points) in enumerate(EXERCISES, start=1)],
    }


def write(path: Path, data: dict) -> None:
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(temporary, path)


if __name__ == "__main__":
    sys.exit(main())
'''


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
    substitutions = {
        "__ASSIGNMENT_JSON__": json.dumps(assignment_id),
        "__EXERCISES_JSON__": json.dumps([[e.id, e.points] for e in assignment.exercises]),
        "__VISIBILITY_JSON__": json.dumps(visibility),
        "__TIMEOUT__": str(int(timeout)),
        "__SEED_PYTHON__": repr(None if seed is None else int(seed)),  # Python, not JSON: None or an int
        "__ASSIGNMENT__": assignment_id,
    }
    entries: list[tuple[str, bytes, int]] = [
        ("setup.sh", _fill(SETUP_SH, substitutions).encode(), 0o755),
        ("run_autograder", _fill(RUN_AUTOGRADER, substitutions).encode(), 0o755),
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


def _fill(template: str, substitutions: dict[str, str]) -> str:
    for key, value in substitutions.items():  # no key is a prefix of another
        template = template.replace(key, value)
    return template


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


# --------------------------------------------------------------------------- inside Gradescope

def candidates(submission: Path, assignment_id: str) -> list[Path]:
    """The files that may be the submission, by the rules in this module's docstring (before grading)."""
    if not submission.is_dir():
        return []
    for suffix in (".ipynb", ".py"):
        files = [p for p in sorted(submission.rglob(f"*{suffix}"), key=lambda p: (len(p.parts), str(p)))
                 if p.is_file() and not any(part in IGNORED or part.startswith(".")
                                            for part in p.relative_to(submission).parts)]
        named = [p for p in files if p.name == f"{assignment_id}{suffix}"]
        if named:
            return named[:1]
        if files:
            return files
    return []


def grade_in_gradescope(root: Path, assignment_id: str, seed: int | None = None,
                        visibility: str = "visible") -> dict:
    """results.json's content for the submission in ``root/submission`` (never raises SetupError)."""
    started = time.monotonic()
    submission = root / "submission"
    files = candidates(submission, assignment_id)
    if not files:
        present = sorted(str(p.relative_to(submission)) for p in submission.rglob("*") if p.is_file()) \
            if submission.is_dir() else []
        listing = f" (it holds: {', '.join(present[:20])}{', …' if len(present) > 20 else ''})" if present else \
            " (it is empty)"
        return unavailable(assignment_id, f"no notebook (.ipynb) was found in your submission{listing}; "
                                          f"upload your {assignment_id}.ipynb", "missing",
                           time.monotonic() - started, visibility)
    settings = Settings(jobs=max(1, min(len(files), os.cpu_count() or 1)), assignment=assignment_id,
                        solutions=root / "source" / "solutions", seed=seed)
    try:
        graded = grade([Found(path, str(path.relative_to(submission))) for path in files], settings)
        results = graded.results
    except SetupError as error:
        return unavailable(assignment_id, f"the autograder could not run: {error}", "error",
                           time.monotonic() - started, visibility)
    best = max(results, key=lambda r: r.score)  # the first of the highest, in path order
    print(f"graded with seed {graded.seed}")  # run_autograder's stdout: for instructors only
    preamble = [f"Graded {best.submission} as {assignment_id}."]
    if len(results) > 1:
        preamble = [f"Your submission holds {len(results)} files that could be the {assignment_id} notebook, and "
                    f"none is named {assignment_id}.ipynb: each was graded and the highest score counts."]
        preamble += [f"  {r.submission}: {number(r.score)} / {number(r.max_score)}"
                     + ("  (counted)" if r is best else "") for r in results]
    return gradescope_results(best, seed=graded.seed, visibility=visibility, preamble=preamble)


def unavailable(assignment_id: str, reason: str, status: str, seconds: float, visibility: str = "visible") -> dict:
    """Score 0 with every exercise listed, and the reason, in Gradescope's format."""
    assignment = assignment_by_id(assignment_id)
    result = SubmissionResult("(nothing graded)", "", assignment_id, [
        ExerciseResult(e.id, 0.0, e.points, Status(status), [], f"Not graded: {reason}.")
        for e in assignment.exercises],
        seconds=seconds, notes=[reason])
    return gradescope_results(result, visibility=visibility)


def main(argv: list[str] | None = None) -> int:
    """The inner layer of run_autograder: grade, then write results.json whatever happens."""
    parser = argparse.ArgumentParser(prog="python -m autograder.frontends.gradescope_bundle",
                                     description="Grade a Gradescope submission (run by run_autograder).")
    parser.add_argument("--root", default=variable(ROOT_ENV) or "/autograder")
    parser.add_argument("--assignment", required=True, choices=ASSIGNMENT_IDS)
    parser.add_argument("--visibility", default="visible", choices=VISIBILITIES)
    args = parser.parse_args(argv)
    root = Path(args.root)
    started = time.monotonic()
    print(f"grader: {Path(__file__).resolve().parent}")  # run_autograder's stdout is for instructors
    try:
        seed_text = (variable(SEED_ENV) or "").strip()
        seed = int(seed_text) if seed_text else None
        report = grade_in_gradescope(root, args.assignment, seed, args.visibility)
    except Exception as error:  # noqa: BLE001 - whatever it is, the student gets a result that says so
        traceback.print_exc()
        report = unavailable(args.assignment, f"the autograder failed ({type(error).__name__}: {error})", "error",
                             time.monotonic() - started, args.visibility)
    write_atomically(root / "results" / "results.json", json.dumps(report, indent=2) + "\n")
    print(f"{args.assignment}: {number(report['score'])} points; results.json written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
