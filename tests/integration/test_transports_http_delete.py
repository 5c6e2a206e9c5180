"""Streamable HTTP: closing a legacy-era session sends DELETE with its Mcp-Session-Id."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from mcpcost.transports.http import DELETE_TIMEOUT_S, StreamableHTTPTransport
from mcpcost.transports.session import Session
from tests.servers.http_fixtures import serve_http

TOOLS = [{"name": "t", "inputSchema": {"type": "object"}}]


@dataclass
class Recorder:
    """A loopback Streamable HTTP server that records every request it gets."""

    delete_status: int = 405
    delete_delay_s: float = 0.0
    issue_session: bool = True
    modern_only: bool = False
    seen: list[tuple[str, dict[str, str], Any]] = field(default_factory=list)


@contextmanager
def recorder_server(rec: Recorder) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def _reply(self, status: int, body: bytes, **headers: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            if rec.issue_session:
                self.send_header("Mcp-Session-Id", "sess-42")
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def do_DELETE(self) -> None:
            rec.seen.append(("DELETE", {k.lower(): v for k, v in self.headers.items()}, None))
            time.sleep(rec.delete_delay_s)
            self._reply(rec.delete_status, b"", Allow="POST")

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            msg = json.loads(body)
            rec.seen.append(("POST", {k.lower(): v for k, v in self.headers.items()}, msg))
            if "id" not in msg:
                self._reply(202, b"")
                return
            method = msg["method"]
            result: Any
            if method == "initialize" and rec.modern_only:
                error = {
                    "code": -32022,
                    "message": "unsupported",
                    "data": {"supported": ["2026-07-28"]},
                }
                answer = {"jsonrpc": "2.0", "id": msg["id"], "error": error}
                self._reply(200, json.dumps(answer).encode())
                return
            if method == "initialize":
                result = {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "rec", "version": "1"},
                }
            elif method == "server/discover":
                result = {
                    "supportedVersions": ["2026-07-28"],
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "rec", "version": "1"},
                }
            else:
                result = {"tools": TOOLS}
            self._reply(
                200, json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}).encode()
            )

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def run(url: str, tools: list[Any] | None = TOOLS) -> tuple[str, float]:
    t = StreamableHTTPTransport(url, timeout_s=5)
    s = Session(t, request_timeout_s=5, deadline=time.monotonic() + 5)
    hello = s.open()
    listed = s.list_tools()
    assert tools is None or listed == tools
    started = time.monotonic()
    t.close()
    t.close()  # twice is safe and sends nothing more
    return hello.era, time.monotonic() - started


def methods(rec: Recorder) -> list[str]:
    return [m if m == "DELETE" else f"POST {body['method']}" for m, _, body in rec.seen]


def test_fixture_server_gets_delete_with_the_session_id_last() -> None:
    with serve_http("streamable-json") as fx:
        run(fx.url, tools=None)
        recorded = list(fx.requests)
    assert [r.method for r in recorded] == ["POST", "POST", "POST", "DELETE"]
    sid = recorded[1].headers["mcp-session-id"]
    assert recorded[-1].headers["mcp-session-id"] == sid
    assert recorded[-1].headers["mcp-protocol-version"] == "2025-11-25"


def test_405_to_delete_is_fine_and_quick() -> None:
    rec = Recorder(delete_status=405)
    with recorder_server(rec) as url:
        era, closing = run(url)
    assert era == "legacy"
    assert methods(rec) == [
        "POST initialize",
        "POST notifications/initialized",
        "POST tools/list",
        "DELETE",
    ]
    assert rec.seen[-1][1]["mcp-session-id"] == "sess-42"
    assert closing < 1.0


def test_no_session_id_means_no_delete() -> None:
    rec = Recorder(issue_session=False)
    with recorder_server(rec) as url:
        run(url)
    assert "DELETE" not in methods(rec)


def test_modern_era_sends_no_delete() -> None:
    rec = Recorder(modern_only=True)
    with recorder_server(rec) as url:
        era, _ = run(url)
    assert era == "modern"
    assert methods(rec)[:2] == ["POST initialize", "POST server/discover"]
    assert "DELETE" not in methods(rec)


@pytest.mark.slow
def test_a_slow_delete_answer_bounds_close() -> None:
    rec = Recorder(delete_status=200, delete_delay_s=DELETE_TIMEOUT_S + 2)
    with recorder_server(rec) as url:
        _, closing = run(url)
    assert "DELETE" in methods(rec)
    assert DELETE_TIMEOUT_S - 0.5 < closing < DELETE_TIMEOUT_S + 1.5
