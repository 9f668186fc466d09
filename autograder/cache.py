"""Reference outcomes kept on disk, so that a second run (or a one-notebook run) does not recompute them;
and grades kept beside them (``ResultStore``, below), which a run reuses when asked.

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
from autograder.journal import dump_result, load_result
from autograder.quiet import quiet_tensorflow
from autograder.results import SubmissionResult
from autograder.sandbox import ErrorInfo, RunRecord, TaskOutcome

FORMAT = 3
KEEP = 64  # entries kept (the ones read or written last); about 40 MB
KEEP_RESULTS = 20_000  # grades kept (a few KB each): a few classes' worth
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
def grader_fingerprint(whole: bool = False) -> str:
    """What computes a reference's outcomes: the package's source (but ``PARENT_ONLY``, unless ``whole``: a
    kept grade depends on the feedback's wording too) and the libraries."""
    digest = hashlib.sha256()
    package = Path(__file__).resolve().parent
    for path in sorted(package.rglob("*.py")):
        if not whole and path.relative_to(package).as_posix() in PARENT_ONLY:
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
            text = _read_entry(self.path(key))
            record = None if text is None else _record_from_json(json.loads(text.decode("utf-8")), tasks)
        except (ValueError, KeyError, TypeError, AttributeError, wire.WireError):
            return None
        if record is not None:
            _mark_used(self.path(key))
        return record

    def save(self, key: str, tasks: list[Task], record: RunRecord) -> bool:
        """Keep a clean record; a record with an outcome that depends on the machine is not kept."""
        if not clean(record, len(tasks)):
            return False
        text = json.dumps(_record_to_json(tasks, record), allow_nan=True).encode("utf-8")
        return _write_entry(self.folder, self.path(key), text, "reference-*.json", KEEP)


def clean(record: RunRecord, tasks: int) -> bool:
    """Every task ran to an outcome that depends only on the cases (not on the machine's load)."""
    return record.loaded and not record.problems and all(
        record.outcomes.get(n) is not None and record.outcomes[n].status in CACHEABLE for n in range(tasks))


@dataclass
class ResultStore:
    """Grades kept on disk, so that a later run grades only what it has not graded before.

    Written by every run that has a cache folder (in its ``results/``), for clean runs only; read only when
    asked (``autograder grade --reuse-results``, which each nbgrader graded cell passes: after a class run,
    ``nbgrader autograde`` then reuses its grades instead of starting one grader per notebook). The key
    holds everything a grade depends on: the code the submission runs (``grading.program_digest``, not the
    file's bytes: outputs and metadata do not count), the reference key (solution, assignment, seed, grader,
    libraries, numeric environment), the whole grader's source (the feedback's wording) and the limits.
    """

    folder: Path

    @classmethod
    def inside(cls, cache: ReferenceCache) -> "ResultStore":
        return cls(cache.folder / "results")

    @staticmethod
    def key(program: str, reference: str, limits: object) -> str:
        digest = hashlib.sha256()
        for part in (f"result/{FORMAT}".encode(), program.encode(), reference.encode(),
                     grader_fingerprint(whole=True).encode(), repr(limits).encode()):
            digest.update(len(part).to_bytes(8, "big") + part)
        return digest.hexdigest()

    def path(self, key: str) -> Path:
        return self.folder / f"result-{key}.json"

    def load(self, key: str) -> SubmissionResult | None:
        text = _read_entry(self.path(key))
        try:
            result = None if text is None else load_result(json.loads(text.decode("utf-8")))
        except ValueError:
            return None
        if result is not None:
            _mark_used(self.path(key))
        return result

    def save(self, key: str, result: SubmissionResult) -> bool:
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)  # owner-only, like the cache folder
        except OSError:
            return False
        return _write_entry(self.folder, self.path(key), json.dumps(dump_result(result)).encode("utf-8"))

    def trim(self) -> None:
        """Remove all but the ``KEEP_RESULTS`` grades used last: once per run (a class writes hundreds)."""
        _trim(self.folder, "result-*.json", KEEP_RESULTS)


# --------------------------------------------------------------------------- entries on disk

def _read_entry(path: Path) -> bytes | None:
    """An entry's data, or None when it is missing or its digest does not match (a disk error, a hand edit)."""
    try:
        digest, _, text = path.read_bytes().partition(b"\n")
    except OSError:
        return None
    return text if hashlib.sha256(text).hexdigest().encode() == digest else None


def _mark_used(path: Path) -> None:
    try:
        os.utime(path)  # used: the last to be removed
    except OSError:
        pass  # a folder this grader may read but not write


def _write_entry(folder: Path, path: Path, text: bytes, pattern: str | None = None, keep: int = 0) -> bool:
    """Digest line, then the data; written to a temporary file and renamed, so two graders writing the same
    entry at once each leave a complete file; then, with a ``pattern``, all but the ``keep`` entries used last
    are removed."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("wb", dir=folder, delete=False, prefix=".entry-", suffix=".tmp") as handle:
            handle.write(hashlib.sha256(text).hexdigest().encode() + b"\n" + text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(handle.name, path)  # atomic: a reader sees the old file or the new one
    except OSError:
        try:
            os.unlink(handle.name)
        except (OSError, UnboundLocalError):
            pass
        return False
    if pattern is not None:
        _trim(folder, pattern, keep)
    return True


def _trim(folder: Path, pattern: str, keep: int) -> None:
    entries = []
    for each in folder.glob(pattern):  # another grader may be removing them too
        try:
            entries.append((each.stat().st_mtime, each))
        except OSError:
            continue
    for _, each in sorted(entries, reverse=True)[keep:]:
        try:
            each.unlink()
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
