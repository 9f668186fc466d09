"""nbgrader's ``DeduplicateIds`` replaced: one student's broken graded cells never stop ``nbgrader autograde``.

nbgrader sanitizes each submitted notebook before grading it (``Autograde.sanitize_preprocessors``):
``DeduplicateIds`` keeps the last copy of each grade id and sets the other copies' metadata to ``{}``;
``OverwriteCells`` restores locked cells from the assignment's source; ``CheckCellMetadata`` validates. A
graded cell copied below itself (a plain copy-paste in Jupyter) thus becomes a cell with ``"nbgrader": {}``,
which the validator reads as schema version 0: ``SchemaTooOldError``, and nbgrader aborts the whole command,
every student after that one ungraded. Metadata a student broke or forged (a grade id of another type or of no
cell of the assignment, a field of the wrong type) fails the same validator.

``RepairGradedCells`` runs where ``DeduplicateIds`` did and leaves nbgrader nothing to refuse: a cell whose
nbgrader metadata is broken, forged (a grade id the assignment's source has no cell for) or an earlier copy of
a grade id is made a plain cell of the student's (its ``nbgrader`` key removed, its source and outputs kept),
with a warning in nbgrader's log naming the cell and why; then every graded cell of the assignment that is
missing is added back, after the nearest cell of the source that is there (nbgrader's own
``OverwriteCells.add_missing_cells`` raises a KeyError when the cell before a missing one is not a graded or
solution cell, so it stays off). ``OverwriteCells`` then restores locked cells as released, and the kit's
contained executor grades that notebook: what formgrader shows is what earned the points.

A notebook nbgrader cannot even read (not JSON, not a notebook, larger than the kit reads) would end in an
exception of nbgrader's for that student alone, with no autograded notebook and no grade. ``ReadableNotebooks``
(``Autograde.exporter_class``) reads it instead as a notebook holding one Markdown cell that says why: nbgrader
adds the assignment's graded cells back, the kit grades them (no exercise defined: 0 points, each graded cell
saying so), and the log names the file and the reason.
"""
from __future__ import annotations

import copy
import hashlib
import os

import nbformat
from nbconvert.exporters import NotebookExporter
from nbconvert.exporters.exporter import ResourcesDict
from nbformat import NotebookNode
from nbformat.v4 import new_markdown_cell, new_notebook
from nbgrader.api import Gradebook
from nbgrader.nbgraderformat import MetadataValidator
from nbgrader.preprocessors import DeduplicateIds, OverwriteCells

from autograder.load.reading import MAX_FILE_BYTES

_MARKS = ("grade", "solution", "locked", "task")


class RepairGradedCells(DeduplicateIds):
    """Keep the last copy of each grade id, as nbgrader does, and make every cell it could not process plain."""

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict) -> tuple[NotebookNode, ResourcesDict]:
        known = _source_ids(resources)
        seen: set[str] = set()
        validator = MetadataValidator()
        for position in reversed(range(len(nb.cells))):
            cell = nb.cells[position]
            if not isinstance(cell.get("metadata"), dict):
                cell["metadata"] = NotebookNode()
            problem = _problem(cell, known, seen, validator)
            if problem:
                self.log.warning("Cell %d: %s; it is graded as the student's own cell, without nbgrader's metadata",
                                 position + 1, problem)
                del cell.metadata["nbgrader"]
            elif _grade_id(cell) is not None:
                seen.add(_grade_id(cell))
        self._add_missing(nb, resources)
        return nb, resources

    def _add_missing(self, nb: NotebookNode, resources: ResourcesDict) -> None:
        """Each graded cell of the source the notebook lacks, as nbgrader would add it: after the nearest earlier
        cell of the source that the notebook has, else before the nearest later one, else last."""
        info = resources.get("nbgrader", {}) if isinstance(resources, dict) else {}
        try:
            with Gradebook(info["db_url"]) as gradebook:
                source = gradebook.find_notebook(info["notebook"], info["assignment"])
                order = [(cell.name, cell) for cell in source.source_cells]
                graded = {cell.name: cell.max_score for cell in source.grade_cells}
                solutions = {cell.name for cell in source.solution_cells}
                transform = OverwriteCells(parent=self).missing_cell_transform
                for index, (name, cell) in enumerate(order):
                    where = {_grade_id(c): n for n, c in enumerate(nb.cells) if _grade_id(c) is not None}
                    if name not in graded or name in where:
                        continue
                    before = [where[earlier] for earlier, _ in order[:index] if earlier in where]
                    after = [where[later] for later, _ in order[index + 1:] if later in where]
                    self.log.warning("Graded cell %r is missing: added back as released", name)
                    added = nbformat.from_dict(transform(cell, graded[name], is_solution=name in solutions))
                    if nb.get("nbformat_minor", 0) >= 5:
                        added["id"] = "restored-" + hashlib.sha256(name.encode("utf-8")).hexdigest()[:16]
                    nb.cells.insert(max(before) + 1 if before else min(after) if after else len(nb.cells), added)
        except Exception as error:  # noqa: BLE001  (no gradebook: nbgrader's own checks then decide)
            self.log.warning("Missing graded cells not added back: %s", error)


def _grade_id(cell: NotebookNode) -> str | None:
    meta = cell.metadata.get("nbgrader")
    if isinstance(meta, dict) and any(meta.get(mark) is True for mark in _MARKS):
        grade_id = meta.get("grade_id")
        return grade_id if isinstance(grade_id, str) else None
    return None


def _problem(cell: NotebookNode, known: set[str] | None, seen: set[str], validator: MetadataValidator) -> str:
    """Why nbgrader could not process this cell's metadata ('' when it can)."""
    if "nbgrader" not in cell.metadata:
        return ""
    meta = cell.metadata["nbgrader"]
    if not isinstance(meta, dict) or not meta:
        return "its nbgrader metadata is empty or not an object"
    try:
        validator.validate_cell(copy.deepcopy(cell))
    except Exception as error:  # noqa: BLE001  (jsonschema's, nbgrader's, a KeyError on a missing field...)
        return f"its nbgrader metadata does not validate ({type(error).__name__}: {str(error).splitlines()[0][:200]})"
    marked = any(meta.get(mark) is True for mark in _MARKS)
    grade_id = _grade_id(cell)
    if marked and grade_id is None:
        return "it is marked as nbgrader's cell without a grade id"
    if grade_id is not None and known is not None and grade_id not in known:
        return f"its grade id {grade_id!r} names no cell of the assignment"
    if grade_id is not None and grade_id in seen:
        return f"it is an earlier copy of cell {grade_id!r} (nbgrader keeps the last)"
    return ""


def _source_ids(resources: ResourcesDict) -> set[str] | None:
    """The grade ids of the assignment's source notebook, from the gradebook (None when it cannot be read)."""
    info = resources.get("nbgrader", {}) if isinstance(resources, dict) else {}
    try:
        with Gradebook(info["db_url"]) as gradebook:
            notebook = gradebook.find_notebook(info["notebook"], info["assignment"])
            return {cell.name for cell in notebook.source_cells}
    except Exception:  # noqa: BLE001  (no gradebook here: nbgrader's own checks then decide)
        return None


class ReadableNotebooks(NotebookExporter):
    """nbgrader's exporter, which reads a notebook it cannot read as one that says why (see the docstring)."""

    def from_filename(self, filename: str, resources: ResourcesDict | None = None, **kw):
        problem = unreadable(filename)
        if not problem:
            return super().from_filename(filename, resources, **kw)
        self.log.error("%s cannot be read (%s): it is graded as a notebook without the student's cells, 0 points",
                       filename, problem)
        notice = (f"**This notebook could not be read when it was graded**: {problem}. Nothing of it was graded; "
                  "the graded cells below are the assignment's, and they score 0. Save the notebook from Jupyter "
                  "and hand it in again.")
        return self.from_notebook_node(new_notebook(cells=[new_markdown_cell(notice)]), resources, **kw)


def unreadable(filename: str) -> str:
    """Why nbformat cannot read ``filename`` as a notebook ('' when it can), in the grader's words."""
    try:
        if os.stat(filename).st_size > MAX_FILE_BYTES:
            return f"it is larger than {MAX_FILE_BYTES // 2**20} MiB"
        with open(filename, encoding="utf-8") as handle:
            nb = nbformat.read(handle, as_version=4)
    except (OSError, UnicodeDecodeError):
        return "it is not a text file in UTF-8"
    except Exception:  # noqa: BLE001  (nbformat's NotJSONError, a reader's KeyError or ValidationError, ...)
        return "it is not a notebook Jupyter can open (broken JSON, or no notebook format)"
    if not isinstance(nb.get("cells"), list):
        return "it holds no list of cells"
    return ""
