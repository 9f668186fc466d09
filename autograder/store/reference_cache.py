"""Reference outcomes kept on disk, so that a second run (or a one-notebook run) does not recompute them.

The reference solution and the mistake models give the same numbers every time they run on the same
cases, so their outcomes are kept, keyed by everything that determines them:

- the solution notebook's bytes and the assignment;
- the seed (which draws the random cases);
- the grader's own source: every module of the ``autograder`` package (the exercise descriptions, their
  probes and mistake models, the loader, the child, the supervisor...) except those that only read finished
  records in the parent (``PARENT_ONLY``: judging, reporting, storing, the front ends), the versions of
  Python, TensorFlow and NumPy, the machine's architecture, and the environment variables that change
  TensorFlow's numbers (``config.NUMERIC_ENVIRONMENT``). A module added to the package counts until it is
  named in ``PARENT_ONLY``.

(One cache folder shared by machines of the same architecture but other CPUs could mix last-bit
differences of their kernels; keep the cache per machine, its default.)

Change any of these and the key changes: a stale entry is never read. An entry holds plain data only
(the one codec, ``run.wire``) after an HMAC of that data under the folder's own key (``store.atomic``): an
entry that does not match is not used, and is computed again. Only clean runs are kept: a timeout, a crash or an
out-of-memory outcome depends on the machine's load, not on the cases.

Each run with a new seed adds an entry per assignment (about 1 MB for the assignments with n = 100,000
cases): the folder keeps the ``KEEP`` entries used last. Where: ``config.cache_folder()``. The folder is
made readable by its owner only.

No child that runs a submission can reach it: the cache (and the kept grades beside it) is used only where
a child's files are private (``run.isolation.children_files_private``: as root a uid of its own; otherwise
Landlock or a user namespace of its own), and every child is told so (``Containment.private_files``: a
child that cannot make them private refuses to run). Where a child would run as the grader's own user
with the grader's files in reach, the cache is refused for the whole run, with a note: a child could read
the reference's outcomes, forge a kept grade or rewrite an entry. A folder inside what every child reads
(the system's folders, Python's installation: ``run.hidden``) is refused the same way.
"""
from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
from dataclasses import dataclass, field
from functools import cache
from importlib import metadata
from pathlib import Path

import numpy as np

from autograder import __version__
from autograder.config import NUMERIC_ENVIRONMENT, quiet_tensorflow
from autograder.model.outcomes import RunRecord
from autograder.run.hidden import out_of_sight_problem
from autograder.run.isolation import children_files_private
from autograder.run.tasks import Task
from autograder.run.wire.checked import WireError
from autograder.run.wire.records import decode_record, record_to_data
from autograder.store.atomic import folder_key, mark_used, read_entry, trim, write_entry

REFUSED = ("autograder: note: the reference cache and the kept grades are off for this run: the submissions' "
           "code would run as this user with the cache in reach (no root, no Landlock, no user namespaces on "
           "this machine); see docs/security.md")

FORMAT = 4
KEEP = 64  # entries kept (the ones read or written last); about 40 MB
PACKAGE = Path(__file__).resolve().parents[1]
# What never touches a reference's outcomes: it runs in the parent, on records already made.
PARENT_ONLY = frozenset({"__main__.py", "cli.py", "pipeline/", "selfcheck.py", "graded_cell.py",
                         "judge/", "report/", "store/", "frontends/"})


def _parent_only(relative: str) -> bool:
    return relative in PARENT_ONLY or relative.split("/")[0] + "/" in PARENT_ONLY


@cache
def grader_fingerprint(whole: bool = False) -> str:
    """What computes a reference's outcomes: the package's source (but ``PARENT_ONLY``, unless ``whole``: a
    kept grade depends on the feedback's wording too) and the libraries."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if not whole and _parent_only(relative):
            continue
        part = relative.encode() + b"\0" + path.read_bytes()
        digest.update(len(part).to_bytes(8, "big") + part)
    versions = [__version__, platform.python_version(), np.__version__, platform.machine()]
    for distribution in ("tensorflow", "tensorflow-cpu", "tf-nightly", "keras", "tf-keras"):  # tf-keras: TF_USE_LEGACY_KERAS
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


def _tasks_data(tasks: list[Task]) -> list[list]:
    return [[t.exercise, t.case_index, t.implementation] for t in tasks]


@dataclass
class ReferenceCache:
    folder: Path
    _key: bytes | None = field(default=None, repr=False)

    def prepare(self) -> bool:
        """Make the folder (owner-only) and its key before any child starts; False (no cache) when that fails
        or when a child could reach it (see the module's docstring)."""
        if not children_files_private():
            print(REFUSED, file=sys.stderr)
            return False
        problem = out_of_sight_problem(self.folder, "the cache folder")
        if problem:  # inside what every child reads: no child is told where it is, so none could cover it
            print(f"autograder: note: the reference cache and the kept grades are off for this run: {problem}",
                  file=sys.stderr)
            return False
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            os.chmod(self.folder, 0o700)
        except OSError:
            return False
        return self.secret() is not None

    def secret(self) -> bytes | None:
        """The folder's key (``store.atomic.folder_key``), made on first use."""
        if self._key is None:
            self._key = folder_key(self.folder)
        return self._key

    def path(self, key: str) -> Path:
        return self.folder / f"reference-{key}.json"

    def load(self, key: str, tasks: list[Task]) -> RunRecord | None:
        """The kept record for these tasks, or None (missing, damaged, or for other tasks)."""
        data = read_entry(self.path(key), self.secret())
        if data is None:
            return None
        try:
            entry = json.loads(data.decode("utf-8"))
            if entry.get("format") != FORMAT or entry.get("tasks") != _tasks_data(tasks):
                return None
            record = decode_record(entry.get("record"))
        except (ValueError, AttributeError, RecursionError, MemoryError, WireError):
            return None
        if set(record.outcomes) != set(range(len(tasks))):
            return None
        mark_used(self.path(key))
        return record

    def save(self, key: str, tasks: list[Task], record: RunRecord) -> bool:
        """Keep a clean record; a record with an outcome that depends on the machine is not kept."""
        if not record.clean(len(tasks)):
            return False
        entry = {"format": FORMAT, "tasks": _tasks_data(tasks), "record": record_to_data(record)}
        if not write_entry(self.path(key), json.dumps(entry, allow_nan=True).encode("utf-8"), self.secret()):
            return False
        trim(self.folder, "reference-*.json", KEEP)
        return True
