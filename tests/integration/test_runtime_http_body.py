"""``runtime.http_body`` and ``runtime.http_session`` against a real loopback server: bodies come
back decoded and whole within their caps, and every way a server can break the caps ends the
read with the failure that names it."""

from __future__ import annotations

import gzip
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from mcpcost.runtime.http_body import (
    ACCEPT_ENCODING,
    BodyCut,
    BodyReadFailed,
    BodyTooLarge,
    ReadDeadlinePassed,
    ReadLimits,
    UnwantedEncoding,
    body_chunks,
    cut,
    read_body,
)
from mcpcost.runtime.http_session import BoundedSession

TEXT = b'{"tools":[' + b",".join(b'{"name":"t%d"}' % i for i in range(5000)) + b"]}"
Answer = Callable[[BaseHTTPRequestHandler], None]
SEEN: dict[str, dict[str, str]] = {}


def fixed(body: bytes, **headers: str) -> Answer:
    def answer(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        for name, value in headers.items():
            h.send_header(name.replace("_", "-"), value)
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)

    return answer


def trickle(h: BaseHTTPRequestHandler) -> None:
    h.send_response(200)
    h.end_headers()
    for _ in range(100):  # 20 s at most
        h.wfile.write(b" ")
        h.wfile.flush()
        time.sleep(0.2)


def cut_short(h: BaseHTTPRequestHandler) -> None:
    h.send_response(200)
    h.send_header("Content-Length", "1000")
    h.end_headers()
    h.wfile.write(b"x" * 10)
    h.wfile.flush()
    h.connection.shutdown(2)


def redirect_with_body(h: BaseHTTPRequestHandler) -> None:
    h.send_response(302)
    h.send_header("Location", "/plain")
    h.send_header("Content-Encoding", "gzip")
    h.end_headers()
    h.wfile.write(gzip.compress(b" " * (64 << 20)))  # 64 MiB of spaces, about 64 KiB sent


def stall(h: BaseHTTPRequestHandler) -> None:
    h.send_response(200)
    h.send_header("Content-Length", "100")
    h.end_headers()
    h.wfile.write(b"x")
    h.wfile.flush()
    time.sleep(20)


def redirect_chunked_forever(h: BaseHTTPRequestHandler) -> None:
    h.send_response(307)
    h.send_header("Location", "/plain")
    h.send_header("Transfer-Encoding", "chunked")
    h.end_headers()
    piece = b"x" * 4096
    for _ in range(5000):  # 20 MiB at most, a chunk every millisecond
        h.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
        h.wfile.flush()
        time.sleep(0.001)


def deflate_raw(data: bytes) -> bytes:
    packer = zlib.compressobj(6, zlib.DEFLATED, -15)
    return packer.compress(data) + packer.flush()


ANSWERS: dict[str, Answer] = {
    "/plain": fixed(TEXT),
    "/gzip": fixed(gzip.compress(TEXT), Content_Encoding="gzip"),
    "/gzip-members": fixed(
        gzip.compress(TEXT[:100]) + gzip.compress(TEXT[100:]), Content_Encoding="x-gzip"
    ),
    "/gzip-then-junk": fixed(gzip.compress(TEXT) + b"\0\0junk", Content_Encoding="gzip"),
    "/deflate-zlib": fixed(zlib.compress(TEXT), Content_Encoding="deflate"),
    "/deflate-raw": fixed(deflate_raw(TEXT), Content_Encoding="deflate"),
    "/stacked": fixed(gzip.compress(zlib.compress(TEXT)), Content_Encoding="deflate, gzip"),
    "/br": fixed(b"\x0b\x02\x80hello\x03", Content_Encoding="br"),
    # a gzip header, then a deflate block of the invalid type 3
    "/corrupt": fixed(gzip.compress(b"")[:10] + b"\xff" * 8, Content_Encoding="gzip"),
    "/bomb": fixed(gzip.compress(b"\0" * (256 << 20)), Content_Encoding="gzip"),
    "/trickle": trickle,
    "/cut": cut_short,
    "/redirect": redirect_with_body,
    "/redirect-chunked": redirect_chunked_forever,
    "/stall": stall,
}


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_GET(self) -> None:
            SEEN[self.path] = dict(self.headers.items())
            ANSWERS[self.path](self)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


SMALL = ReadLimits(1 << 20, 5.0)


def get(base: str, path: str, limits: ReadLimits = SMALL) -> bytes:
    with BoundedSession() as session, session.get(base + path, timeout=5) as resp:
        return read_body(resp, limits)


@pytest.mark.parametrize(
    "path",
    [
        "/plain",
        "/gzip",
        "/gzip-members",
        "/gzip-then-junk",
        "/deflate-zlib",
        "/deflate-raw",
        "/stacked",
    ],
)
def test_bodies_come_back_decoded_and_whole(base: str, path: str) -> None:
    assert get(base, path) == TEXT


def test_the_session_asks_only_for_the_codings_it_decodes(base: str) -> None:
    get(base, "/plain")
    assert SEEN["/plain"]["Accept-Encoding"] == ACCEPT_ENCODING == "gzip, deflate"


def test_decoded_pieces_are_small_whatever_the_ratio(base: str) -> None:
    with BoundedSession() as session, session.get(base + "/bomb", timeout=5) as resp:
        sizes = [len(p) for p in body_chunks(resp, ReadLimits(300 << 20, 20.0))]
    assert sum(sizes) == 256 << 20 and max(sizes) <= 1 << 16


def test_the_cap_counts_decoded_bytes(base: str) -> None:
    with pytest.raises(BodyTooLarge, match="larger than 1048576 bytes"):
        get(base, "/bomb")
    assert get(base, "/gzip", ReadLimits(len(TEXT), 5.0)) == TEXT
    with pytest.raises(BodyTooLarge):
        get(base, "/gzip", ReadLimits(len(TEXT) - 1, 5.0))


@pytest.mark.parametrize("path", ["/br", "/corrupt"])
def test_codings_not_asked_for_or_broken_are_refused(base: str, path: str) -> None:
    with pytest.raises(UnwantedEncoding):
        get(base, path)


def test_a_trickle_ends_at_the_deadline(base: str) -> None:
    started = time.monotonic()
    with pytest.raises(ReadDeadlinePassed, match="within 1s"):
        get(base, "/trickle", ReadLimits(1 << 20, 1.0))
    assert time.monotonic() - started < 3.0


def test_a_body_cut_short_is_a_cut(base: str) -> None:
    with pytest.raises(BodyCut):
        get(base, "/cut")


def test_a_redirect_body_is_never_read(base: str) -> None:
    started = time.monotonic()
    with BoundedSession() as session, session.get(base + "/redirect", timeout=5) as resp:
        assert resp.history[0].status_code == 302 and resp.history[0].content == b""
        assert read_body(resp, ReadLimits(1 << 20, 5.0)) == TEXT
    assert time.monotonic() - started < 2.0


def test_the_session_streams_even_when_asked_not_to(base: str) -> None:
    with BoundedSession() as session:
        resp = session.get(base + "/plain", timeout=5, stream=False)
        assert resp.raw.tell() == 0  # nothing read from the connection yet
        assert read_body(resp, ReadLimits(1 << 20, 5.0)) == TEXT
        resp.close()


def test_a_stall_ends_at_the_deadline_before_the_read_timeout(base: str) -> None:
    """The deadline bounds each read, not only the time between reads: a server that sends a
    byte and then nothing is cut at the body's deadline, though the request's own read timeout
    (30 s) is far longer."""
    started = time.monotonic()
    with (
        BoundedSession() as session,
        session.get(base + "/stall", timeout=30) as resp,
        pytest.raises(ReadDeadlinePassed),
    ):
        read_body(resp, ReadLimits(1 << 20, 1.0))
    assert 0.9 < time.monotonic() - started < 3.0


NO_THREAD_CLIENT = """
import sys, threading
from mcpcost.runtime.http_body import ReadDeadlinePassed, ReadLimits, read_body
from mcpcost.runtime.http_session import BoundedSession
with BoundedSession() as session:
    with session.get(sys.argv[1] + "/plain", timeout=5) as resp:
        read_body(resp, ReadLimits(1 << 20, 5.0))
    with session.get(sys.argv[1] + "/trickle", timeout=5) as resp:
        try:
            read_body(resp, ReadLimits(1 << 20, 0.5))
        except ReadDeadlinePassed:
            pass
print(sorted(t.name for t in threading.enumerate()))
"""


def test_reads_within_a_deadline_start_no_thread(base: str) -> None:
    """In a fresh process (a thread started by an earlier test would hide one here)."""
    done = subprocess.run(
        [sys.executable, "-c", NO_THREAD_CLIENT, base],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.strip() == "['MainThread']"


def test_a_stream_without_a_deadline_is_cut_from_another_thread(base: str) -> None:
    ended: list[str] = []
    with BoundedSession() as session, session.get(base + "/stall", timeout=30) as resp:

        def reader() -> None:
            try:
                read_body(resp, ReadLimits(1 << 20, None))
                ended.append("end")
            except BodyReadFailed as exc:
                ended.append(type(exc).__name__)

        thread = threading.Thread(target=reader)
        thread.start()
        time.sleep(0.3)
        assert not ended  # blocked on the stalled connection
        started = time.monotonic()
        cut(resp)
        thread.join(5)
        assert not thread.is_alive() and time.monotonic() - started < 2.0
    assert ended == ["BodyCut"]


def test_a_chunked_redirect_body_is_never_read(base: str) -> None:
    started = time.monotonic()
    with BoundedSession() as session, session.get(base + "/redirect-chunked", timeout=5) as resp:
        assert resp.history[0].status_code == 307 and resp.history[0].content == b""
        assert read_body(resp, ReadLimits(1 << 20, 5.0)) == TEXT
    assert time.monotonic() - started < 2.0
