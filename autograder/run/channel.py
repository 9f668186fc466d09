"""The parent's end of a child's socket: messages both ways, and the parent never blocks on either.

A child sends events (``wire`` messages, each framed as ``multiprocessing.connection`` frames them: a 4-byte
big-endian length, then the bytes), and the parent hands it one task at a time, with that task's case
(``handing``), framed the same way so that the child reads them with ``Connection.recv_bytes``.

The parent serves every child from one loop, and a child runs student code that may write half a frame and
stop, or never read what it is sent (a case of 1 MB fills the socket's buffer): so the parent's end is
non-blocking both ways. What arrives is kept until a whole frame is there; a frame longer than the grader
accepts is a violation before a byte of it is kept; what cannot be sent yet waits here until the socket is
writable (the scheduler waits for that too) or the child's deadline ends it. Parent side only.
"""
from __future__ import annotations

import socket
import struct

FRAME = struct.Struct("!i")
CHUNK = 1 << 20
READS = 16


class FrameTooLarge(ValueError):
    """A child announced a message larger than the grader accepts."""


class Channel:
    """One child's socket, seen from the parent (see the module's docstring)."""

    def __init__(self, sock: socket.socket):
        sock.setblocking(False)
        self._socket = sock
        self._received = bytearray()
        self._outgoing = bytearray()
        self.at_end = False  # the child closed its end (EOF): nothing more will come

    def fileno(self) -> int:
        return self._socket.fileno()

    @property
    def pending(self) -> bool:
        """Bytes the child has not taken yet."""
        return bool(self._outgoing)

    def receive(self, limit: int) -> list[bytes]:
        """Every whole frame that has arrived (at most ``limit`` bytes each; FrameTooLarge for more); sets
        ``at_end`` when the child closed its end. Never blocks, and reads at most READS chunks a call: a child
        that writes without end cannot hold the parent here."""
        for _ in range(READS):
            try:
                chunk = self._socket.recv(CHUNK)
            except (BlockingIOError, InterruptedError):
                break
            except OSError:
                chunk = b""
            if not chunk:
                self.at_end = True
                break
            self._received += chunk
        frames = []
        while len(self._received) >= FRAME.size:
            size = FRAME.unpack_from(self._received)[0]
            if not 0 <= size <= limit:
                raise FrameTooLarge(f"a message larger than the grader accepts ({limit // 2**20} MiB)")
            if len(self._received) < FRAME.size + size:
                break
            frames.append(bytes(self._received[FRAME.size:FRAME.size + size]))
            del self._received[:FRAME.size + size]
        return frames

    def send(self, message: bytes) -> None:
        """Queue one message for the child and send what the socket takes now."""
        self._outgoing += FRAME.pack(len(message)) + message
        self.flush()

    def flush(self) -> None:
        """Send what the socket takes now; a child that closed its end is ``at_end``."""
        while self._outgoing:
            try:
                sent = self._socket.send(self._outgoing[:CHUNK])
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                self._outgoing.clear()
                self.at_end = True
                return
            del self._outgoing[:sent]

    def close(self) -> None:
        self._outgoing.clear()
        self._received.clear()
        self._socket.close()
