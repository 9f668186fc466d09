"""Files written whole or not at all: a temporary name in the same folder, flushed, then renamed.

A kill at any moment leaves the old file or the new one, never half of one, and two writers of the same
file each leave a complete file. Entries (``write_entry``/``read_entry``) also carry a digest of their
data on their first line: an entry whose digest does not match (a disk error, a hand edit) reads as absent.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path


def write_atomically(path: Path, data: str | bytes, mode: int = 0o644) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename; raises OSError."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    handle = tempfile.NamedTemporaryFile("wb", dir=path.parent, delete=False, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(handle.name, mode)  # NamedTemporaryFile makes it 0600
        os.replace(handle.name, path)
    except BaseException:
        try:
            os.unlink(handle.name)
        except OSError:
            pass
        raise


def write_entry(path: Path, data: bytes, mode: int = 0o600) -> bool:
    """Digest line, then the data, written atomically; False when the folder cannot be written."""
    try:
        write_atomically(path, hashlib.sha256(data).hexdigest().encode() + b"\n" + data, mode)
        return True
    except OSError:
        return False


def read_entry(path: Path) -> bytes | None:
    """An entry's data, or None when it is missing or its digest does not match."""
    try:
        digest, _, data = Path(path).read_bytes().partition(b"\n")
    except OSError:
        return None
    return data if hashlib.sha256(data).hexdigest().encode() == digest else None


def mark_used(path: Path) -> None:
    """Touch an entry, so that trimming removes it last; a folder this grader may read but not write is fine."""
    try:
        os.utime(path)
    except OSError:
        pass


def trim(folder: Path, pattern: str, keep: int) -> None:
    """Remove all but the ``keep`` entries used last (another grader may be removing them too)."""
    entries = []
    for each in Path(folder).glob(pattern):
        try:
            entries.append((each.stat().st_mtime, each))
        except OSError:
            continue
    for _, each in sorted(entries, reverse=True)[keep:]:
        try:
            each.unlink()
        except OSError:
            pass
