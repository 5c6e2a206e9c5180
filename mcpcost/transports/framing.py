"""Newline-delimited JSON-RPC over a pair of byte streams (the stdio framing).

``LineTransport`` is independent of how the server was started: give it the server's stdout (a
readable byte stream), its stdin (a writable byte stream), optionally its stderr, a ``terminate``
callback that ends the server, and optionally an ``exit_code`` callback. ``stdio.spawn_stdio``
uses it for local processes; a container launcher can use it over a container's attached socket
(pass the socket's read and write files and a callback that stops the container)::

    transport = LineTransport(out_file, in_file, None, terminate=stop_container, kind=TransportName.DOCKER)

Framing rules: one JSON text per line (``\\n``; a trailing ``\\r`` is tolerated), blank lines
skipped, lines that are not a JSON object ignored and counted (servers that print banners to
stdout still work), a line longer than ``max_line_bytes`` is a ProtocolError. stdout and stderr
are read on daemon threads; stderr is kept as a bounded tail (the last ``stderr_tail_bytes``).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from typing import IO, Any, Protocol

from mcpcost.core.jsonvalue import parse_json, stringify
from mcpcost.core.spec import TransportName
from mcpcost.errors import JSONSyntaxError, JSONTooDeep
from mcpcost.transports.base import MAX_CAPTURE_BYTES, Diagnostics, Message
from mcpcost.transports.failures import ProtocolError, TransportClosed, too_deep
from mcpcost.transports.inbox import take

DEFAULT_MAX_LINE_BYTES = MAX_CAPTURE_BYTES
DEFAULT_STDERR_TAIL_BYTES = 8 * 1024
_CHUNK = 1 << 16
READERS_GRACE_S = 0.5  # for the readers to see end-of-stream once the server's tree is gone


class _EndOfStream:
    """Queue marker: stdout ended (or failed) and nothing more will arrive."""

    def __init__(self, error: Exception | None) -> None:
        self.error = error


class StderrTail:
    """A ring buffer holding the last ``limit`` bytes written to a stream."""

    def __init__(self, limit: int = DEFAULT_STDERR_TAIL_BYTES) -> None:
        self._limit = limit
        self._buf = bytearray()
        self._lock = threading.Lock()

    def add(self, chunk: bytes) -> None:
        with self._lock:
            self._buf += chunk
            if len(self._buf) > self._limit:
                del self._buf[: len(self._buf) - self._limit]

    def text(self) -> str:
        with self._lock:
            return bytes(self._buf).decode("utf-8", errors="replace")


class ReadableStream(Protocol):
    """A server's output as we read it: a binary file, a socket file, or a platform pipe end
    (anything with ``read1`` or ``read``, and ``close``)."""

    def close(self) -> None: ...


def _reader(stream: ReadableStream) -> Callable[[int], bytes]:
    read1 = getattr(stream, "read1", None)
    if callable(read1):
        return read1  # type: ignore[no-any-return]
    read: Callable[[int], bytes] = getattr(stream, "read")  # noqa: B009
    return read


def _close_without_waiting(stream: ReadableStream | IO[bytes], busy: bool) -> None:
    """Close our end of a stream. While another thread is still blocked on it (a process we
    could not stop still holds the other end), a buffered file's ``close`` would wait for that
    thread: then the close runs on a daemon thread and we go on without it."""

    def close() -> None:
        try:
            stream.close()
        except (OSError, ValueError):
            pass

    if busy:
        threading.Thread(target=close, daemon=True, name="mcpcost-close-stream").start()
    else:
        close()


class LineTransport:
    """JSON-RPC messages, one per line, over a server's stdout/stdin byte streams."""

    def __init__(
        self,
        stdout: ReadableStream,
        stdin: IO[bytes],
        stderr: ReadableStream | None,
        *,
        terminate: Callable[[], None],
        exit_code: Callable[[], int | None] | None = None,
        pgid: int | None = None,
        kind: TransportName = TransportName.STDIO,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        stderr_tail_bytes: int = DEFAULT_STDERR_TAIL_BYTES,
    ) -> None:
        self._stdout = stdout
        self._stdin = stdin
        self._stderr = stderr
        self._terminate = terminate
        self._exit_code: Callable[[], int | None] = exit_code or (lambda: None)
        self._has_exit = exit_code is not None
        self._pgid = pgid
        self._kind = kind
        self._max_line = max_line_bytes
        self._tail = StderrTail(stderr_tail_bytes)
        self._queue: queue.Queue[Message | _EndOfStream] = queue.Queue()
        self._ignored = 0
        self._bytes = 0
        self._closed = False
        self._ended: _EndOfStream | None = None
        self._write_lock = threading.Lock()
        self._out_thread = threading.Thread(target=self._read_stdout, daemon=True)
        self._out_thread.start()
        self._err_thread: threading.Thread | None = None
        if stderr is not None:
            self._err_thread = threading.Thread(target=self._read_stderr, daemon=True)
            self._err_thread.start()

    # -- reading threads ------------------------------------------------------------------
    def _read_stdout(self) -> None:
        read = _reader(self._stdout)
        pending = bytearray()
        error: Exception | None = None
        try:
            while True:
                chunk = read(_CHUNK)
                if not chunk:
                    break
                self._bytes += len(chunk)
                start = 0
                while True:
                    nl = chunk.find(b"\n", start)
                    pending += chunk[start:] if nl < 0 else chunk[start:nl]
                    if len(pending) > self._max_line:
                        break
                    if nl < 0:
                        break
                    self._line(bytes(pending))
                    pending.clear()
                    start = nl + 1
                if len(pending) > self._max_line:
                    error = ProtocolError(
                        f"server sent a message larger than {self._max_line} bytes on stdout"
                    )
                    break
            if pending.strip() and error is None:
                self._line(bytes(pending))
        except ProtocolError as exc:
            error = exc
        except (OSError, ValueError) as exc:  # stream closed under us during close()
            if not self._closed:
                error = TransportClosed(f"reading server output failed: {exc}")
        self._queue.put(_EndOfStream(error))

    def _line(self, line: bytes) -> None:
        text = line.strip()
        if not text:
            return
        try:
            value: Any = parse_json(text)
        except JSONTooDeep as exc:
            raise too_deep(exc) from None
        except JSONSyntaxError:
            self._ignored += 1
            return
        if isinstance(value, dict):
            self._queue.put(value)
        else:
            self._ignored += 1

    def _read_stderr(self) -> None:
        assert self._stderr is not None
        read = _reader(self._stderr)
        try:
            while chunk := read(_CHUNK):
                self._tail.add(chunk)
        except (OSError, ValueError):
            pass

    # -- the Transport interface ----------------------------------------------------------
    def send(self, message: Message) -> None:
        data = stringify(message).encode("utf-8") + b"\n"
        if self._closed:
            raise TransportClosed("transport is closed")
        try:
            with self._write_lock:
                self._stdin.write(data)
                self._stdin.flush()
        except (OSError, ValueError):
            # The server is gone; report it the way receive() will (with its exit code).
            self._out_thread.join(timeout=1.0)
            raise self._closed_error("server closed its input") from None

    def receive(self, timeout_s: float) -> Message:
        if self._ended is not None:
            raise self._end_error(self._ended)
        item = take(self._queue, timeout_s)
        if isinstance(item, _EndOfStream):
            self._ended = item
            raise self._end_error(item)
        return item

    def negotiated(self, protocol_version: str, *, modern: bool) -> None:
        return None

    def close(self) -> None:
        """End the server and release our ends, never waiting on a peer: after the server's
        tree is stopped the readers get ``READERS_GRACE_S`` to see end-of-stream; a stream whose
        reader is still blocked (held open by a process outside the tree) is closed without
        waiting for it."""
        if self._closed:
            return
        self._closed = True
        writing = not self._write_lock.acquire(blocking=False)  # a send blocked on a full pipe
        if not writing:
            self._write_lock.release()
        _close_without_waiting(self._stdin, busy=writing)
        self._terminate()
        deadline = time.monotonic() + READERS_GRACE_S
        for thread, stream in ((self._out_thread, self._stdout), (self._err_thread, self._stderr)):
            if thread is not None:
                thread.join(timeout=max(deadline - time.monotonic(), 0.0))
            if stream is not None:
                _close_without_waiting(stream, busy=thread is not None and thread.is_alive())

    @property
    def diagnostics(self) -> Diagnostics:
        return Diagnostics(
            kind=self._kind,
            stderr_tail=self._tail.text(),
            ignored_lines=self._ignored,
            exit_code=self._exit_code(),
            pgid=self._pgid,
            bytes_received=self._bytes,
        )

    # -- errors ---------------------------------------------------------------------------
    def _wait_exit(self, budget_s: float = 1.0) -> int | None:
        if not self._has_exit:
            budget_s = 0.2  # nothing to wait for but the stderr reader
        deadline = time.monotonic() + budget_s
        code = self._exit_code()
        while code is None and self._has_exit and time.monotonic() < deadline:
            time.sleep(0.01)
            code = self._exit_code()
        if self._err_thread is not None:
            self._err_thread.join(timeout=max(deadline - time.monotonic(), 0.2))
        return code

    def _closed_error(self, what: str) -> TransportClosed:
        code = self._wait_exit()
        reason = f"server exited (code {code})" if code is not None else what
        return TransportClosed(reason, exit_code=code, stderr_tail=self._tail.text())

    def _end_error(self, end: _EndOfStream) -> Exception:
        if end.error is not None:
            return end.error
        return self._closed_error("server closed its output")
