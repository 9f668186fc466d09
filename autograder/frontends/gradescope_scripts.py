"""The two scripts of the Gradescope zip, filled in for one assignment: ``setup.sh`` and ``run_autograder``.

- ``setup.sh``: run once when Gradescope builds the image (Ubuntu, as root): installs Python 3 and pip if
  missing, then ``pip install`` of the bundled kit (which brings TensorFlow and the other dependencies);
- ``run_autograder``: run for each submission; ALWAYS writes ``/autograder/results/results.json``.

``run_autograder`` is two layers. The outer one (the script, standard library only) starts the inner one
(``python -m autograder.frontends.gradescope_grading``, which grades with the bundled kit: ``source/`` comes
first on ``PYTHONPATH``) under a time limit, and writes a score-0 result itself when the inner one died, timed
out or could not even import, so a broken installation still reaches the student as a message rather than a
missing file.
"""
from __future__ import annotations

import json

from autograder.model.course import Assignment

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
python3 -c "import autograder.cli, autograder.frontends.gradescope_grading"
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
    command = [sys.executable, "-m", "autograder.frontends.gradescope_grading", "--root", str(root),
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


def filled_scripts(assignment: Assignment, visibility: str, timeout: int, seed: int | None) -> dict[str, str]:
    """setup.sh and run_autograder for ``assignment``, by name."""
    substitutions = {
        "__ASSIGNMENT_JSON__": json.dumps(assignment.id),
        "__EXERCISES_JSON__": json.dumps([[e.id, e.points] for e in assignment.exercises]),
        "__VISIBILITY_JSON__": json.dumps(visibility),
        "__TIMEOUT__": str(int(timeout)),
        "__SEED_PYTHON__": repr(None if seed is None else int(seed)),  # Python, not JSON: None or an int
        "__ASSIGNMENT__": assignment.id,
    }
    return {"setup.sh": _fill(SETUP_SH, substitutions), "run_autograder": _fill(RUN_AUTOGRADER, substitutions)}


def _fill(template: str, substitutions: dict[str, str]) -> str:
    for key, value in substitutions.items():  # no key is a prefix of another
        template = template.replace(key, value)
    return template
