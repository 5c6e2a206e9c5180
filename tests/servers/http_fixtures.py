"""Loopback HTTP MCP fixtures (stdlib ``http.server`` on threads, 127.0.0.1, port 0).

Kinds (``serve_http(kind)`` yields an ``HttpFixture`` whose ``url`` is what a client is given):

streamable-json     Streamable HTTP (2025-06-18 style): POST answers ``application/json``;
                    ``Mcp-Session-Id`` issued on initialize and required afterwards (400 when
                    missing, 404 when unknown); notifications get 202; GET gets 405; the
                    request's ``Accept`` must list both JSON and SSE (else 406).
streamable-sse      the same, but each request is answered with an SSE stream (CRLF line ends,
                    a ``:`` comment, a notification event first, the response split over two
                    ``data:`` lines).
legacy-sse          HTTP+SSE (2024-11-05): GET ``/sse`` opens the stream whose first event is
                    ``endpoint`` with a relative URL; POSTs there get 202 and the responses
                    arrive as ``message`` events on the stream.
auth-401-metadata   401 with ``WWW-Authenticate: Bearer resource_metadata="..."``; the
                    ``/.well-known/oauth-protected-resource[/mcp]`` document exists.
auth-401-bare       401 without ``WWW-Authenticate`` and no protected-resource document (404).
forbidden-403       403 with a plain-text body and no OAuth metadata.
bearer-required     streamable-json behind ``Authorization: Bearer <BEARER_TOKEN>`` (else 401).
slow-json           streamable-json whose ``tools/list`` answers only after ``SLOW_TOOLS_S``.
hang                reads each request and never answers (holds the connection open).
html-404            every request gets ``404`` with an HTML page (no JSON-RPC body).

The tools served are the stdio fixture's well-behaved list, byte for byte, so the same tool set
measured over stdio and HTTP must give the same sha256.
"""

from __future__ import annotations

import contextlib
import json
import queue
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.servers.fixtures.stdio_server import GOOD_INSTRUCTIONS, GOOD_TOOLS_RAW, LEGACY_VERSIONS

HTTP_FIXTURE_KINDS: tuple[str, ...] = (
    "streamable-json",
    "streamable-sse",
    "legacy-sse",
    "auth-401-metadata",
    "auth-401-bare",
    "forbidden-403",
    "bearer-required",
    "slow-json",
    "hang",
    "html-404",
    "deep-json",
    "deep-sse",
)
# deep-json / deep-sse: Streamable HTTP (JSON body / SSE event) whose tools/list message nests
# DEEP_LEVELS deep, past the one JSON depth limit.
DEEP_LEVELS = 600
SLOW_TOOLS_S = 2.0
HTML_404 = b"<!DOCTYPE html><html><body><h1>404 Not Found</h1></body></html>"
BEARER_TOKEN = "fixture-secret-token-4f1d"
MCP_PATH = "/mcp"
SSE_PATH = "/sse"
MESSAGES_PATH = "/messages"


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass(frozen=True)
class HttpFixture:
    kind: str
    base: str
    url: str
    requests: list[RecordedRequest] = field(default_factory=list)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def rpc_reply(msg: dict[str, Any], kind: str) -> str | None:
    """The raw JSON text answering one JSON-RPC request (``None`` for notifications/responses)."""
    if "method" not in msg or "id" not in msg:
        return None
    msg_id, method = msg["id"], msg["method"]
    ident = _dumps(msg_id)
    if method == "initialize":
        requested = (msg.get("params") or {}).get("protocolVersion")
        version = requested if requested in LEGACY_VERSIONS else LEGACY_VERSIONS[-1]
        if kind == "legacy-sse":
            version = "2024-11-05"
        result = {
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": f"http-fixture-{kind}", "version": "0.0.1"},
            "instructions": GOOD_INSTRUCTIONS,
        }
        return '{"jsonrpc":"2.0","id":' + ident + ',"result":' + _dumps(result) + "}"
    if method == "tools/list" and kind.startswith("deep-"):
        inner = DEEP_LEVELS - 5  # message > result > tools > tool > inputSchema > x...
        schema = '{"type":"object",' + '"x":{' * inner + "}" * inner + "}"
        tool = '{"name":"deep","inputSchema":' + schema + "}"
        return '{"jsonrpc":"2.0","id":' + ident + ',"result":{"tools":[' + tool + "]}}"
    if method == "tools/list":
        return '{"jsonrpc":"2.0","id":' + ident + ',"result":{"tools":' + GOOD_TOOLS_RAW + "}}"
    if method == "ping":
        return '{"jsonrpc":"2.0","id":' + ident + ',"result":{}}'
    error = {"code": -32601, "message": f"Method not found: {method}"}
    return '{"jsonrpc":"2.0","id":' + ident + ',"error":' + _dumps(error) + "}"


class _State:
    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.base = ""
        self.sessions: set[str] = set()
        self.streams: dict[str, queue.Queue[str]] = {}
        self.stop = threading.Event()
        self.requests: list[RecordedRequest] = []
        self.lock = threading.Lock()


def _make_handler(state: _State) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"
        server_version = "mcpcost-fixture/0"

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            return

        def _record(self, body: bytes) -> None:
            headers = {k.lower(): v for k, v in self.headers.items()}
            with state.lock:
                state.requests.append(RecordedRequest(self.command, self.path, headers, body))

        def _body(self) -> bytes:
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(length) if length else b""

        def _send(self, status: int, body: bytes, ctype: str, **headers: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            for name, value in headers.items():
                self.send_header(name.replace("_", "-"), value)
            self.end_headers()
            self.wfile.write(body)

        def _json(self, status: int, value: Any, **headers: str) -> None:
            self._send(status, _dumps(value).encode(), "application/json", **headers)

        # -- dispatch -------------------------------------------------------------------
        def _special(self) -> bool:
            """Handle the ``hang`` and ``html-404`` kinds; True when handled."""
            if state.kind == "hang":
                while not state.stop.wait(0.05):
                    pass
                return True
            if state.kind == "html-404":
                self._send(404, HTML_404, "text/html; charset=utf-8")
                return True
            return False

        def do_GET(self) -> None:
            self._record(b"")
            if self._special():
                return
            path = urlsplit(self.path).path
            if path.startswith("/.well-known/oauth-protected-resource"):
                self._well_known()
            elif state.kind in ("auth-401-metadata", "auth-401-bare", "forbidden-403"):
                self._denied()
            elif state.kind == "legacy-sse" and path == SSE_PATH:
                self._legacy_stream()
            elif path == MCP_PATH:
                self._send(405, b"Method Not Allowed", "text/plain", Allow="POST, DELETE")
            else:
                self._send(404, b"Not Found", "text/plain")

        def do_DELETE(self) -> None:
            self._record(b"")
            if self._special():
                return
            sid = self.headers.get("Mcp-Session-Id")
            with state.lock:
                state.sessions.discard(sid or "")
            self._send(200, b"", "text/plain")

        def do_POST(self) -> None:
            body = self._body()
            self._record(body)
            if self._special():
                return
            path = urlsplit(self.path).path
            if state.kind in ("auth-401-metadata", "auth-401-bare", "forbidden-403"):
                self._denied()
            elif state.kind == "legacy-sse":
                if path == MESSAGES_PATH:
                    self._legacy_post(body)
                else:
                    self._send(404, b"Not Found", "text/plain")
            elif path != MCP_PATH:
                self._send(404, b"Not Found", "text/plain")
            elif state.kind == "bearer-required" and (
                self.headers.get("Authorization") != f"Bearer {BEARER_TOKEN}"
            ):
                self._json(
                    401,
                    {"error": "invalid_token"},
                    WWW_Authenticate='Bearer error="invalid_token"',
                )
            else:
                self._streamable_post(body)

        # -- auth walls -----------------------------------------------------------------
        def _denied(self) -> None:
            if state.kind == "auth-401-metadata":
                meta = f"{state.base}/.well-known/oauth-protected-resource{MCP_PATH}"
                self._json(
                    401,
                    {"error": "invalid_token", "error_description": "Missing access token"},
                    WWW_Authenticate=f'Bearer resource_metadata="{meta}", scope="tools:read"',
                )
            elif state.kind == "auth-401-bare":
                self._json(401, {"error": "unauthorized"})
            else:
                self._send(403, b"Forbidden", "text/plain")

        def _well_known(self) -> None:
            if state.kind != "auth-401-metadata":
                self._send(404, b"Not Found", "text/plain")
                return
            self._json(
                200,
                {
                    "resource": f"{state.base}{MCP_PATH}",
                    "authorization_servers": [f"{state.base}/auth"],
                    "bearer_methods_supported": ["header"],
                    "scopes_supported": ["tools:read"],
                },
            )

        # -- Streamable HTTP ------------------------------------------------------------
        def _streamable_post(self, body: bytes) -> None:
            accept = self.headers.get("Accept") or ""
            if "application/json" not in accept or "text/event-stream" not in accept:
                self._json(
                    406,
                    {
                        "jsonrpc": "2.0",
                        "id": None,
                        "error": {
                            "code": -32000,
                            "message": "Not Acceptable: Accept must list "
                            "application/json and text/event-stream",
                        },
                    },
                )
                return
            try:
                msg = json.loads(body)
            except ValueError:
                self._json(
                    400,
                    {
                        "jsonrpc": "2.0",
                        "id": None,
                        "error": {"code": -32700, "message": "Parse error"},
                    },
                )
                return
            if not isinstance(msg, dict):
                self._json(
                    400,
                    {
                        "jsonrpc": "2.0",
                        "id": None,
                        "error": {"code": -32600, "message": "Invalid Request"},
                    },
                )
                return
            headers: dict[str, str] = {}
            if msg.get("method") == "initialize":
                sid = uuid.uuid4().hex
                with state.lock:
                    state.sessions.add(sid)
                headers["Mcp_Session_Id"] = sid
            else:
                sid = self.headers.get("Mcp-Session-Id") or ""
                if not sid:
                    self._json(
                        400,
                        {
                            "jsonrpc": "2.0",
                            "id": msg.get("id"),
                            "error": {
                                "code": -32000,
                                "message": "Bad Request: Mcp-Session-Id required",
                            },
                        },
                    )
                    return
                if sid not in state.sessions:
                    self._json(
                        404,
                        {
                            "jsonrpc": "2.0",
                            "id": msg.get("id"),
                            "error": {"code": -32001, "message": "Session not found"},
                        },
                    )
                    return
            reply = rpc_reply(msg, state.kind)
            if state.kind == "slow-json" and msg.get("method") == "tools/list":
                state.stop.wait(SLOW_TOOLS_S)
            if reply is None:
                self._send(202, b"", "text/plain", **headers)
            elif state.kind in ("streamable-sse", "deep-sse"):
                self._sse_reply(reply, headers)
            else:
                self._send(200, reply.encode(), "application/json", **headers)

        def _sse_reply(self, reply: str, headers: dict[str, str]) -> None:
            note = _dumps(
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/message",
                    "params": {"level": "info", "data": "working"},
                }
            )
            # Split the JSON text at a comma between tokens: joined with "\n" it stays valid.
            cut = reply.find(',"result":')
            cut = reply.find(',"error":') if cut < 0 else cut
            first, second = reply[:cut], reply[cut:]
            text = (
                ": keep-alive\r\n\r\n"
                "event: message\r\ndata: " + note + "\r\n\r\n"
                "id: 1\r\ndata: " + first + "\r\ndata: " + second + "\r\n\r\n"
            )
            self._send(200, text.encode(), "text/event-stream", Cache_Control="no-cache", **headers)

        # -- legacy HTTP+SSE ------------------------------------------------------------
        def _legacy_stream(self) -> None:
            sid = uuid.uuid4().hex
            q: queue.Queue[str] = queue.Queue()
            with state.lock:
                state.streams[sid] = q
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            try:
                self.wfile.write(
                    f"event: endpoint\ndata: {MESSAGES_PATH}?session_id={sid}\n\n".encode()
                )
                self.wfile.flush()
                while not state.stop.is_set():
                    try:
                        item = q.get(timeout=0.1)
                    except queue.Empty:
                        continue
                    self.wfile.write(f"event: message\ndata: {item}\n\n".encode())
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass
            finally:
                with state.lock:
                    state.streams.pop(sid, None)

        def _legacy_post(self, body: bytes) -> None:
            sid = (parse_qs(urlsplit(self.path).query).get("session_id") or [""])[0]
            with state.lock:
                q = state.streams.get(sid)
            if q is None:
                self._send(404, b"Could not find session", "text/plain")
                return
            try:
                msg = json.loads(body)
            except ValueError:
                self._send(400, b"Invalid message", "text/plain")
                return
            self._send(202, b"Accepted", "text/plain")
            if isinstance(msg, dict):
                reply = rpc_reply(msg, state.kind)
                if reply is not None:
                    q.put(reply)

    return Handler


@contextlib.contextmanager
def serve_http(kind: str) -> Iterator[HttpFixture]:
    """Run the HTTP fixture ``kind`` on 127.0.0.1 in background threads until the block exits."""
    if kind not in HTTP_FIXTURE_KINDS:
        raise ValueError(f"unknown HTTP fixture {kind!r}; expected one of {HTTP_FIXTURE_KINDS}")
    state = _State(kind)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(state))
    server.daemon_threads = True
    port = server.server_address[1]
    state.base = f"http://127.0.0.1:{port}"
    path = SSE_PATH if kind == "legacy-sse" else MCP_PATH
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield HttpFixture(kind, state.base, state.base + path, state.requests)
    finally:
        state.stop.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
