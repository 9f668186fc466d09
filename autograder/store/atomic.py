"""Files written whole or not at all: a temporary name in the same folder, flushed, then renamed.

A kill at any moment leaves the old file or the new one, never half of one, and two writers of the same
file each leave a complete file. Entries (``write_entry``/``read_entry``) also carry, on their first line,
an HMAC-SHA256 of their data under the folder's own key (``folder_key``: 32 random bytes in a file only
the grader's user can read): an entry that does not match (a disk error, a hand edit, an entry forged or
rewritten by anyone who cannot read the key) reads as absent. An unkeyed checksum would stop none of these
but the first: whoever can write an entry can compute it.
"""
from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import tempfile
from pathlib import Path

KEY_FILE = "key"
MAC = "hmac-sha256:"


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


def folder_key(folder: Path) -> bytes | None:
    """The key of a cache folder: made once (32 random bytes, owner-only, never replaced), then read; None
    when it can be neither read nor made (then no entry is written or taken)."""
    path = Path(folder) / KEY_FILE
    for _ in range(2):
        try:
            key = path.read_bytes()
            return key if len(key) == 32 else None  # a short key file is not ours: entries are not trusted
        except FileNotFoundError:
            pass
        except OSError:
            return None
        try:
            Path(folder).mkdir(mode=0o700, parents=True, exist_ok=True)
            handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except FileExistsError:
            continue  # another grader made it just now: read theirs
        except OSError:
            return None
        with os.fdopen(handle, "wb") as out:
            out.write(secrets.token_bytes(32))
            out.flush()
            os.fsync(out.fileno())
    return None


def _mac(key: bytes, data: bytes) -> bytes:
    return (MAC + hmac.new(key, data, hashlib.sha256).hexdigest()).encode()


def write_entry(path: Path, data: bytes, key: bytes | None, mode: int = 0o600) -> bool:
    """MAC line, then the data, written atomically; False without a key or when the folder cannot be written."""
    if key is None:
        return False
    try:
        write_atomically(path, _mac(key, data) + b"\n" + data, mode)
        return True
    except OSError:
        return False


def read_entry(path: Path, key: bytes | None) -> bytes | None:
    """An entry's data, or None when it is missing, there is no key, or its MAC does not match."""
    if key is None:
        return None
    try:
        mac, _, data = Path(path).read_bytes().partition(b"\n")
    except OSError:
        return None
    return data if hmac.compare_digest(_mac(key, data), mac) else None


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
