"""What nbgrader keeps of a submission, as the file the kit grades: the notebook after nbgrader's sanitizing.

``nbgrader autograde`` first sanitizes each submitted notebook (``Autograde.sanitize_preprocessors``: outputs
cleared, duplicated grade ids resolved, locked and read-only cells restored from the assignment's source,
metadata checked) and writes it to ``autograded/``; its autograde preprocessors, the kit's contained executor
first, then get that notebook. The kit grades exactly that notebook, never the file in ``submitted/``: code a
student wrote into a locked cell, which nbgrader puts back as released, earns nothing, and what formgrader
shows is what earned the points.

Each notebook is written, as nbformat writes it, to a private folder of this process (0700, removed at exit),
below ``<digest>/submitted/<student>/<assignment>/<notebook>.ipynb``: the layout tells the pipeline whose it
is, and the digest of its text keys its grade (``nbgrader_batch``). The other notebooks of the batch are
sanitized here ahead of nbgrader, with nbgrader's own preprocessors and the course's configuration, so that
they are graded together; when nbgrader later hands one over, it is graded from what nbgrader hands (the same
text finds the grade already made; any other text is graded afresh).
"""
from __future__ import annotations

import atexit
import hashlib
import logging
import os
import shutil
import tempfile
import threading
from pathlib import Path

import nbformat
from nbformat import NotebookNode
from traitlets.utils.importstring import import_item

_lock = threading.Lock()
_folder: Path | None = None
_sanitized: dict[tuple[str, str], Path | None] = {}  # (submitted path, its bytes' digest) -> kept copy, or None
_ahead = logging.getLogger("autograder.nbgrader.ahead")  # nbgrader says its warnings when it sanitizes, not twice
_ahead.addHandler(logging.NullHandler())
_ahead.propagate = False


def _private_folder() -> Path:
    global _folder
    with _lock:
        if _folder is None:
            _folder = Path(tempfile.mkdtemp(prefix="autograder-kept-"))  # 0700: this process's user only
            atexit.register(shutil.rmtree, _folder, True)
        return _folder


def kept_copy(nb: NotebookNode, student: str, assignment: str, notebook: str) -> Path:
    """``nb`` as a file the pipeline reads as ``submitted/<student>/<assignment>/<notebook>.ipynb``."""
    text = nbformat.writes(nb)
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]
    path = _private_folder() / digest / "submitted" / student / assignment / f"{notebook}.ipynb"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(path.name + ".tmp")
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    return path


def sanitized_copy(converter, db_url: str, submitted: Path, student: str, assignment: str,
                   notebook: str) -> Path | None:
    """What nbgrader's sanitizing makes of ``submitted``, kept (once per file's bytes); None when it fails
    (nbgrader then reports that notebook itself, and the kit grades it only if nbgrader hands it over)."""
    try:
        key = (str(submitted), hashlib.sha256(submitted.read_bytes()).hexdigest())
    except OSError:
        return None
    if key in _sanitized:
        return _sanitized[key]
    kept = None
    try:
        nb = nbformat.read(str(submitted), as_version=4)
        resources = {"unique_key": notebook, "output_files_dir": f"{notebook}_files",
                     "nbgrader": {"student": student, "assignment": assignment, "notebook": notebook,
                                  "db_url": db_url}}
        for step in getattr(converter, "sanitize_preprocessors", ()):
            step = import_item(step) if isinstance(step, str) else step
            processor = step(parent=converter) if isinstance(step, type) else step
            processor.log = _ahead
            nb, resources = processor(nb, resources)
        kept = kept_copy(nb, student, assignment, notebook)
    except Exception:  # noqa: BLE001  (a notebook nbgrader cannot sanitize: it says so when it reaches it)
        kept = None
    _sanitized[key] = kept
    return kept


def submitted_view(path: Path) -> str:
    """A kept copy's path as the course shows it: from its ``submitted`` folder on."""
    parts = path.parts
    if "submitted" in parts:
        return str(Path(*parts[len(parts) - 1 - parts[::-1].index("submitted"):]))
    return str(path)
