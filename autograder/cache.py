"""Reference outcomes kept on disk, so that a second run (or a one-notebook run) does not recompute them.

The reference solution and the mistake models give the same numbers every time they run on the same
cases, so their outcomes are kept, keyed by everything that determines them:

- the solution notebook's bytes and the assignment;
- the seed (which draws the random cases);
- the grader's own source: every module of the ``autograder`` package (the exercise descriptions, their
  probes and mistake models, the loader, the child, the sandbox...) except those that only read finished
  records in the parent (``PARENT_ONLY``: comparing, diagnosing, reporting), the versions of Python,
  TensorFlow and NumPy, the machine's architecture, and the environment variables that change
  TensorFlow's numbers (``NUMERIC_ENVIRONMENT``: oneDNN on or off, ...). A module added to the package
  counts until it is named in ``PARENT_ONLY``.

(One cache folder shared by machines of the same architecture but other CPUs could mix last-bit
differences of their kernels; keep the cache per machine, its default.)

Change any of these and the key changes: a stale entry is never read. An entry holds plain data only
(arrays as float64 bytes in base64, as ``wire`` sends them) after a digest of that data: an entry whose
digest does not match (a disk error, a hand edit) is not used, and is computed again. It is checked field
by field when read, and written to a temporary file and renamed, so two graders writing the same entry at
once each leave a complete file. Only clean runs are kept: a timeout, a crash or an out-of-memory outcome depends on the
machine's load, not on the cases, so a run with one of them is recomputed next time.

Each run with a new seed adds an entry per assignment (about 1 MB for the assignments with n = 100,000
cases): the folder keeps the ``KEEP`` entries used last and removes older ones when it writes.

Where: ``$AUTOGRADER_CACHE``, else ``$XDG_CACHE_HOME/tf-autodiff-autograder``, else
``~/.cache/tf-autodiff-autograder``. ``AUTOGRADER_CACHE=off`` turns the cache off. The folder is made
readable by its owner only, and every child that runs a submission has it hidden (see ``grading``).
"""
from __future__ import annotations

import hashlib
import json
import os
import platform
import tempfile
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from pathlib import Path

import numpy as np

from autograder import __version__, wire
from autograder.jobs import Task
from autograder.quiet import quiet_tensorflow
from autograder.sandbox import ErrorInfo, RunRecord, TaskOutcome

FORMAT = 3
KEEP = 64  # entries kept (the ones read or written last); about 40 MB
DISABLED = ("", "0", "off", "no", "none", "false")
CACHEABLE = ("ok", "error")  # outcomes that depend only on the cases, never on the machine's load
# Environment variables under which TensorFlow computes other last bits (or on another device).
NUMERIC_ENVIRONMENT = ("TF_ENABLE_ONEDNN_OPTS", "TF_DETERMINISTIC_OPS", "TF_USE_LEGACY_KERAS", "KERAS_BACKEND",
                       "CUDA_VISIBLE_DEVICES", "OMP_NUM_THREADS")
# Modules that never touch a reference's outcomes: they run in the parent, on records already made.
PARENT_ONLY = frozenset({
    "__main__.py", "cli.py", "discover.py", "compare.py", "diagnose.py", "static_checks.py", "pitfalls.py",
    "results.py", "reports.py", "journal.py", "merge.py", "class_report.py", "formats.py", "feedback_pages.py",
    "gradescope_bundle.py", "public_cases.py",
})


def default_folder() -> Path | None:
    """The cache folder the environment asks for, or None when the cache is turned off."""
    configured = os.environ.get("AUTOGRADER_CACHE")
    if configured is not None:
        return None if configured.strip().lower() in DISABLED else Path(configured).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "tf-autodiff-autograder"


@cache
def grader_fingerprint() -> str:
    """What computes a reference's outcomes: the package's source (but ``PARENT_ONLY``) and the libraries."""
    digest = hashlib.sha256()
    package = Path(__file__).resolve().parent
    for path in sorted(package.rglob("*.py")):
        if path.relative_to(package).as_posix() in PARENT_ONLY:
            continue
        part = path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes()
        digest.update(len(part).to_bytes(8, "big") + part)
    versions = [__version__, platform.python_version(), np.__version__, platform.machine()]
    for distribution in ("tensorflow", "tensorflow-cpu", "keras"):
        try:
            versions.append(f"{distribution}={metadata.version(distribution)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{distribution}=none")
    digest.update("\0".join(versions).encode())
    return digest.hexdigest()


def reference_key(solution: bytes, assignment: str, seed: int) -> str:
    quiet_tensorflow()  # the values the children will run with, when the caller did not set them
    environment = "\0".join(f"{name}={os.environ.get(name, '')}" for name in NUMERIC_ENVIRONMENT)
    digest = hashlib.sha256()
    for part in (f"reference/{FORMAT}".encode(), solution, assignment.encode(), str(seed).encode(),
                 grader_fingerprint().encode(), environment.encode()):
        digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()


@dataclass
class ReferenceCache:
    folder: Path

    @classmethod
    def from_environment(cls) -> "ReferenceCache | None":
        folder = default_folder()
        return None if folder is None else cls(folder)

    def prepare(self) -> bool:
        """Make the folder (owner-only) before any child starts, so that every child has it hidden."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            os.chmod(self.folder, 0o700)
            return True
        except OSError:
            return False

    def path(self, key: str) -> Path:
        return self.folder / f"reference-{key}.json"

    def load(self, key: str, tasks: list[Task]) -> RunRecord | None:
        """The kept record for these tasks, or None (missing, unreadable, or for other tasks)."""
        try:
            digest, _, text = self.path(key).read_bytes().partition(b"\n")
            if hashlib.sha256(text).hexdigest().encode() != digest:
                return None
            record = _record_from_json(json.loads(text.decode("utf-8")), tasks)
        except (OSError, ValueError, KeyError, TypeError, AttributeError, wire.WireError):
            return None
        if record is not None:
            try:
                os.utime(self.path(key))  # used: the last to be removed
            except OSError:
                pass  # a folder this grader may read but not write
        return record

    def save(self, key: str, tasks: list[Task], record: RunRecord) -> bool:
        """Keep a clean record; a record with an outcome that depends on the machine is not kept."""
        if not record.loaded or record.problems or any(
                record.outcomes.get(n) is None or record.outcomes[n].status not in CACHEABLE
                for n in range(len(tasks))):
            return False
        text = json.dumps(_record_to_json(tasks, record), allow_nan=True).encode("utf-8")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile("wb", dir=self.folder, delete=False,
                                             prefix=".reference-", suffix=".tmp") as handle:
                handle.write(hashlib.sha256(text).hexdigest().encode() + b"\n" + text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(handle.name, self.path(key))  # atomic: a reader sees the old file or the new one
            self._trim()
            return True
        except OSError:
            try:
                os.unlink(handle.name)
            except (OSError, UnboundLocalError):
                pass
            return False


    def _trim(self) -> None:
        """Remove all but the ``KEEP`` entries used last (another grader may be removing them too)."""
        entries = []
        for path in self.folder.glob("reference-*.json"):
            try:
                entries.append((path.stat().st_mtime, path))
            except OSError:
                continue
        for _, path in sorted(entries, reverse=True)[KEEP:]:
            try:
                path.unlink()
            except OSError:
                pass


# --------------------------------------------------------------------------- plain data, both ways

def _value_from_json(data) -> wire.Value:
    value = wire.decode_value(data)
    if value.is_none:  # wire.decode_value names every None "NoneType"; keep the name that was saved
        return wire.Value(None, wire.text(data.get("type", "NoneType"), "type"))
    return value


def _error_to_json(error: ErrorInfo) -> dict:
    return {"type": error.type, "message": error.message, "module": error.module, "contract": error.contract,
            "frames": [list(frame) for frame in error.frames]}


def _error_from_json(data) -> ErrorInfo:
    frames = tuple((str(f[0]), int(f[1]), str(f[2]), str(f[3])) for f in data["frames"])
    return ErrorInfo(type=str(data["type"]), message=str(data["message"]), module=str(data["module"]),
                     contract=bool(data["contract"]), frames=frames)


def _record_to_json(tasks: list[Task], record: RunRecord) -> dict:
    outcomes = {}
    for number, outcome in record.outcomes.items():
        outcomes[str(number)] = {
            "status": outcome.status,
            "outputs": None if outcome.outputs is None else {name: wire.value_to_json(value)
                                                             for name, value in outcome.outputs.items()},
            "error": None if outcome.error is None else _error_to_json(outcome.error),
            "message": outcome.message,
            "seconds": outcome.seconds,
        }
    return {
        "format": FORMAT,
        "tasks": [[t.exercise, t.case_index, t.implementation] for t in tasks],
        "loaded": record.loaded,
        "load_errors": [[cell, _error_to_json(error)] for cell, error in record.load_errors],
        "defined": record.defined,
        "problems": list(record.problems),
        "seconds": record.seconds,
        "outcomes": outcomes,
    }


def _record_from_json(data: dict, tasks: list[Task]) -> RunRecord | None:
    if data.get("format") != FORMAT or data["tasks"] != [[t.exercise, t.case_index, t.implementation]
                                                          for t in tasks]:
        return None
    record = RunRecord(loaded=bool(data["loaded"]), seconds=float(data["seconds"]),
                       problems=[str(p) for p in data["problems"]])
    record.load_errors = [(int(cell), _error_from_json(error)) for cell, error in data["load_errors"]]
    record.defined = {str(name): (value if isinstance(value, str) else [str(v) for v in value])
                      for name, value in data["defined"].items()}
    for number, item in data["outcomes"].items():
        outputs = item["outputs"]
        record.outcomes[int(number)] = TaskOutcome(
            status=str(item["status"]),
            outputs=None if outputs is None else {str(name): _value_from_json(value)
                                                  for name, value in outputs.items()},
            error=None if item["error"] is None else _error_from_json(item["error"]),
            message=str(item["message"]),
            seconds=float(item["seconds"]),
        )
    if set(record.outcomes) != set(range(len(tasks))):
        return None
    return record
