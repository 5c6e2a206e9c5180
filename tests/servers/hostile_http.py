"""A hostile loopback HTTP server: bodies that never end, compression bombs, events that never
end, a trickle, redirects carrying endless bodies. Every behaviour is bounded on the server's
side too (``SEND_LIMIT`` bytes, ``SEND_SECONDS`` seconds), so a client that does not defend
itself makes a test fail instead of hanging it.

Paths (any method; ``MODE`` is one of ``MODES``):

/body/MODE                     200 ``application/json`` with the body MODE describes
/mcp/MODE                      401 without ``WWW-Authenticate``; its protected-resource
                               metadata (``/.well-known/oauth-protected-resource/mcp/MODE``)
                               is served as ``/body/MODE``
/registry/MODE/v0.1/servers    a registry page served as ``/body/MODE``
/redirect/MODE                 302 to ``/nowhere`` (a 404), its own body served as MODE
/sse-post/endless-event        200 ``text/event-stream``: ``data:`` lines, never a blank line
/sse-post/endless-line         200 ``text/event-stream``: one line that never ends
/sse-get/endless-event         the legacy stream: an ``endpoint`` event, then endless ``data:``

Modes: ``endless`` (``[`` then spaces until the limit), ``gzip-bomb`` / ``deflate-bomb``
(``BOMB_DECODED`` bytes of JSON whitespace, about a thousandth of that on the wire),
``trickle`` (one byte every ``TRICKLE_EVERY_S``), ``ok`` (a small JSON object).
"""

from __future__ import annotations

import contextlib
import functools
import threading
import time
import zlib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODES = ("endless", "gzip-bomb", "deflate-bomb", "trickle", "ok")
SEND_LIMIT = 1 << 30  # what any endless answer sends at most
SEND_SECONDS = 60.0
BOMB_DECODED = 1 << 30
TRICKLE_EVERY_S = 0.2
_BLOCK = 1 << 16
OK_BODY = b'{"resource":"http://127.0.0.1/","authorization_servers":[]}'


@functools.cache
def bomb(wbits: int) -> bytes:
    """``[`` and ``BOMB_DECODED`` spaces, compressed (31: gzip, 15: zlib "deflate").

    Built from one compressed block repeated: after a full flush each identical block compresses
    to the same bytes, so only the checksum needs the whole input (``zlib.crc32``/``adler32``).
    """
    block = b" " * (1 << 20)
    packer = zlib.compressobj(9, zlib.DEFLATED, wbits)
    first = packer.compress(b"[" + block) + packer.flush(zlib.Z_FULL_FLUSH)
    repeated = packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
    trailer_size = 8 if wbits > 15 else 4
    last = packer.flush(zlib.Z_FINISH)[:-trailer_size]
    count = BOMB_DECODED // len(block)
    check = zlib.crc32(b"[") if wbits > 15 else zlib.adler32(b"[")
    for _ in range(count):
        check = zlib.crc32(block, check) if wbits > 15 else zlib.adler32(block, check)
    size = 1 + count * len(block)
    if wbits > 15:
        trailer = check.to_bytes(4, "little") + (size & 0xFFFFFFFF).to_bytes(4, "little")
    else:
        trailer = check.to_bytes(4, "big")
    return first + repeated * (count - 1) + last + trailer


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"  # bodies end when the connection does: no length needed

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_GET(self) -> None:
        self._answer()

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        self._answer()

    def _answer(self) -> None:
        parts = self.path.split("?")[0].strip("/").split("/")
        with contextlib.suppress(BrokenPipeError, ConnectionResetError, OSError):
            if parts[:1] == ["body"] and len(parts) == 2:
                self._body(parts[1], 200)
            elif parts[:1] == ["mcp"] and len(parts) == 2:
                self._small(401, b"")
            elif (
                parts[:3] == [".well-known", "oauth-protected-resource", "mcp"] and len(parts) == 4
            ):
                self._body(parts[3], 200)
            elif parts[:1] == ["registry"] and parts[2:] == ["v0.1", "servers"]:
                self._body(parts[1], 200)
            elif parts[:1] == ["redirect"] and len(parts) == 2:
                self._body(parts[1], 302, {"Location": "/nowhere"})
            elif parts[:1] in (["sse-post"], ["sse-get"]):
                self._sse(parts[0], parts[1])
            else:
                self._small(404, b"{}")

    def _small(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _body(self, mode: str, status: int, headers: dict[str, str] | None = None) -> None:
        if mode == "ok":
            self.send_response(status)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(OK_BODY)))
            self.end_headers()
            self.wfile.write(OK_BODY)
            return
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        if mode in ("gzip-bomb", "deflate-bomb"):
            self.send_header("Content-Encoding", mode.split("-")[0])
        self.end_headers()
        if mode == "gzip-bomb":
            self._send_all(bomb(31))
        elif mode == "deflate-bomb":
            self._send_all(bomb(15))
        elif mode == "trickle":
            self._trickle()
        else:
            self._endless(b"[", b" " * _BLOCK)

    def _send_all(self, data: bytes) -> None:
        for start in range(0, len(data), _BLOCK):
            self.wfile.write(data[start : start + _BLOCK])

    def _endless(self, first: bytes, block: bytes) -> None:
        self.wfile.write(first)
        sent, started = 0, time.monotonic()
        while sent < SEND_LIMIT and time.monotonic() - started < SEND_SECONDS:
            self.wfile.write(block)
            sent += len(block)

    def _trickle(self) -> None:
        started = time.monotonic()
        self.wfile.write(b"[")
        self.wfile.flush()
        while time.monotonic() - started < SEND_SECONDS:
            time.sleep(TRICKLE_EVERY_S)
            self.wfile.write(b" ")
            self.wfile.flush()

    def _sse(self, kind: str, mode: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        if kind == "sse-get":
            self.wfile.write(b"event: endpoint\ndata: /sse-post/endless-event\n\n")
        if mode == "endless-line":
            self._endless(b"data: ", b"x" * _BLOCK)
        else:
            line = b"data: " + b"x" * 1017 + b"\n"  # 1 KiB lines, never a blank one
            self._endless(b"", line * (_BLOCK // len(line)))


@contextlib.contextmanager
def serve_hostile() -> Iterator[str]:
    """Run the hostile server on 127.0.0.1; yields its base URL (no trailing slash)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True, name="hostile-http")
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
