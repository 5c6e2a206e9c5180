"""Our headers stay with the server the user named, through the real CLI and real loopback HTTP
servers: a legacy SSE ``endpoint`` event on another origin is refused (nothing is sent there),
and a redirect to another origin arrives without the user's headers (a same-origin one keeps
them)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tests.helpers.paths import ROOT

KEY = "k3y-that-must-stay-home-41b7"
TOKEN = "bearer-that-must-stay-home-93c2"


class _Recorder(ThreadingHTTPServer):
    def __init__(self, routes: dict[str, tuple[int, dict[str, str], bytes]]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.routes = routes
        self.seen: list[tuple[str, str, dict[str, str]]] = []

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: _Recorder

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        self.server.seen.append((self.command, self.path, dict(self.headers)))
        status, headers, body = self.server.routes.get(self.path, (404, {}, b"no"))
        self.send_response(status)
        for name, value in {**headers, "Content-Length": str(len(body))}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_DELETE = _answer


@contextmanager
def _serving(routes: dict[str, tuple[int, dict[str, str], bytes]]) -> Iterator[_Recorder]:
    server = _Recorder(routes)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def _measure(url: str, transport: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    headers = tmp_path / "headers"
    headers.write_text(f"X-Api-Key: {KEY}\nAuthorization: Bearer {TOKEN}\n", "utf-8")
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT), "NO_PROXY": "*"}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mcpcost",
            "measure",
            "--url",
            url,
            "--transport",
            transport,
            "--header-file",
            str(headers),
            "--timeout",
            "5",
            "--no-retry",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _carried_ours(headers: dict[str, str]) -> bool:
    values = " ".join(headers.values())
    return KEY in values or TOKEN in values


def test_an_sse_endpoint_on_another_origin_is_refused(tmp_path: Path) -> None:
    with _serving({}) as elsewhere:
        event = f"event: endpoint\ndata: {elsewhere.base}/messages\n\n".encode()
        stream = {"/sse": (200, {"Content-Type": "text/event-stream"}, event)}
        with _serving(stream) as named:
            done = _measure(f"{named.base}/sse", "sse", tmp_path)
    assert done.returncode == 1
    assert "another origin" in done.stdout, done.stdout
    assert elsewhere.seen == [], "nothing was sent to the other origin"
    assert any(_carried_ours(h) for _, _, h in named.seen), "the named server got our headers"


def test_a_same_origin_endpoint_is_used(tmp_path: Path) -> None:
    with _serving({}) as named:
        event = f"event: endpoint\ndata: {named.base}/messages\n\n".encode()
        named.routes["/sse"] = (200, {"Content-Type": "text/event-stream"}, event)
        _measure(f"{named.base}/sse", "sse", tmp_path)
    assert ("POST", "/messages") in [(m, p) for m, p, _ in named.seen]


def test_a_redirect_to_another_origin_drops_our_headers(tmp_path: Path) -> None:
    with _serving({}) as elsewhere:
        routes = {
            "/mcp": (307, {"Location": f"{elsewhere.base}/mcp"}, b""),
            "/same": (307, {"Location": "/landed"}, b""),
        }
        with _serving(routes) as named:
            _measure(f"{named.base}/mcp", "http", tmp_path)
            _measure(f"{named.base}/same", "http", tmp_path)
    assert elsewhere.seen, "the redirect was followed"
    assert not any(_carried_ours(h) for _, _, h in elsewhere.seen), elsewhere.seen
    landed = [h for _, p, h in named.seen if p == "/landed"]
    assert landed and all(_carried_ours(h) for h in landed), "same origin: headers kept"
