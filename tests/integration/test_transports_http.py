"""Streamable HTTP, legacy HTTP+SSE and auto, each against real loopback servers."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from threading import Thread

import pytest

from mcpcost.core.jsonvalue import parse_json, stringify
from mcpcost.transports.auto import AutoTransport
from mcpcost.transports.base import Transport
from mcpcost.transports.failures import HTTPStatusError, TransportClosed, TransportTimeout
from mcpcost.transports.http import StreamableHTTPTransport
from mcpcost.transports.http_answers import well_known_urls
from mcpcost.transports.legacy_sse import LegacySSETransport
from mcpcost.transports.session import Session
from tests.servers.fixtures.stdio_server import GOOD_TOOLS_RAW
from tests.servers.http_fixtures import BEARER_TOKEN, serve_http

EXPECTED_TOOLS = stringify(parse_json(GOOD_TOOLS_RAW))


def run_session(t: Transport, timeout: float = 5.0) -> tuple[str, str]:
    try:
        s = Session(t, request_timeout_s=timeout, deadline=time.monotonic() + timeout)
        hello = s.open()
        tools = s.list_tools()
    finally:
        t.close()
    return hello.protocol_version or "", stringify(tools)


@pytest.mark.parametrize("kind", ["streamable-json", "streamable-sse"])
def test_streamable_http_handshake_session_id_and_version_header(kind: str) -> None:
    with serve_http(kind) as fx:
        version, tools = run_session(StreamableHTTPTransport(fx.url, timeout_s=5))
        recorded = list(fx.requests)
    assert tools == EXPECTED_TOOLS
    assert version == "2025-11-25"
    posts = [r for r in recorded if r.method == "POST"]
    assert [parse_json(r.body)["method"] for r in posts] == [
        "initialize",
        "notifications/initialized",
        "tools/list",
    ]
    assert all(r.headers["accept"] == "application/json, text/event-stream" for r in posts)
    assert all(r.headers["content-type"] == "application/json" for r in posts)
    assert "mcp-session-id" not in posts[0].headers
    sid = posts[1].headers["mcp-session-id"]
    assert sid and posts[2].headers["mcp-session-id"] == sid
    assert "mcp-protocol-version" not in posts[0].headers
    assert posts[2].headers["mcp-protocol-version"] == "2025-11-25"


def test_user_headers_are_sent() -> None:
    with serve_http("bearer-required") as fx:
        t = StreamableHTTPTransport(
            fx.url, headers={"Authorization": f"Bearer {BEARER_TOKEN}"}, timeout_s=5
        )
        _, tools = run_session(t)
    assert tools == EXPECTED_TOOLS


def test_401_with_resource_metadata() -> None:
    with serve_http("auth-401-metadata") as fx:
        with pytest.raises(HTTPStatusError) as info:
            run_session(StreamableHTTPTransport(fx.url, timeout_s=5))
    assert info.value.status == 401 and info.value.oauth_metadata
    assert "resource_metadata" in (info.value.www_authenticate or "")


@pytest.mark.parametrize(("kind", "status"), [("auth-401-bare", 401), ("forbidden-403", 403)])
def test_auth_without_metadata(kind: str, status: int) -> None:
    with serve_http(kind) as fx:
        with pytest.raises(HTTPStatusError) as info:
            run_session(StreamableHTTPTransport(fx.url, timeout_s=5))
    assert info.value.status == status and not info.value.oauth_metadata


def test_legacy_sse_endpoint_event_and_stream_responses() -> None:
    with serve_http("legacy-sse") as fx:
        version, tools = run_session(LegacySSETransport(fx.url, timeout_s=5))
        recorded = list(fx.requests)
    assert tools == EXPECTED_TOOLS
    assert version == "2024-11-05"
    assert recorded[0].method == "GET" and recorded[0].headers["accept"] == "text/event-stream"
    posts = [r for r in recorded if r.method == "POST"]
    assert posts and all(r.path.startswith("/messages") for r in posts)


def test_auto_falls_back_to_legacy_sse() -> None:
    with serve_http("legacy-sse") as fx:
        auto = AutoTransport(
            StreamableHTTPTransport(fx.url, timeout_s=5),
            lambda: LegacySSETransport(fx.url, timeout_s=5),
        )
        _, tools = run_session(auto)
    assert auto.fell_back and tools == EXPECTED_TOOLS
    assert auto.diagnostics.kind == "sse"


def test_auto_stays_on_streamable_http() -> None:
    with serve_http("streamable-json") as fx:
        auto = AutoTransport(
            StreamableHTTPTransport(fx.url, timeout_s=5),
            lambda: LegacySSETransport(fx.url, timeout_s=5),
        )
        _, tools = run_session(auto)
    assert not auto.fell_back and tools == EXPECTED_TOOLS


def test_auto_never_falls_back_on_auth() -> None:
    with serve_http("auth-401-bare") as fx:
        auto = AutoTransport(
            StreamableHTTPTransport(fx.url, timeout_s=5),
            lambda: LegacySSETransport(fx.url, timeout_s=5),
        )
        with pytest.raises(HTTPStatusError):
            run_session(auto)
    assert not auto.fell_back


def test_well_known_candidates() -> None:
    assert well_known_urls("https://h.example/mcp/") == [
        "https://h.example/.well-known/oauth-protected-resource/mcp",
        "https://h.example/.well-known/oauth-protected-resource",
    ]
    assert well_known_urls("http://h:8/") == ["http://h:8/.well-known/oauth-protected-resource"]


@contextmanager
def hanging_server() -> Iterator[str]:
    """A server that accepts requests and never answers them."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            return

        def do_POST(self) -> None:
            time.sleep(3)

        def do_GET(self) -> None:
            time.sleep(3)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("cls", [StreamableHTTPTransport, LegacySSETransport])
def test_silent_http_server_times_out_on_time(cls: type[StreamableHTTPTransport]) -> None:
    with hanging_server() as url:
        started = time.monotonic()
        with pytest.raises((TransportTimeout, TransportClosed)):
            run_session(cls(url, timeout_s=0.5), timeout=0.5)
        assert time.monotonic() - started < 2.5


def test_connection_refused_is_closed() -> None:
    with hanging_server() as url:
        pass  # the port is free again
    with pytest.raises(TransportClosed):
        run_session(StreamableHTTPTransport(url, timeout_s=2), timeout=2)
