"""Reading an HTTP response body, bounded: the one way the package reads bytes from a server.

``body_chunks(resp, limits)`` yields the body's decoded bytes as they arrive and
``read_body(resp, limits)`` joins them. Whatever the server does, a read stops at:

- ``limits.max_bytes`` **decoded** bytes (``BodyTooLarge``). The content codings we accept
  (``ACCEPT_ENCODING``: gzip, deflate) are decoded here, a bounded piece at a time, so a
  compressed bomb stops at the cap however small it is on the wire. A coding we did not ask
  for (br, zstd, compress) is refused (``UnwantedEncoding``) rather than passed on undecoded.
- ``limits.seconds`` for the whole read (``ReadDeadlinePassed``), however slowly the bytes
  trickle in: the time left is checked before each read and bounds that read's socket timeout
  (the request's own read timeout when that is shorter), so no read outlives the deadline.
  ``seconds=None`` is for a long-lived event stream whose owner ends it from another thread
  when it is done (``cut``).
- a connection that fails or is cut (``BodyCut``).

``requests`` must not read the body first: responses come from ``runtime.http_session``'s
``BoundedSession`` (always streamed) and are read here through their ``raw`` stream (urllib3's
``HTTPResponse``: ``read1``, ``connection``, ``shutdown``), one socket read at a time.
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import time
import zlib
from collections.abc import Iterator
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


# -- the connection under a response ---------------------------------------------------------
def _response_socket(resp: requests.Response) -> socket.socket | None:
    """The socket a streaming response is read from while it holds its connection (urllib3's
    ``HTTPResponse.connection`` and the connection's ``sock``), else None."""
    sock = getattr(getattr(resp.raw, "connection", None), "sock", None)
    return sock if isinstance(sock, socket.socket) else None


def cut(resp: requests.Response) -> None:
    """Close a streaming response from any thread, waking a reader blocked on it (urllib3's
    ``HTTPResponse.shutdown``; it refuses a response whose connection went back to the pool,
    which no reader is blocked on)."""
    with contextlib.suppress(Exception):
        resp.raw.shutdown()
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
def _read_failures() -> tuple[tuple[type[BaseException], ...], tuple[type[BaseException], ...]]:
    """What a read of a failing or closed stream raises, and which of those are timeouts."""
    import urllib3

    failures = (
        urllib3.exceptions.HTTPError,
        OSError,
        ValueError,
        AttributeError,
        http.client.HTTPException,
    )
    return failures, (TimeoutError, urllib3.exceptions.TimeoutError)


def _wire_chunks(resp: requests.Response, seconds: float | None) -> Iterator[bytes]:
    """The body as it comes off the connection (still content-coded), one read at a time, each
    ending by the deadline ``seconds`` from now (when given)."""
    raw: Any = resp.raw
    sock = _response_socket(resp)
    per_read = sock.gettimeout() if sock is not None else None  # the request's read timeout
    ends = None if seconds is None else time.monotonic() + seconds
    failures, timeouts = _read_failures()
    while True:
        until_deadline = False  # whether this read waits at most until the deadline
        if ends is not None:
            left = ends - time.monotonic()
            if left <= 0:
                raise ReadDeadlinePassed(seconds or 0.0)
            if sock is not None and (per_read is None or left < per_read):
                sock.settimeout(left)
                until_deadline = True
        try:
            chunk = raw.read1(CHUNK)
        except failures as exc:
            timed_out = until_deadline and isinstance(exc, timeouts)
            if ends is not None and (timed_out or time.monotonic() >= ends):
                raise ReadDeadlinePassed(seconds or 0.0) from None
            raise BodyCut(type(exc).__name__) from None
        if not chunk:
            return
        yield chunk


def body_chunks(resp: requests.Response, limits: ReadLimits) -> Iterator[bytes]:
    """The decoded body, piece by piece (each at most ``CHUNK`` bytes), within ``limits``."""
    codings = _Codings(resp.headers.get("Content-Encoding"))
    total = 0
    for wire in _wire_chunks(resp, limits.seconds):
        for piece in codings.feed(wire):
            total += len(piece)
            if total > limits.max_bytes:
                raise BodyTooLarge(limits.max_bytes)
            yield piece


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
