"""Streamable HTTP over a kept-alive connection: one capture is one TCP connection.

A notification's 202 and the closing ``DELETE``'s answer have no body; their connection goes
back to the session's pool, so the four requests of a capture (``initialize``, the
``initialized`` notification, ``tools/list``, ``DELETE``) ride one connection. A 202 that does
carry a body is not read, and its connection is closed with it."""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from mcpcost.core.spec import ServerSpec
from mcpcost.core.status import Status
from mcpcost.measuring.server import MeasureOptions, measure_server
from mcpcost.transports.http import StreamableHTTPTransport
from mcpcost.transports.session import Session

TOOLS = [{"name": "t", "inputSchema": {"type": "object"}}]


@contextmanager
def keepalive_server(accepted_body: bytes = b"") -> Iterator[tuple[str, dict[int, list[str]]]]:
    """An HTTP/1.1 MCP server; yields its URL and, per connection, the requests it carried."""
    connections: dict[int, list[str]] = {}
    numbers = itertools.count()
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def setup(self) -> None:
            super().setup()
            with lock:
                self.number = next(numbers)
                connections[self.number] = []

        def log_message(self, format: str, *args: Any) -> None:
            return

        def _seen(self, what: str) -> None:
            with lock:
                connections[self.number].append(what)

        def _reply(self, status: int, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Mcp-Session-Id", "sess-1")
            self.end_headers()
            self.wfile.write(body)

        def do_DELETE(self) -> None:
            self._seen("DELETE")
            self._reply(200, b"")

        def do_POST(self) -> None:
            msg = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            self._seen(f"POST {msg['method']}")
            if "id" not in msg:
                self._reply(202, accepted_body)
                return
            if msg["method"] == "initialize":
                result: Any = {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "keepalive", "version": "1"},
                }
            else:
                result = {"tools": TOOLS}
            reply = {"jsonrpc": "2.0", "id": msg["id"], "result": result}
            self._reply(200, json.dumps(reply).encode())

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp", connections
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def capture(url: str) -> None:
    transport = StreamableHTTPTransport(url, timeout_s=5)
    session = Session(transport, request_timeout_s=5, deadline=time.monotonic() + 5)
    session.open()
    assert session.list_tools() == TOOLS
    transport.close()


FOUR = ["POST initialize", "POST notifications/initialized", "POST tools/list", "DELETE"]


def test_a_capture_is_one_connection() -> None:
    with keepalive_server() as (url, connections):
        capture(url)
    assert list(connections.values()) == [FOUR]


def test_a_measurement_is_one_connection_per_capture() -> None:
    with keepalive_server() as (url, connections):
        m = measure_server(ServerSpec.remote("keepalive", url), MeasureOptions(timeout_s=5))
    assert m.status is Status.MEASURED
    assert sorted(connections.values()) == [FOUR, FOUR]


@pytest.mark.parametrize("body", [b"accepted", b"x" * 100_000])
def test_an_unread_body_closes_its_connection(body: bytes) -> None:
    """A 202 with a body is left unread: its connection is closed, the next request opens
    another, and the capture still succeeds."""
    with keepalive_server(accepted_body=body) as (url, connections):
        capture(url)
    assert list(connections.values()) == [FOUR[:2], FOUR[2:]]
