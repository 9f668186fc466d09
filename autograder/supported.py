"""Which TensorFlow the kit supports, and the one line to say when the one installed is not it.

TensorFlow is the student's: Colab's, Kaggle's, a JupyterHub's, a GPU build. The kit names it only in its `tf`
extra (as TensorFlow Probability does), so installing the kit never adds a second TensorFlow distribution
beside one that is there. Where none is installed, where two share the `tensorflow/` folder, or where the one
there is outside the supported range, the kit says so in one line with the command that fixes it: the CLI,
the self-check, the graded cells and the notebooks' first cell (``require_tensorflow``), never a traceback.

The range is stated here and in pyproject.toml (the `tf` extra; a test checks they agree), and proved by
``scripts/tf_matrix.py`` (README, "Supported TensorFlow").

May import: the standard library only. It is one of the child's modules (the notebooks' setup cell calls
``require_tensorflow``, and the grader runs that cell): it holds no data, only the range and its messages.
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from functools import cache
from importlib import metadata, util

OLDEST = (2, 16)  # the oldest TensorFlow the matrix grades as the newest does
NEWEST = (2, 21)  # the newest release the matrix proved; later ones get a note, not a refusal
TESTED = f"{OLDEST[0]}.{OLDEST[1]} to {NEWEST[0]}.{NEWEST[1]}"
SPECIFIER = f">={OLDEST[0]}.{OLDEST[1]},<{NEWEST[0]}.{NEWEST[1] + 1}"
DEFAULT_DISTRIBUTION = "tensorflow"  # what the fix installs where none is installed


@dataclass(frozen=True)
class InstalledTensorFlow:
    """The distributions that own files in ``tensorflow/`` (pip's view; normally one) and their versions."""

    distributions: tuple[tuple[str, str], ...]  # (name, version)
    importable: bool  # Python finds a `tensorflow` package (even one pip does not know of)


@cache
def installed() -> InstalledTensorFlow:
    """What is installed, from the distributions' metadata: TensorFlow itself is not imported (the grader's
    parent never imports it; a kernel imports it once it is known to fit)."""
    owners = []
    for distribution in metadata.distributions():
        name = distribution.metadata["Name"] or ""
        if "tensorflow" in _top_level(distribution, name):
            owners.append((re.sub(r"[-_.]+", "-", name).lower(), distribution.version))
    return InstalledTensorFlow(tuple(sorted(set(owners))), util.find_spec("tensorflow") is not None)


def _top_level(distribution: metadata.Distribution, name: str) -> set[str]:
    listed = distribution.read_text("top_level.txt")
    if listed is not None:
        return set(listed.split())
    if not re.match(r"(tensorflow|tf[-_]nightly|intel[-_]tensorflow)", name, re.IGNORECASE):
        return set()  # a distribution without top_level.txt whose name says nothing of TensorFlow
    return {entry.parts[0] for entry in distribution.files or () if entry.parts}


def release(version: str) -> tuple[int, int] | None:
    """(major, minor) of a version string: '2.21.0', '2.23.0.dev20261026' and '2.16.0rc1' alike."""
    match = re.match(r"(\d+)\.(\d+)", version)
    return (int(match.group(1)), int(match.group(2))) if match else None


def install_line(distribution: str = DEFAULT_DISTRIBUTION, notebook: bool = False) -> str:
    """The command that installs a supported TensorFlow: the student's own distribution, at a supported version."""
    command = f'%pip install "{distribution}{SPECIFIER}"' if notebook else f'pip install "{distribution}{SPECIFIER}"'
    return command + (" (then restart the kernel)" if notebook else "")


def problem(found: InstalledTensorFlow | None = None, version: str | None = None,
            notebook: bool = False) -> str | None:
    """One line saying why the kit cannot run on this TensorFlow, with the command that fixes it; None when it
    can. ``version`` is ``tf.__version__`` where TensorFlow is imported already (a kernel)."""
    found = installed() if found is None else found
    if len(found.distributions) > 1:
        names = " ".join(name for name, _ in found.distributions)
        listed = ", ".join(f"{name} {v}" for name, v in found.distributions)
        keep = next((name for name, _ in found.distributions if name == "tensorflow"), found.distributions[0][0])
        return (f"{len(found.distributions)} TensorFlow distributions share one `tensorflow` folder here ({listed}): "
                f"its files are a mix of them. Keep one: run {'%' if notebook else ''}pip uninstall -y {names}, "
                f"then {install_line(keep, notebook)}")
    if not found.distributions and not found.importable and version is None:
        return f"TensorFlow is not installed in this Python ({sys.executable}): run {install_line(notebook=notebook)}"
    name, known = found.distributions[0] if found.distributions else (DEFAULT_DISTRIBUTION, None)
    version = version or known
    if version is None:
        return None  # a TensorFlow that pip does not know of (built from source): its version shows on import
    if (release(version) or (0, 0)) < OLDEST:
        return (f"TensorFlow {version} is older than this kit supports ({TESTED}): run "
                f"{install_line(name, notebook).replace('install', 'install --upgrade', 1)}")
    return None


def note(found: InstalledTensorFlow | None = None, version: str | None = None) -> str | None:
    """One line for a TensorFlow newer than the tested range (tf-nightly, next month's release): the kit runs."""
    if version is None:
        found = installed() if found is None else found
        version = found.distributions[0][1] if len(found.distributions) == 1 else None
    if version is not None and (release(version) or (0, 0)) > NEWEST:
        return (f"note: TensorFlow {version} is newer than the versions this kit was tested with ({TESTED}); "
                "if a check misbehaves, tell your instructor")
    return None


class UnsupportedTensorFlow(ImportError):
    """The kit cannot run on this TensorFlow; the message is one line with the fix. IPython shows that line
    alone (``_render_traceback_``), not a traceback."""

    def _render_traceback_(self) -> list[str]:
        return [str(self)]


def import_tensorflow() -> tuple[str | None, str | None]:
    """In a kernel: import TensorFlow when it fits. Returns (its version, None), or (None, the one line that
    says why not, with the fix).

    Where TensorFlow is imported already (the grader's child, a kernel that imported it first), only its
    version is checked: the distributions' metadata need not be readable there."""
    tf = sys.modules.get("tensorflow")
    found = InstalledTensorFlow((), True) if tf is not None else installed()
    if tf is None:
        if reason := problem(found, notebook=True):
            return None, reason
        try:
            import tensorflow as tf
        except Exception as error:  # a broken install: NumPy too new for it, a missing library...
            first = (str(error).strip().splitlines() or [""])[0][:200]
            name = found.distributions[0][0] if found.distributions else DEFAULT_DISTRIBUTION
            return None, (f"TensorFlow is installed but does not import ({type(error).__name__}: {first}): run "
                          f"{install_line(name, notebook=True).replace('install', 'install --force-reinstall', 1)}")
    version = str(getattr(tf, "__version__", ""))
    reason = problem(found, version=version, notebook=True)
    return (None, reason) if reason else (version, None)


def require_tensorflow() -> str:
    """For a notebook's first cell: TensorFlow's version when it fits; else raise ``UnsupportedTensorFlow``
    (one line: "Run All" stops there). A release newer than the tested ones prints a note and goes on."""
    version, reason = import_tensorflow()
    if reason or version is None:
        raise UnsupportedTensorFlow(reason)
    if message := note(version=version):
        print(message)
    return version
