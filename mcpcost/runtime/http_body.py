"""Reading an HTTP response body, bounded: the one way the package reads bytes from a server.

``body_chunks(resp, limits)`` yields the body's decoded bytes as they arrive and
``read_body(resp, limits)`` joins them. Whatever the server does, a read stops at:

- ``limits.max_bytes`` **decoded** bytes (``BodyTooLarge``). The content codings we accept
  (``ACCEPT_ENCODING``: gzip, deflate) are decoded here, a bounded piece at a time, so a
  compressed bomb stops at the cap however small it is on the wire. A coding we did not ask
  for (br, zstd, compress) is refused (``UnwantedEncoding``) rather than passed on undecoded.
- ``limits.seconds`` for the whole read (``ReadDeadlinePassed``), however slowly the bytes
  trickle in: one shared timer thread cuts the connection at the deadline, which wakes a
  reader blocked on it. ``seconds=None`` is for a long-lived event stream whose owner cuts it
  when it is done (``cut``).
- a connection that fails or is cut (``BodyCut``).

``requests`` must not read the body first: responses come from ``runtime.http_session``'s
``BoundedSession`` (always streamed) and are read here through their ``raw`` stream, one
socket read at a time.
"""

from __future__ import annotations

import contextlib
import heapq
import http.client
import itertools
import socket
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mcpcost.errors import TransportError

if TYPE_CHECKING:
    import requests

ACCEPT_ENCODING = "gzip, deflate"
CHUNK = 1 << 16
MAX_CODINGS = 3  # "gzip, deflate, gzip" at most; more is refused


@dataclass(frozen=True, slots=True)
class ReadLimits:
    """How much of a body may be read (decoded bytes) and for how long (seconds, whole read)."""

    max_bytes: int
    seconds: float | None


class BodyReadFailed(TransportError):
    """A response body could not be read within its limits."""


class BodyTooLarge(BodyReadFailed):
    def __init__(self, limit: int) -> None:
        super().__init__(f"the response body is larger than {limit} bytes (decoded)")
        self.limit = limit


class ReadDeadlinePassed(BodyReadFailed):
    def __init__(self, seconds: float) -> None:
        super().__init__(f"the response body did not arrive within {seconds:g}s")
        self.seconds = seconds


class BodyCut(BodyReadFailed):
    """The connection failed or was closed before the body ended (``cause``: the error's
    class name)."""

    def __init__(self, cause: str) -> None:
        super().__init__(f"the connection failed while reading ({cause})")
        self.cause = cause


class UnwantedEncoding(BodyReadFailed):
    """The body is in a content coding we did not ask for, or is not valid in its coding."""


# -- the deadline timer ----------------------------------------------------------------------
def _nothing() -> None:
    return None


class _Deadline:
    __slots__ = ("action", "cancelled", "fired")

    def __init__(self, action: Callable[[], None]) -> None:
        self.action = action
        self.cancelled = False
        self.fired = False


class _Timer:
    """One daemon thread that runs each scheduled action at its time unless cancelled first.

    The thread sleeps until the earliest deadline and is woken only by an earlier one. A
    cancelled deadline lets go of its action (which holds a response) at once and leaves the
    queue when it reaches the front, or when cancelled ones are most of it (``_compact``), so
    a sweep's thousands of reads a minute, each cancelled when its body ends, hold nothing."""

    COMPACT_AT = 64  # the queue is swept of cancelled deadlines past this size

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, _Deadline]] = []
        self._order = itertools.count()
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None
        self._cancelled = 0  # cancelled deadlines still in the queue

    def schedule(self, when: float, action: Callable[[], None]) -> _Deadline:
        deadline = _Deadline(action)
        with self._changed:
            earliest = not self._heap or when < self._heap[0][0]
            heapq.heappush(self._heap, (when, next(self._order), deadline))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name="mcpcost-read-deadlines", daemon=True
                )
                self._thread.start()
            elif earliest:  # the thread sleeps until the earliest deadline; only a new one wakes it
                self._changed.notify()
        return deadline

    def cancel(self, deadline: _Deadline) -> None:
        with self._changed:
            if deadline.cancelled or deadline.fired:
                return
            deadline.cancelled = True
            deadline.action = _nothing
            self._cancelled += 1
            if len(self._heap) > self.COMPACT_AT and 2 * self._cancelled > len(self._heap):
                self._compact()

    def _compact(self) -> None:
        """Drop every cancelled deadline from the queue (the caller holds the lock)."""
        self._heap = [item for item in self._heap if not item[2].cancelled]
        heapq.heapify(self._heap)
        self._cancelled = 0

    def _next_due(self) -> _Deadline:
        with self._changed:
            while True:
                while self._heap and self._heap[0][2].cancelled:
                    heapq.heappop(self._heap)
                    self._cancelled -= 1
                if not self._heap:
                    self._changed.wait()
                    continue
                wait = self._heap[0][0] - time.monotonic()
                if wait <= 0:
                    deadline = heapq.heappop(self._heap)[2]
                    deadline.fired = True
                    return deadline
                self._changed.wait(wait)

    def _run(self) -> None:
        while True:
            deadline = self._next_due()
            with contextlib.suppress(Exception):  # a cut that fails leaves the read to end
                deadline.action()


_TIMER = _Timer()


# -- the connection under a response ---------------------------------------------------------
def response_socket(resp: requests.Response) -> socket.socket | None:
    """The socket a streaming response is read from, when it can be found."""
    raw: Any = resp.raw
    sock = getattr(getattr(raw, "_connection", None), "sock", None)
    if sock is None:
        fp = getattr(getattr(raw, "_fp", None), "fp", None)
        sock = getattr(getattr(fp, "raw", None), "_sock", None)
    return sock if isinstance(sock, socket.socket) else None


def cut(resp: requests.Response) -> None:
    """Close a streaming response from any thread, waking a reader blocked on it."""
    sock = response_socket(resp)
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(Exception):
        resp.close()


# -- content codings -------------------------------------------------------------------------
def _zlib_wrapped(head: bytes) -> bool:
    """Whether a "deflate" body starts with a zlib header (RFC 1950) rather than bare deflate."""
    cmf, flg = head[0], head[1]
    return cmf & 0x0F == 8 and (cmf << 8 | flg) % 31 == 0


class _Inflater:
    """gzip (members one after another, as RFC 1952 allows) or deflate (zlib-wrapped, or the
    bare deflate some servers send under that name), decoded at most ``CHUNK`` bytes at a time."""

    def __init__(self, gzip: bool) -> None:
        self._gzip = gzip
        self._obj: Any = zlib.decompressobj(31) if gzip else None
        self._head = b""  # deflate: the first bytes, until the wrapping is known
        self._between_members = False  # gzip: a member ended; another may follow, or junk
        self._done = False

    def feed(self, data: bytes) -> Iterator[bytes]:
        if self._obj is None:
            self._head += data
            if len(self._head) < 2:
                return
            data, self._head = self._head, b""
            self._obj = zlib.decompressobj(15 if _zlib_wrapped(data) else -15)
        held = False  # the decoder may still hold output after filling the last piece
        while not self._done and (data or held):
            try:
                out = self._obj.decompress(data, CHUNK)
            except zlib.error:
                if self._between_members:  # bytes after the last member: ignored, as browsers do
                    self._done = True
                    return
                raise UnwantedEncoding("the response body is not valid in its coding") from None
            if out:
                self._between_members = False
                yield out
            if self._obj.eof:
                data, held = self._obj.unused_data, False
                if not self._gzip:
                    self._done = True  # bytes after a deflate stream: ignored
                    return
                self._obj = zlib.decompressobj(31)
                self._between_members = True
                continue
            data, held = self._obj.unconsumed_tail, len(out) == CHUNK


class _Codings:
    """The decoders a ``Content-Encoding`` header names, applied last first."""

    def __init__(self, header: str | None) -> None:
        names = [n.strip().lower() for n in (header or "").split(",") if n.strip()]
        names = [n for n in names if n != "identity"]
        if len(names) > MAX_CODINGS:
            raise UnwantedEncoding(f"the response body is encoded {len(names)} times over")
        decoders = []
        for name in reversed(names):
            if name in ("gzip", "x-gzip"):
                decoders.append(_Inflater(gzip=True))
            elif name == "deflate":
                decoders.append(_Inflater(gzip=False))
            else:
                raise UnwantedEncoding(
                    f"the response body is encoded as {name[:40]!r}, which was not asked for"
                )
        self._decoders = decoders

    def feed(self, data: bytes, index: int = 0) -> Iterator[bytes]:
        if index == len(self._decoders):
            yield data
            return
        for piece in self._decoders[index].feed(data):
            yield from self.feed(piece, index + 1)


# -- reading -----------------------------------------------------------------------------------
def _read_failures() -> tuple[type[BaseException], ...]:
    import urllib3

    return (
        urllib3.exceptions.HTTPError,
        OSError,
        ValueError,
        AttributeError,
        http.client.HTTPException,
    )


def _wire_chunks(
    resp: requests.Response, deadline: _Deadline | None, seconds: float | None
) -> Iterator[bytes]:
    """The body as it comes off the connection (still content-coded), one read at a time."""
    raw: Any = resp.raw
    read = raw.read1 if hasattr(raw, "read1") else raw.read
    failures = _read_failures()
    while True:
        try:
            chunk = read(CHUNK)
        except failures as exc:
            if deadline is not None and deadline.fired:
                raise ReadDeadlinePassed(seconds or 0.0) from None
            raise BodyCut(type(exc).__name__) from None
        if not chunk:
            if deadline is not None and deadline.fired:  # the cut at the deadline ended it
                raise ReadDeadlinePassed(seconds or 0.0)
            return
        yield chunk


def body_chunks(resp: requests.Response, limits: ReadLimits) -> Iterator[bytes]:
    """The decoded body, piece by piece (each at most ``CHUNK`` bytes), within ``limits``."""
    codings = _Codings(resp.headers.get("Content-Encoding"))
    deadline = None
    if limits.seconds is not None:
        deadline = _TIMER.schedule(time.monotonic() + limits.seconds, lambda: cut(resp))
    total = 0
    try:
        for wire in _wire_chunks(resp, deadline, limits.seconds):
            for piece in codings.feed(wire):
                total += len(piece)
                if total > limits.max_bytes:
                    raise BodyTooLarge(limits.max_bytes)
                yield piece
    finally:
        if deadline is not None:
            _TIMER.cancel(deadline)


def read_body(resp: requests.Response, limits: ReadLimits) -> bytes:
    """The whole decoded body, within ``limits`` (a ``BodyReadFailed`` otherwise)."""
    return b"".join(body_chunks(resp, limits))


def empty_by_headers(resp: requests.Response) -> bool:
    """Whether the response has no body by its status or its ``Content-Length: 0``."""
    if resp.status_code in (204, 304):
        return True
    return resp.headers.get("Content-Length", "").strip() == "0"


def finish(resp: requests.Response) -> None:
    """Done with a streamed response, whether or not its body was read.

    A body read to its end has already given its connection back to the session's pool; one
    that is empty by its headers (a notification's 202, a ``DELETE``'s answer) is read here,
    which ends at once without touching the socket, so that its connection goes back too and
    the next request of the session reuses it instead of opening another. Any other response is
    closed with its connection, as an unread body must be."""
    if empty_by_headers(resp):
        with contextlib.suppress(BodyReadFailed):
            read_body(resp, ReadLimits(max_bytes=0, seconds=None))
    resp.close()
