"""The test servers behave as documented, checked with a tiny raw client written here.

This deliberately does not use mcpcost's own client: these tests pin down the fixtures that the
client's tests rely on.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import pytest

from tests.helpers.paths import REFERENCE_CAPTURES
from tests.servers import registry
from tests.servers.conftest_plugin import (
    NodeReference,
    docker_host_fixture,  # noqa: F401  (the fixture, without registering the plugin)
    node_reference_fixture,  # noqa: F401  (the fixture, without registering the plugin)
    require_node,
    require_real_server,
)
from tests.servers.http_fixtures import BEARER_TOKEN, serve_http
from tests.servers.podman import BASE_IMAGE, podman_service, podman_unavailable

pytestmark = pytest.mark.posix_only("signals POSIX process groups")

INIT_PARAMS = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "smoke", "version": "0"},
}
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "smoke", "version": "0"},
}


# ---------------------------------------------------------------------------- raw stdio client
class RawStdio:
    """Launch argv in its own process group; read stdout lines on a thread."""

    def __init__(self, argv: list[str], env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            env=env,
        )
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.junk: list[bytes] = []
        self.last_raw = b""
        self.next_id = 1
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, msg: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(msg).encode() + b"\n")
        self.proc.stdin.flush()

    def message(self, timeout: float) -> dict[str, Any] | None:
        """The next JSON message (non-JSON lines are kept in ``junk``); None on timeout/EOF."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            try:
                line = self.lines.get(timeout=remaining)
            except queue.Empty:
                return None
            if line is None:
                return None
            try:
                msg = json.loads(line)
            except ValueError:
                self.junk.append(line)
                continue
            if isinstance(msg, dict) and "jsonrpc" in msg:
                self.last_raw = line
                return msg
            self.junk.append(line)

    def request(
        self, method: str, params: dict[str, Any] | None = None, timeout: float = 10.0
    ) -> dict[str, Any] | None:
        """Send a request; the matching response (other messages are dropped) or None."""
        msg_id = self.next_id
        self.next_id += 1
        body: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not None:
            body["params"] = params
        self.send(body)
        deadline = time.monotonic() + timeout
        while (remaining := deadline - time.monotonic()) > 0:
            msg = self.message(remaining)
            if msg is None:
                return None
            if msg.get("id") == msg_id and "method" not in msg:
                return msg
        return None

    def handshake(self) -> dict[str, Any]:
        reply = self.request("initialize", INIT_PARAMS)
        assert reply is not None and "result" in reply, reply
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        result: dict[str, Any] = reply["result"]
        return result

    def close(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


@contextlib.contextmanager
def launched(argv: list[str]) -> Iterator[RawStdio]:
    client = RawStdio(argv)
    try:
        yield client
    finally:
        client.close()


def fixture(mode: str, *extra: str) -> contextlib.AbstractContextManager[RawStdio]:
    return launched(registry.fixture_argv(mode, *extra))


# ---------------------------------------------------------------------------- stdio fixtures
def test_good_server_wire_text_is_as_documented() -> None:
    with fixture("good") as c:
        init = c.handshake()
        assert init["instructions"].startswith("Use echo")
        assert init["serverInfo"]["name"] == "fixture-good"
        c.send({"jsonrpc": "2.0", "id": 7, "method": "tools/list"})
        raw = c.lines.get(timeout=10)
    assert raw is not None
    text = raw.decode("utf-8")
    # Wire order and spelling that JSON.parse/JSON.stringify must normalise.
    assert text.index('"10":') < text.index('"2":')
    assert '"default":1.0' in text and '"minimum":-0' in text and '"maximum":1e2' in text
    assert "\\u00e9" in text and "日本語" in text and "🚀" in text
    tools = json.loads(text)["result"]["tools"]
    assert [t["name"] for t in tools] == ["echo", "add", "noop"]


def test_delays_hold_back_the_answers() -> None:
    with fixture("good", "--startup-delay", "0.6", "--list-delay", "0.6") as c:
        start = time.monotonic()
        c.handshake()
        assert time.monotonic() - start >= 0.6
        start = time.monotonic()
        assert c.request("tools/list", timeout=0.3) is None
        assert c.message(5) is not None and time.monotonic() - start >= 0.6


def test_good_server_refuses_discover_like_a_legacy_server() -> None:
    with fixture("good") as c:
        reply = c.request("server/discover", {"_meta": MODERN_META})
    assert reply is not None and reply["error"]["code"] == -32601


def test_banner_server_prints_junk_around_valid_json() -> None:
    with fixture("banner", "--json-logs") as c:
        c.handshake()
        tools = c.request("tools/list")
        assert tools is not None and len(tools["result"]["tools"]) == 3
        time.sleep(0.2)
        while (extra := c.message(0.1)) is not None:
            pass
    text_junk = [j for j in c.junk if not j.startswith(b"{")]
    json_junk = [j for j in c.junk if j.startswith(b"{")]
    assert any(b"starting" in j for j in text_junk)
    assert any(b"listing tools" in j for j in text_junk)  # between messages
    assert any(b"\x1b[32m" in j for j in text_junk)
    assert json_junk and all("jsonrpc" not in json.loads(j) for j in json_junk)
    del extra


def test_silent_server_never_answers_and_survives_stdin_eof() -> None:
    with fixture("silent") as c:
        assert c.request("initialize", INIT_PARAMS, timeout=0.8) is None
        assert c.proc.stdin is not None
        c.proc.stdin.close()
        time.sleep(0.3)
        assert c.proc.poll() is None


def test_hang_tools_answers_initialize_only() -> None:
    with fixture("hang-tools") as c:
        c.handshake()
        assert c.request("tools/list", timeout=0.8) is None
        assert c.proc.poll() is None


def test_crash_server_writes_stack_trace_and_exits_1() -> None:
    proc = subprocess.run(registry.fixture_argv("crash"), capture_output=True, timeout=10)
    assert proc.returncode == 1
    assert proc.stdout == b""
    assert b"PublicKeyToken=b77a5c561934e089" in proc.stderr
    assert b"SyntaxError: Unexpected token" in proc.stderr


def _pages(c: RawStdio, count: int) -> list[dict[str, Any]]:
    pages: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in range(count):
        reply = c.request("tools/list", {} if cursor is None else {"cursor": cursor})
        assert reply is not None
        pages.append(reply["result"])
        cursor = reply["result"].get("nextCursor")
        if cursor is None:
            break
    return pages


def test_page_forever_gives_a_new_cursor_every_page() -> None:
    with fixture("page-forever") as c:
        c.handshake()
        pages = _pages(c, 6)
    cursors = [p["nextCursor"] for p in pages]
    assert len(pages) == 6 and len(set(cursors)) == 6


def test_repeat_cursor_repeats_the_same_cursor() -> None:
    with fixture("repeat-cursor") as c:
        c.handshake()
        pages = _pages(c, 3)
    assert [p["nextCursor"] for p in pages] == ["same-cursor"] * 3


def test_paginated_has_three_pages_and_rejects_unknown_cursors() -> None:
    with fixture("paginated") as c:
        c.handshake()
        pages = _pages(c, 10)
        bad = c.request("tools/list", {"cursor": "bogus"})
    assert len(pages) == 3 and "nextCursor" not in pages[-1]
    assert [t["name"] for p in pages for t in p["tools"]] == [
        "p1_a",
        "p1_b",
        "p2_a",
        "p2_b",
        "p3_a",
        "p3_b",
    ]
    assert bad is not None and bad["error"]["code"] == -32602


def test_huge_server_sends_one_100mb_line() -> None:
    with fixture("huge") as c:
        c.handshake()
        c.send({"jsonrpc": "2.0", "id": 99, "method": "tools/list"})
        line = c.lines.get(timeout=60)
    assert line is not None and line.endswith(b"}}\n")
    assert len(line) > 100 * 1024 * 1024
    assert line.startswith(b'{"jsonrpc":"2.0","id":99,')


def test_auth_error_server_returns_32001_on_tools_list() -> None:
    with fixture("auth-error") as c:
        c.handshake()
        reply = c.request("tools/list")
    assert reply is not None
    assert reply["error"] == {"code": -32001, "message": "Authentication required"}


def _server_requests_exchange(c: RawStdio, good_replies: bool) -> dict[str, Any]:
    seen: list[str] = []
    c.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT_PARAMS})
    while True:
        msg = c.message(10)
        assert msg is not None
        if msg.get("id") == 1 and "method" not in msg:
            break
        seen.append(msg["method"])
    assert seen == ["notifications/message", "ping"]
    c.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    c.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    while True:
        msg = c.message(10)
        assert msg is not None
        if msg.get("id") == 2 and "method" not in msg:
            return msg
        seen.append(msg["method"])
        if msg["method"] == "ping":
            c.send({"jsonrpc": "2.0", "id": msg["id"], "result": {} if good_replies else None})
        elif "id" in msg:
            c.send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "no"}})


def test_server_requests_waits_for_correct_client_replies() -> None:
    with fixture("server-requests") as c:
        reply = _server_requests_exchange(c, good_replies=True)
    assert reply["result"]["tools"][0]["name"] == "after_requests"


def test_server_requests_reports_a_wrong_ping_reply() -> None:
    with fixture("server-requests") as c:
        reply = _server_requests_exchange(c, good_replies=False)
    assert reply["error"]["code"] == -32603


def test_dynamic_server_differs_between_launches(tmp_path: Path) -> None:
    counter = tmp_path / "counter"
    results = []
    for _ in range(2):
        with fixture("dynamic", "--counter-file", str(counter)) as c:
            c.handshake()
            reply = c.request("tools/list")
            assert reply is not None
            results.append(reply["result"]["tools"])
    assert results[0] != results[1]
    assert "launch #1" in results[0][0]["description"]
    assert "launch #2" in results[1][0]["description"]
    assert counter.read_text() == "2"


@pytest.mark.parametrize("then", ["serve", "hang"])
def test_grandchild_ignores_sigterm_in_the_same_process_group(tmp_path: Path, then: str) -> None:
    gpid_file = tmp_path / "grandchild.pid"
    argv = registry.fixture_argv(
        "grandchild", "--then", then, "--grandchild-pid-file", str(gpid_file)
    )
    with launched(argv) as c:
        c.handshake()
        reply = c.request("tools/list", timeout=10 if then == "serve" else 0.8)
        if then == "serve":
            assert reply is not None and len(reply["result"]["tools"]) == 3
        else:
            assert reply is None
        gpid = int(gpid_file.read_text())
        assert os.getpgid(gpid) == os.getpgid(c.proc.pid) == c.proc.pid
        os.kill(gpid, signal.SIGTERM)
        time.sleep(0.3)
        assert registry.pid_alive(gpid), "grandchild should ignore SIGTERM"
    assert registry.wait_gone(gpid, 5), "SIGKILL to the group should end the grandchild"


# ---------------------------------------------------------------------------- SDK servers
def test_sdk_legacy_server_serves_the_handshake_only() -> None:
    with launched(registry.sdk_server_argv("legacy")) as c:
        refused = c.request("server/discover", {"_meta": MODERN_META})
        init = c.handshake()
        tools = c.request("tools/list")
    assert refused is not None and "error" in refused
    assert init["protocolVersion"] == "2025-06-18" and init["instructions"].startswith("SDK")
    assert tools is not None and [t["name"] for t in tools["result"]["tools"]] == [
        "greet",
        "add",
        "list_colors",
    ]


def test_sdk_dual_server_serves_either_era() -> None:
    with launched(registry.sdk_server_argv("dual")) as c:
        assert c.handshake()["serverInfo"]["name"] == "sdk-fixture-dual"
    with launched(registry.sdk_server_argv("dual")) as c:
        found = c.request("server/discover", {"_meta": MODERN_META})
    assert found is not None and found["result"]["supportedVersions"] == ["2026-07-28"]


def test_sdk_modern_server_serves_discover_and_refuses_initialize() -> None:
    with launched(registry.sdk_server_argv("modern")) as c:
        found = c.request("server/discover", {"_meta": MODERN_META})
        tools = c.request("tools/list", {"_meta": MODERN_META})
    assert found is not None, "no answer to server/discover"
    assert found["result"]["supportedVersions"] == ["2026-07-28"]
    assert found["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == (
        "sdk-fixture-modern"
    )
    assert tools is not None and len(tools["result"]["tools"]) == 3
    assert tools["result"]["resultType"] == "complete" and "ttlMs" in tools["result"]
    with launched(registry.sdk_server_argv("modern")) as c:
        refused = c.request("initialize", INIT_PARAMS)
    assert refused is not None and refused["error"]["code"] == -32022


# ---------------------------------------------------------------------------- HTTP fixtures
def _http(
    url: str,
    method: str = "POST",
    body: Any = None,
    headers: dict[str, str] | None = None,
    timeout: float = 10.0,
) -> tuple[int, dict[str, str], bytes]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=timeout)
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    all_headers = {"Accept": "application/json, text/event-stream"}
    if body is not None:
        all_headers["Content-Type"] = "application/json"
    all_headers.update(headers or {})
    data = None if body is None else json.dumps(body).encode()
    try:
        conn.request(method, path, body=data, headers=all_headers)
        resp = conn.getresponse()
        payload = resp.read()
    finally:
        conn.close()
    return resp.status, {k.lower(): v for k, v in resp.getheaders()}, payload


def _sse_events(text: str) -> list[tuple[str, str]]:
    events: list[tuple[str, str]] = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        name, data = "message", []
        for line in block.split("\n"):
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].removeprefix(" "))
        if data:
            events.append((name, "\n".join(data)))
    return events


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT_PARAMS}
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


def test_streamable_json_sessions_and_status_codes() -> None:
    with serve_http("streamable-json") as fx:
        status, headers, body = _http(fx.url, body=INIT)
        assert status == 200 and headers["content-type"] == "application/json"
        sid = headers["mcp-session-id"]
        assert json.loads(body)["result"]["serverInfo"]["name"] == "http-fixture-streamable-json"
        assert _http(fx.url, body=LIST)[0] == 400  # no session id
        assert _http(fx.url, body=LIST, headers={"Mcp-Session-Id": "nope"})[0] == 404
        assert _http(fx.url, body=LIST, headers={"Mcp-Session-Id": sid, "Accept": "*/*"})[0] == 406
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert _http(fx.url, body=note, headers={"Mcp-Session-Id": sid})[0] == 202
        status, _, body = _http(fx.url, body=LIST, headers={"Mcp-Session-Id": sid})
        assert status == 200 and len(json.loads(body)["result"]["tools"]) == 3
        assert _http(fx.url, method="GET")[0] == 405
        assert fx.requests[-2].headers["mcp-session-id"] == sid


def test_streamable_sse_answers_with_an_event_stream() -> None:
    with serve_http("streamable-sse") as fx:
        _, headers, _ = _http(fx.url, body=INIT)
        status, headers, body = _http(
            fx.url, body=LIST, headers={"Mcp-Session-Id": headers["mcp-session-id"]}
        )
    assert status == 200 and headers["content-type"] == "text/event-stream"
    text = body.decode()
    assert "\r\n" in text and text.startswith(":")
    events = _sse_events(text)
    assert json.loads(events[0][1])["method"] == "notifications/message"
    reply = json.loads(events[-1][1])  # two data: lines joined with "\n"
    assert "\n" in events[-1][1] and len(reply["result"]["tools"]) == 3


def test_legacy_sse_endpoint_event_and_responses_on_the_stream() -> None:
    with serve_http("legacy-sse") as fx:
        parts = urlsplit(fx.url)
        conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=10)
        conn.request("GET", parts.path, headers={"Accept": "text/event-stream"})
        stream = conn.getresponse()
        assert stream.status == 200
        assert stream.getheader("Content-Type") == "text/event-stream"
        assert stream.readline() == b"event: endpoint\n"
        endpoint = stream.readline().decode().removeprefix("data: ").strip()
        assert endpoint.startswith("/messages?session_id=")
        post_url = urljoin(fx.url, endpoint)
        assert _http(post_url, body=INIT)[0] == 202
        assert _http(post_url, body=LIST)[0] == 202
        lines = [stream.readline() for _ in range(7)]  # blank, then 2 events of 3 lines
        stream.close()
        conn.close()
    datas = [json.loads(line[6:]) for line in lines if line.startswith(b"data: ")]
    assert datas[0]["result"]["protocolVersion"] == "2024-11-05"
    assert len(datas[1]["result"]["tools"]) == 3


def test_401_with_oauth_protected_resource_metadata() -> None:
    with serve_http("auth-401-metadata") as fx:
        status, headers, _ = _http(fx.url, body=INIT)
        challenge = headers["www-authenticate"]
        assert status == 401 and challenge.startswith("Bearer resource_metadata=")
        meta_url = challenge.split('resource_metadata="')[1].split('"')[0]
        assert meta_url.startswith(fx.base + "/.well-known/oauth-protected-resource")
        status, _, body = _http(meta_url, method="GET")
        assert status == 200 and json.loads(body)["resource"] == fx.url
        assert _http(fx.base + "/.well-known/oauth-protected-resource", method="GET")[0] == 200


def test_401_without_oauth_metadata_and_403() -> None:
    with serve_http("auth-401-bare") as fx:
        status, headers, _ = _http(fx.url, body=INIT)
        assert status == 401 and "www-authenticate" not in headers
        assert _http(fx.base + "/.well-known/oauth-protected-resource", method="GET")[0] == 404
    with serve_http("forbidden-403") as fx:
        status, headers, body = _http(fx.url, body=INIT)
        assert status == 403 and body == b"Forbidden" and "www-authenticate" not in headers


def test_hang_fixture_never_answers_and_html_404_is_html() -> None:
    with serve_http("hang") as fx:
        with pytest.raises(TimeoutError):
            _http(fx.url, body=INIT, timeout=0.5)
        assert len(fx.requests) == 1
    with serve_http("html-404") as fx:
        status, headers, body = _http(fx.url, body=INIT)
    assert status == 404 and headers["content-type"].startswith("text/html")
    assert body.startswith(b"<!DOCTYPE html>")


def test_bearer_required_fixture_checks_the_token() -> None:
    with serve_http("bearer-required") as fx:
        assert _http(fx.url, body=INIT)[0] == 401
        good = {"Authorization": f"Bearer {BEARER_TOKEN}"}
        assert _http(fx.url, body=INIT, headers=good)[0] == 200


# ---------------------------------------------------------------------------- real servers
@pytest.mark.slow
@pytest.mark.parametrize("name", registry.REAL_STDIO_SERVERS)
def test_real_server_answers_tools_list_over_stdio(name: str) -> None:
    server = require_real_server(name)
    with launched(list(server.argv)) as c:
        init = c.request("initialize", INIT_PARAMS, timeout=30)
        assert init is not None and "result" in init, init
        c.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        tools = c.request("tools/list", timeout=30)
    assert tools is not None and tools["result"]["tools"], tools
    assert all(isinstance(t["name"], str) for t in tools["result"]["tools"])


def _capture_tools_canonical(argv: list[str]) -> tuple[str, int, int]:
    """(sha256, o200k tokens, pages) of the page-joined tools, parsed from the raw wire lines."""
    from mcpcost.core.canonical import canonicalize
    from mcpcost.core.jsonvalue import parse_json
    from mcpcost.core.tokenizer import count_tokens

    tools: list[Any] = []
    pages = 0
    with launched(argv) as c:
        init = c.request("initialize", INIT_PARAMS, timeout=30)
        assert init is not None and "result" in init, init
        c.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        cursor: str | None = None
        while True:
            reply = c.request("tools/list", {} if cursor is None else {"cursor": cursor}, 30)
            assert reply is not None and "result" in reply, reply
            page = parse_json(c.last_raw)
            assert isinstance(page, dict) and isinstance(page["result"], dict)
            page_tools = page["result"]["tools"]
            assert isinstance(page_tools, list)
            tools.extend(page_tools)
            pages += 1
            cursor = reply["result"].get("nextCursor")
            if cursor is None or pages >= 10:
                break
    canonical = canonicalize(tools)
    return canonical.sha256, count_tokens(canonical.text), pages


@pytest.mark.slow
@pytest.mark.node
@pytest.mark.parametrize("name", registry.REAL_STDIO_SERVERS)
def test_real_server_numbers_agree_with_the_node_reference(
    node_reference: NodeReference, name: str
) -> None:
    server = require_real_server(name)
    sha, tokens, pages = _capture_tools_canonical(list(server.argv))
    node = node_reference("--stdio", "--", *server.argv)
    assert (node["sha256"], node["tokens"], node["pages"]) == (sha, tokens, pages)
    assert tokens > 50


@pytest.mark.slow
@pytest.mark.parametrize("name", ["memory", "filesystem", "everything"])
def test_pinned_servers_reproduce_the_reference_projects_published_sha(name: str) -> None:
    """Our pins of these three give the exact bytes the reference project published."""
    capture = REFERENCE_CAPTURES / f"{name}.measurement.json"
    if not capture.is_file():
        pytest.skip(f"reference capture not available at {capture}")
    published = json.loads(capture.read_text(encoding="utf-8"))
    server = require_real_server(name)
    sha, tokens, _ = _capture_tools_canonical(list(server.argv))
    assert (sha, tokens) == (published["canonicalSha256"], published["totalTokens"])


@pytest.mark.slow
@pytest.mark.node
def test_everything_same_tools_over_stdio_sse_and_streamable_http(
    node_reference: NodeReference,
) -> None:
    server = require_real_server("everything")
    results = [node_reference("--stdio", "--", *server.argv)]
    for mode, transport in (("sse", "sse"), ("streamableHttp", "http")):
        with registry.serve_everything(mode) as url:
            assert url.startswith("http://127.0.0.1:")
            results.append(node_reference("--url", url, "--transport", transport))
    assert len({r["sha256"] for r in results}) == 1, results
    assert results[0]["toolCount"] > 5 and results[0]["tokens"] > 500


@pytest.mark.slow
@pytest.mark.node
def test_node_reference_agrees_with_mcpcost_core_on_the_good_fixture(
    node_reference: NodeReference,
) -> None:
    from mcpcost.core.canonical import canonicalize_text
    from mcpcost.core.tokenizer import count_tokens
    from tests.servers.fixtures.stdio_server import GOOD_TOOLS_RAW

    ours = canonicalize_text(GOOD_TOOLS_RAW)
    node = node_reference("--stdio", "--", *registry.fixture_argv("banner"))
    assert node["sha256"] == ours.sha256
    assert node["tokens"] == count_tokens(ours.text)
    assert node["pages"] == 1 and node["instructions"].startswith("Use echo")
    paged = node_reference("--stdio", "--", *registry.fixture_argv("paginated"))
    assert paged["pages"] == 3 and paged["toolCount"] == 6


@pytest.mark.slow
@pytest.mark.node
@pytest.mark.parametrize("kind", ["streamable-json", "streamable-sse", "legacy-sse"])
def test_http_fixtures_serve_the_same_tools_as_stdio(
    node_reference: NodeReference, kind: str
) -> None:
    stdio = node_reference("--stdio", "--", *registry.fixture_argv("good"))
    with serve_http(kind) as fx:
        transport = "sse" if kind == "legacy-sse" else "http"
        over_http = node_reference("--url", fx.url, "--transport", transport)
    assert over_http["sha256"] == stdio["sha256"]


@pytest.mark.slow
@pytest.mark.node
@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_sdk_server_over_streamable_http(node_reference: NodeReference, era: str) -> None:
    with registry.serve_sdk_http(era) as url:
        result = node_reference("--era", era, "--url", url)
    assert result["toolCount"] == 3
    assert result["protocolVersion"] == ("2026-07-28" if era == "modern" else "2025-06-18")


def test_node_is_reported_missing_cleanly_or_found() -> None:
    node = registry.node_binary()
    for name in registry.REAL_STDIO_SERVERS:
        reason = registry.real_server_missing(name)
        assert (registry.real_server_argv(name) is None) == (reason is not None)
    if node is not None:
        assert require_node() == node


# ---------------------------------------------------------------------------- podman
@pytest.mark.slow
@pytest.mark.podman
def test_podman_api_runs_a_container_from_the_base_image(docker_host: str) -> None:
    import docker

    client = docker.DockerClient(base_url=docker_host)
    try:
        out = client.containers.run(
            BASE_IMAGE, ["sh", "-c", "python3 --version; node --version"], remove=True
        )
    finally:
        client.close()
    text = out.decode()
    assert "Python 3" in text and text.strip().splitlines()[-1].startswith("v")


@pytest.mark.slow
@pytest.mark.podman
def test_podman_service_stops_by_pid(tmp_path: Path) -> None:
    reason = podman_unavailable()
    if reason is not None:
        pytest.skip(reason)
    sock = tmp_path / "api.sock"
    with podman_service(sock) as url:
        assert url == f"unix://{sock}" and sock.exists()
        pids = subprocess.run(
            ["pgrep", "-f", f"podman system service --time=0 {url}"],
            capture_output=True,
            text=True,
        ).stdout.split()
        assert len(pids) == 1
    assert not sock.exists()
    assert registry.wait_gone(int(pids[0]), 10)
