"""``mcpcost serve`` against slow clients (slowloris) over real sockets: a request whose headers
or body do not arrive within the server's read deadlines loses its connection, while a client
that sends its request in time, even in pieces, is answered.

The service runs as a real process: ``mcpcost serve`` itself with its default deadlines, and the
same listener started with short ones (``serve(..., ReadDeadlines(...))``) so the cases that
trickle run in seconds."""

from __future__ import annotations

import os
import socket
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from mcpcost.serve.listener import HEADER_DEADLINE_S
from tests.helpers.paths import ROOT
from tests.helpers.serve_process import Service, running, running_service

pytestmark = pytest.mark.slow
HEADER_S = 1.0
BODY_S = 1.5
SHORT_DEADLINES = f"""
import sys
from mcpcost.serve.listener import ReadDeadlines, listening_socket, serve
from mcpcost.serve.options import ServeSettings
settings = ServeSettings(port=0)
serve(settings, listening_socket("127.0.0.1", 0), sys.stderr, ReadDeadlines({HEADER_S}, {BODY_S}))
"""


@contextmanager
def short_deadlines() -> Iterator[Service]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with running([sys.executable, "-c", SHORT_DEADLINES], env=env, cwd=ROOT) as service:
        yield service


def connect(service: Service) -> socket.socket:
    return socket.create_connection(("127.0.0.1", service.port), timeout=10)


def closed_within(sock: socket.socket, seconds: float) -> float | None:
    """Seconds until the server closed ``sock`` (reading what it sent on the way), or None
    when it is still open after ``seconds``."""
    started = time.monotonic()
    sock.settimeout(0.2)
    while time.monotonic() - started < seconds:
        try:
            if not sock.recv(65536):
                return time.monotonic() - started
        except TimeoutError:
            continue
        except ConnectionResetError:
            return time.monotonic() - started
    return None


def trickle(sock: socket.socket, data: bytes, every_s: float, for_s: float) -> bool:
    """Send ``data`` a byte at a time, one every ``every_s``, for ``for_s``; False once the
    server closed the connection."""
    end = time.monotonic() + for_s
    for byte in data:
        if time.monotonic() > end:
            break
        try:
            sock.sendall(bytes([byte]))
        except (BrokenPipeError, ConnectionResetError):
            return False
        time.sleep(every_s)
    return True


def test_the_default_header_deadline_closes_a_silent_connection() -> None:
    with running_service() as service, connect(service) as sock:
        took = closed_within(sock, HEADER_DEADLINE_S + 5)
        assert took is not None, (
            f"a silent connection was still open after {HEADER_DEADLINE_S + 5} s"
        )
        assert took >= HEADER_DEADLINE_S - 1


def test_headers_sent_a_byte_at_a_time_lose_the_connection_at_the_deadline() -> None:
    with short_deadlines() as service, connect(service) as sock:
        started = time.monotonic()
        request = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 200 + b"\r\n\r\n"
        trickle(sock, request, 0.1, HEADER_S + 3)
        took = closed_within(sock, 3)
        assert took is not None and time.monotonic() - started < HEADER_S + 4


def test_a_body_trickled_past_its_deadline_loses_the_connection() -> None:
    with short_deadlines() as service, connect(service) as sock:
        head = b"POST /api/measure HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        sock.sendall(head + b"Content-Length: 400\r\n\r\n")  # the headers in time
        started = time.monotonic()
        trickle(sock, b'{"url": "' + b"a" * 380, 0.1, BODY_S + 3)
        took = closed_within(sock, 3)
        assert took is not None and time.monotonic() - started < BODY_S + 4


def test_a_request_in_time_is_answered_and_the_next_one_has_its_own_deadline() -> None:
    with short_deadlines() as service, connect(service) as sock:
        for piece in (b"GET /healthz HTTP/1.1\r\n", b"Host: x\r\n", b"\r\n"):
            sock.sendall(piece)
            time.sleep(HEADER_S / 4)
        answer = b""
        while b"\r\n\r\n" not in answer:
            answer += sock.recv(65536)
        assert answer.startswith(b"HTTP/1.1 200")
        # the kept-alive connection's next request starts a new header deadline
        sock.sendall(b"GET /healthz HTTP/1.1\r\n")
        took = closed_within(sock, HEADER_S + 3)
        assert took is not None
