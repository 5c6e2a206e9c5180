"""A container's stdio over the engine's attach socket.

With no TTY the engine multiplexes stdout and stderr into one stream of frames: an 8-byte header
(stream type, three zero bytes, big-endian payload length) then the payload. ``demultiplex``
splits the frames back into two pipes; ``StdinWriter`` writes the container's stdin to the same
socket; ``Attachment`` owns the socket and everything the SDK keeps open on it.
"""

from __future__ import annotations

import contextlib
import os
import socket
import struct
import threading
from typing import Any

FRAME_HEADER_BYTES = 8
STDERR_STREAM = 2


class StdinWriter:
    """The container's stdin: writes go to the attach socket; close half-closes it."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self.closed = False

    def write(self, data: bytes) -> int:
        if self.closed:
            raise ValueError("stdin is closed")
        self._sock.sendall(data)
        return len(data)

    def flush(self) -> None:
        return None

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            with contextlib.suppress(OSError):
                self._sock.shutdown(socket.SHUT_WR)


def _read_exact(sock: socket.socket, n: int) -> bytes | None:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


def demultiplex(sock: socket.socket, stdout_fd: int, stderr_fd: int) -> None:
    """Split the attach stream's frames into two pipes; closes both when the stream ends."""
    try:
        while True:
            header = _read_exact(sock, FRAME_HEADER_BYTES)
            if header is None:
                break
            kind, size = header[0], struct.unpack(">I", header[4:8])[0]
            payload = _read_exact(sock, size) if size else b""
            if payload is None:
                break
            target = stderr_fd if kind == STDERR_STREAM else stdout_fd
            with contextlib.suppress(OSError):
                view = memoryview(payload)
                while view:
                    written = os.write(target, view)
                    view = view[written:]
    except OSError:
        pass
    finally:
        for fd in (stdout_fd, stderr_fd):
            with contextlib.suppress(OSError):
                os.close(fd)


class Attachment:
    """The attach connection and every SDK object that holds it open.

    For a unix socket the SDK returns the ``SocketIO`` it read the HTTP upgrade through; the
    socket's file descriptor is released only when that reader, the HTTP response and the socket
    itself are all closed, so ``close`` closes each of them (once, in that order).
    """

    def __init__(self, handle: Any) -> None:
        self._handle = handle
        self.sock: socket.socket = getattr(handle, "_sock", handle)
        self._response = getattr(handle, "_response", None)
        self._closed = False
        self._lock = threading.Lock()

    def shutdown(self) -> None:
        """End both directions so a reader blocked in ``recv`` returns."""
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self.shutdown()
        for thing in (self._handle, self._response, self.sock):
            if thing is not None:
                with contextlib.suppress(Exception):
                    thing.close()
