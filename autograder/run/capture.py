"""Run one notebook cell as a kernel would, and keep what it showed: streams, displays, its last value.

Only for nbgrader's contained executor (``ChildJob.capture_outputs``): its autograded notebook must hold each
cell's outputs as a Jupyter kernel would have left them, although no kernel runs. The cell runs as IPython
runs it (the last expression's value, unless the cell ends with ``;``, becomes the execute result; open
pyplot figures are shown at the end of the cell, as the inline backend does). Sizes are cut here to what
``wire.cell_outputs.decode_cell_outputs`` accepts, so a flood of prints costs the student their output, never the
channel. The cell's exception is returned, for the child to report with the others (``loaded``).

Imported by the child (``child_modules``): it holds no grading logic, only output plumbing.
"""
from __future__ import annotations

import ast
import base64
import io
import sys
from typing import Any

from autograder.run.wire.cell_outputs import MAX_CELL_OUTPUTS, MAX_IMAGE_BYTES, MAX_OUTPUT_TEXT

CELL_BUDGET = 8 * 2**20  # characters and image bytes of one cell, together: far below a wire message
CUT = "\n[... the grader kept only the first {} characters of this output]\n"


class Outputs:
    """The current cell's outputs, in the order they appeared; consecutive writes to a stream join."""

    def __init__(self):
        self.items: list[dict] = []
        self.size = 0
        self.full = False

    def write(self, name: str, text: str) -> None:
        if self.full or not text:
            return
        last = self.items[-1] if self.items else None
        if last is not None and last["kind"] == "stream" and last["name"] == name:
            room = min(MAX_OUTPUT_TEXT - len(last["text"]), CELL_BUDGET - self.size)
            kept = text[:max(room, 0)]
            last["text"] += kept
        elif len(self.items) < MAX_CELL_OUTPUTS - 1:
            room = min(MAX_OUTPUT_TEXT, CELL_BUDGET - self.size)
            kept = text[:max(room, 0)]
            last = {"kind": "stream", "name": name, "text": kept}
            self.items.append(last)
        else:
            kept, last = "", None
        self.size += len(kept)
        if len(kept) < len(text):
            self._stop(last)

    def show(self, kind: str, obj: Any) -> None:
        """A display (or the execute result) of ``obj``: its PNG where it has one, and its text."""
        if self.full:
            return
        bundle = mime_bundle(obj)
        size = sum(len(v) for v in bundle.values())
        if len(self.items) >= MAX_CELL_OUTPUTS - 1 or self.size + size > CELL_BUDGET:
            self._stop(None)
            return
        self.size += size
        self.items.append({"kind": kind, "data": bundle})

    def _stop(self, stream: dict | None) -> None:
        """Nothing more is kept of this cell; the last stream says so (the note fits in what was kept back)."""
        self.full = True
        note = CUT.format(MAX_OUTPUT_TEXT)
        if stream is not None:
            stream["text"] = stream["text"][:MAX_OUTPUT_TEXT - len(note)] + note
        else:
            self.items[-1:] = [{"kind": "stream", "name": "stderr", "text": note}]


class Stream(io.TextIOBase):
    """sys.stdout or sys.stderr while a cell runs: every write goes to the cell's outputs."""

    def __init__(self, outputs: Outputs, name: str):
        super().__init__()
        self.outputs, self.name_ = outputs, name

    def writable(self) -> bool:
        return True

    def write(self, text) -> int:
        text = text if isinstance(text, str) else str(text)
        self.outputs.write(self.name_, text)
        return len(text)


def mime_bundle(obj: Any) -> dict[str, str]:
    """text/plain and, for a matplotlib Figure or an object with ``_repr_png_``, image/png (base64)."""
    bundle = {}
    png = None
    try:
        if hasattr(obj, "savefig") and hasattr(obj, "canvas"):
            buffer = io.BytesIO()
            obj.savefig(buffer, format="png", bbox_inches="tight")
            png = buffer.getvalue()
        elif callable(getattr(type(obj), "_repr_png_", None)):
            png = obj._repr_png_()
    except Exception:  # noqa: BLE001  (the student's object: its text is shown instead)
        png = None
    if isinstance(png, bytes) and png.startswith(b"\x89PNG") and len(png) <= MAX_IMAGE_BYTES:
        bundle["image/png"] = base64.b64encode(png).decode("ascii")
    try:
        text = repr(obj)
    except Exception as error:  # noqa: BLE001
        text = f"<{type(obj).__name__} object: its repr raised {type(error).__name__}>"
    bundle["text/plain"] = str(text)[:MAX_OUTPUT_TEXT]
    return bundle


def run_cell(code: str, filename: str, namespace: dict) -> tuple[BaseException | None, list[dict]]:
    """Run ``code`` in ``namespace`` with its outputs kept; the exception it raised (any, SystemExit too)."""
    outputs = Outputs()
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = Stream(outputs, "stdout"), Stream(outputs, "stderr")

    def display(*objects, **_ignored) -> None:  # IPython's display(), as a kernel's namespace has it
        for obj in objects:
            outputs.show("display_data", obj)

    namespace["display"] = display
    error = None
    try:
        tree = ast.parse(code, filename)
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr) and not code.rstrip().endswith(";"):
            last = ast.Expression(tree.body.pop().value)
        exec(compile(tree, filename, "exec"), namespace)  # noqa: S102  (this is the sandbox)
        if last is not None:
            value = eval(compile(last, filename, "eval"), namespace)  # noqa: S307
            if value is not None:
                outputs.show("execute_result", value)
    except BaseException as raised:  # noqa: BLE001  (SystemExit and KeyboardInterrupt too)
        error = raised
    finally:
        _show_open_figures(outputs)
        sys.stdout, sys.stderr = saved
    return error, outputs.items


def _show_open_figures(outputs: Outputs) -> None:
    """As matplotlib's inline backend: every pyplot figure still open is shown below the cell, then closed."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is None:
        return
    try:
        for number in pyplot.get_fignums():
            outputs.show("display_data", pyplot.figure(number))
        pyplot.close("all")
    except Exception:  # noqa: BLE001  (a student who broke pyplot sees no figure)
        pass
