"""The session over real servers: both eras, server requests, pagination and its guards."""

from __future__ import annotations

import json
import socket
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from threading import Thread
from typing import Any
from urllib.parse import urlsplit

import pytest

from mcpcost.core.jsonvalue import stringify
from mcpcost.core.spec import ServerSpec
from mcpcost.transports.failures import ProtocolError, RPCError, TransportTimeout
from mcpcost.transports.http import StreamableHTTPTransport
from mcpcost.transports.session import (
    CLIENT_INFO,
    META_VERSION,
    ServerHello,
    Session,
    _modern_choice,
)
from mcpcost.transports.stdio import spawn_stdio
from tests.servers.registry import fixture_argv, sdk_server_argv, serve_sdk_http

# A raw modern-only (2026-07-28) server: no initialize, _meta required on every request.
MODERN_ONLY = r"""
import json, sys
INIT_CODE = int(sys.argv[1])
def send(m): sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m: continue
    meta = (m.get("params") or {}).get("_meta") or {}
    v = meta.get("io.modelcontextprotocol/protocolVersion")
    if m["method"] == "initialize":
        send({"jsonrpc": "2.0", "id": m["id"], "error": {"code": INIT_CODE, "message": "no",
              "data": {"supported": ["2026-07-28"], "requested": "2025-11-25"}}})
    elif v != "2026-07-28" or "io.modelcontextprotocol/clientCapabilities" not in meta:
        send({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32602, "message": "meta"}})
    elif m["method"] == "server/discover":
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"resultType": "complete",
              "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
              "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "modern-raw",
                        "version": "9.9"}}, "ttlMs": 1000, "cacheScope": "public"}})
    elif m["method"] == "tools/list":
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"resultType": "complete",
              "tools": [{"name": "t", "inputSchema": {"type": "object"}}],
              "ttlMs": 1000, "cacheScope": "public"}})
"""


def open_and_list(argv: list[str], timeout: float = 10.0) -> tuple[ServerHello, list[Any]]:
    t = spawn_stdio(ServerSpec.stdio("x", argv))
    try:
        s = Session(t, request_timeout_s=timeout, deadline=time.monotonic() + timeout)
        hello = s.open()
        return hello, s.list_tools()
    finally:
        t.close()


def test_legacy_fixture_records_hello() -> None:
    hello, tools = open_and_list(fixture_argv("good"))
    assert hello.era == "legacy" and hello.protocol_version == "2025-11-25"
    assert hello.server_name == "fixture-good"
    assert isinstance(hello.instructions, str) and hello.instructions.startswith("Use echo")
    assert [t["name"] for t in tools] == ["echo", "add", "noop"]


@pytest.mark.parametrize("init_code", [-32022, -32601])
def test_modern_only_server_via_initialize_error(init_code: int) -> None:
    hello, tools = open_and_list([sys.executable, "-c", MODERN_ONLY, str(init_code)])
    assert hello == ServerHello("modern", "2026-07-28", "modern-raw", "9.9", None, {"tools": {}})
    assert tools == [{"name": "t", "inputSchema": {"type": "object"}}]


@pytest.fixture(scope="module")
def sdk_legacy_tools() -> list[Any]:
    return open_and_list(sdk_server_argv("legacy"), timeout=20)[1]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("era", "expected"), [("legacy", "legacy"), ("modern", "modern"), ("dual", "legacy")]
)
def test_sdk_servers_both_eras_same_tools(
    era: str, expected: str, sdk_legacy_tools: list[Any]
) -> None:
    hello, tools = open_and_list(sdk_server_argv(era), timeout=20)
    assert hello.era == expected
    assert hello.protocol_version == ("2026-07-28" if expected == "modern" else "2025-11-25")
    assert hello.server_name is not None and era in hello.server_name
    # The SDK renders tools per era (2026-07-28 schemas differ), so compare the tool names.
    reference = sdk_legacy_tools
    assert [t["name"] for t in tools] == [t["name"] for t in reference]
    if expected == "legacy":
        assert stringify(tools) == stringify(reference)


def wait_port(url: str, timeout: float = 10.0) -> None:
    port = urlsplit(url).port
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port or 80), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)


@pytest.mark.slow
# serve_sdk_http (tests/servers, not ours) leaves its child's stderr pipe to the GC.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_sdk_dual_era_server_over_streamable_http(sdk_legacy_tools: list[Any]) -> None:
    with serve_sdk_http("modern") as url:
        wait_port(url)
        t = StreamableHTTPTransport(url, timeout_s=10)
        try:
            s = Session(t, request_timeout_s=10, deadline=time.monotonic() + 10)
            hello = s.open()
            tools = s.list_tools()
        finally:
            t.close()
    assert hello.era == "legacy"  # over HTTP the SDK serves both eras; initialize goes first
    assert [t["name"] for t in tools] == [t["name"] for t in sdk_legacy_tools]


@contextmanager
def modern_http_server(seen: list[dict[str, str]]) -> Iterator[str]:
    """A raw 2026-07-28-only Streamable HTTP server: initialize gets 400 with a -32022 body."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            return

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append({k.lower(): v for k, v in self.headers.items()})
            meta = (body.get("params") or {}).get("_meta") or {}
            if body["method"] == "initialize":
                status, out = (
                    400,
                    {
                        "jsonrpc": "2.0",
                        "id": body["id"],
                        "error": {
                            "code": -32022,
                            "message": "unsupported",
                            "data": {"supported": ["2026-07-28"], "requested": "2025-11-25"},
                        },
                    },
                )
            elif (
                self.headers.get("MCP-Protocol-Version") != "2026-07-28"
                or self.headers.get("Mcp-Method") != body["method"]
                or meta.get(META_VERSION) != "2026-07-28"
            ):
                status, out = (
                    400,
                    {
                        "jsonrpc": "2.0",
                        "id": body["id"],
                        "error": {"code": -32020, "message": "header mismatch"},
                    },
                )
            elif body["method"] == "server/discover":
                status, out = (
                    200,
                    {
                        "jsonrpc": "2.0",
                        "id": body["id"],
                        "result": {
                            "supportedVersions": ["2026-07-28"],
                            "capabilities": {},
                            "instructions": "modern hi",
                            "_meta": {
                                "io.modelcontextprotocol/serverInfo": {"name": "m", "version": "1"}
                            },
                        },
                    },
                )
            else:
                status, out = (
                    200,
                    {
                        "jsonrpc": "2.0",
                        "id": body["id"],
                        "result": {"tools": [{"name": "z", "inputSchema": {"type": "object"}}]},
                    },
                )
            data = json.dumps(out).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp"
    finally:
        server.shutdown()
        server.server_close()


def test_modern_only_over_streamable_http() -> None:
    seen: list[dict[str, str]] = []
    with modern_http_server(seen) as url:
        t = StreamableHTTPTransport(url, timeout_s=5)
        try:
            s = Session(t, request_timeout_s=5, deadline=time.monotonic() + 5)
            hello = s.open()
            tools = s.list_tools()
        finally:
            t.close()
    assert hello == ServerHello("modern", "2026-07-28", "m", "1", "modern hi", {})
    assert tools == [{"name": "z", "inputSchema": {"type": "object"}}]
    assert seen[-1]["mcp-method"] == "tools/list"


def test_server_requests_are_answered_and_notifications_ignored() -> None:
    hello, tools = open_and_list(fixture_argv("server-requests"))
    assert tools and hello.era == "legacy"


def test_pages_are_joined_in_order() -> None:
    _, tools = open_and_list(fixture_argv("paginated"))
    good = open_and_list(fixture_argv("good"))[1]
    assert len(tools) == 6
    assert len(tools) > len(good)


def test_repeated_cursor_is_a_protocol_error() -> None:
    with pytest.raises(ProtocolError, match="repeated cursor"):
        open_and_list(fixture_argv("repeat-cursor"))


def test_endless_pages_hit_the_page_cap() -> None:
    with pytest.raises(ProtocolError, match="100 pages"):
        open_and_list(fixture_argv("page-forever"))


def test_byte_cap_on_paged_tools() -> None:
    t = spawn_stdio(ServerSpec.stdio("x", fixture_argv("paginated")))
    try:
        s = Session(t, request_timeout_s=10, deadline=time.monotonic() + 10, max_tools_bytes=600)
        s.open()
        with pytest.raises(ProtocolError, match="exceeded 600 bytes"):
            s.list_tools()
    finally:
        t.close()


def test_auth_error_code_is_kept() -> None:
    with pytest.raises(RPCError) as info:
        open_and_list(fixture_argv("auth-error"))
    assert info.value.code == -32001 and info.value.method == "tools/list"


def test_silent_server_times_out_on_initialize_within_budget() -> None:
    started = time.monotonic()
    with pytest.raises(TransportTimeout) as info:
        open_and_list(fixture_argv("silent"), timeout=0.5)
    assert info.value.waiting_for == "initialize"
    assert time.monotonic() - started < 3.0


def test_overall_deadline_bounds_the_whole_capture() -> None:
    t = spawn_stdio(ServerSpec.stdio("x", fixture_argv("hang-tools")))
    try:
        s = Session(t, request_timeout_s=30, deadline=time.monotonic() + 0.7)
        s.open()
        started = time.monotonic()
        with pytest.raises(TransportTimeout) as info:
            s.list_tools()
        assert info.value.waiting_for == "tools/list"
        assert time.monotonic() - started < 1.5
    finally:
        t.close()


def test_modern_version_choice() -> None:
    assert _modern_choice(RPCError(-32022, "x", {"supported": ["2026-07-28", "2027-01-01"]})) == (
        "2026-07-28"
    )
    assert _modern_choice(RPCError(-32022, "x", {"supported": ["2027-01-01"]})) == "2027-01-01"
    assert _modern_choice(RPCError(-32601, "x")) == "2026-07-28"
    assert _modern_choice(RPCError(-32022, "x", {"supported": ["2025-06-18"]})) == "2026-07-28"


def test_client_info_names_us() -> None:
    from mcpcost import __version__

    assert CLIENT_INFO == {"name": "mcp-context-cost", "version": __version__}
    assert META_VERSION == "io.modelcontextprotocol/protocolVersion"
