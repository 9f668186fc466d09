"""What one notebook cell showed, as the child sends it: streams by name, displays of text/plain and PNG only.

For nbgrader's autograded notebook (``ChildJob.capture_outputs``). The child cuts a cell's outputs to these
limits first (``run.capture``); the parent refuses anything beyond them, and re-encodes every image, so
nothing but checked text and base64 PNG reaches the notebook.
"""
from __future__ import annotations

import base64
from typing import Any

from autograder.model.outcomes import CellOutput
from autograder.run.wire.checked import WireError, as_dict, as_list, total, without_surrogates

MAX_CELL_OUTPUTS = 100
MAX_OUTPUT_TEXT = 100_000  # characters of one stream or one text/plain
MAX_IMAGE_BYTES = 2 * 2**20  # one PNG
STREAMS = ("stdout", "stderr")
DISPLAYS = ("display_data", "execute_result")
_PNG = b"\x89PNG\r\n\x1a\n"


@total
def decode_cell_outputs(data: Any) -> list[CellOutput]:
    """A cell's outputs as the child sent them: streams by name, displays of text/plain and PNG only."""
    listed = as_list(data)
    if len(listed) > MAX_CELL_OUTPUTS:
        raise WireError("more outputs in one cell than the grader keeps")
    outputs = []
    for item in map(as_dict, listed):
        kind = item.get("kind")
        if kind == "stream" and item.get("name") in STREAMS:
            outputs.append(CellOutput("stream", name=item["name"], text=_output_text(item.get("text"))))
        elif kind in DISPLAYS:
            bundle = as_dict(item.get("data"))
            if not bundle or not set(bundle) <= {"text/plain", "image/png"}:
                raise WireError("a display holds text/plain and image/png only")
            data_out = []
            if "text/plain" in bundle:
                data_out.append(("text/plain", _output_text(bundle["text/plain"])))
            if "image/png" in bundle:
                data_out.append(("image/png", _png(bundle["image/png"])))
            outputs.append(CellOutput(kind, data=tuple(data_out)))
        else:
            raise WireError("an output that is not a stream, a display or an execute result")
    return outputs


def _output_text(value: Any) -> str:
    if type(value) is not str or len(value) > MAX_OUTPUT_TEXT:
        raise WireError(f"an output's text must be a string of at most {MAX_OUTPUT_TEXT} characters")
    return without_surrogates(value)


def _png(value: Any) -> str:
    if type(value) is not str or len(value) > 4 * MAX_IMAGE_BYTES // 3 + 4:
        raise WireError("an image must be base64 text of at most 2 MiB")
    try:
        raw = base64.b64decode(value.encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError):
        raise WireError("an image is not base64") from None
    if not raw.startswith(_PNG):
        raise WireError("an image that is not a PNG")
    return base64.b64encode(raw).decode("ascii")  # re-encoded: nothing but base64 reaches the notebook
