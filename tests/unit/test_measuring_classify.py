"""Status classification is decided by protocol signals; text only as a narrow last resort."""

from __future__ import annotations

import pytest

from mcpcost.core.status import Status
from mcpcost.measuring.classify import classify_failure, says_auth, stderr_message_lines
from mcpcost.transports.failures import (
    HostUnreachable,
    HTTPStatusError,
    ProtocolError,
    RPCError,
    SpawnFailed,
    TransportClosed,
    TransportTimeout,
)

DOTNET_TRACE = """Unhandled exception. System.IO.FileLoadException: Could not load file or assembly
'Azure.Identity, Version=1.10.0.0, Culture=neutral, PublicKeyToken=92742159e12e44c8'.
   at Server.Program.Main(String[] args) in /src/Program.cs:line 401
SyntaxError: Unexpected token < in JSON at position 0
    at JSON.parse (<anonymous>)
    at Object.<anonymous> (/app/dist/index.js:401:17)"""


def test_timer_is_timeout() -> None:
    status, message = classify_failure(TransportTimeout(60000, "tools/list"))
    assert status is Status.TIMEOUT
    assert message == "timeout after 60000ms waiting for tools/list"


def test_http_401_with_metadata_is_remote_auth_wall() -> None:
    exc = HTTPStatusError(
        401, url="u", www_authenticate='Bearer resource_metadata="x"', oauth_metadata=True
    )
    assert classify_failure(exc)[0] is Status.REMOTE_AUTH_WALL


@pytest.mark.parametrize("status", [401, 403])
def test_http_auth_without_metadata_is_auth_required(status: int) -> None:
    assert classify_failure(HTTPStatusError(status, url="u"))[0] is Status.AUTH_REQUIRED


def test_other_http_status_is_startup_failure() -> None:
    exc = HTTPStatusError(500, url="u", body_snippet="token expired? no: internal error")
    assert classify_failure(exc)[0] is Status.STARTUP_FAILURE


def test_jsonrpc_32001_is_auth_required_whatever_the_text() -> None:
    assert classify_failure(RPCError(-32001, "oops"))[0] is Status.AUTH_REQUIRED


def test_server_error_message_heuristic_is_narrow() -> None:
    assert classify_failure(RPCError(-32603, "Missing API key for Acme"))[0] is Status.AUTH_REQUIRED
    assert classify_failure(RPCError(-32603, "Unexpected token } in JSON"))[0] is (
        Status.STARTUP_FAILURE
    )
    assert classify_failure(RPCError(-32603, "author field invalid"))[0] is Status.STARTUP_FAILURE


def test_stack_trace_noise_is_startup_failure() -> None:
    exc = TransportClosed("server exited (code 1)", exit_code=1, stderr_tail=DOTNET_TRACE)
    assert classify_failure(exc)[0] is Status.STARTUP_FAILURE


def test_crash_saying_credentials_missing_is_auth_required() -> None:
    tail = "Error: Credentials not found. Please authenticate.\n    at main (/app/index.js:3:9)"
    exc = TransportClosed("server exited (code 1)", exit_code=1, stderr_tail=tail)
    assert classify_failure(exc)[0] is Status.AUTH_REQUIRED


def test_frames_are_not_messages() -> None:
    lines = stderr_message_lines(DOTNET_TRACE)
    assert len(lines) == 2 and lines[0].startswith("Unhandled exception.")
    assert not any(ln.lstrip().startswith(("at ", "SyntaxError")) for ln in lines)
    assert not any(says_auth(line) for line in DOTNET_TRACE.splitlines())


@pytest.mark.parametrize(
    "exc",
    [
        SpawnFailed("spawn failed: x: No such file"),
        ProtocolError("tools/list repeated cursor"),
        TransportClosed("server exited (code 0)", exit_code=0),
    ],
)
def test_everything_else_is_startup_failure(exc: Exception) -> None:
    assert classify_failure(exc)[0] is Status.STARTUP_FAILURE  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "text",
    [
        "Unauthorized",
        "401 Unauthorized",
        "missing api key",
        "API key is required",
        "authentication required",
        "GITHUB token: invalid access token",
        "Not authenticated",
    ],
)
def test_auth_phrases(text: str) -> None:
    assert says_auth(text)


@pytest.mark.parametrize(
    "text",
    [
        "PublicKeyToken=b77a5c561934e089",
        "Unexpected token",
        "author: jane",
        "OAuth2 library v3",
        "listening on port 401",
        "tokenizer loaded",
        "credential helper found",
    ],
)
def test_not_auth_phrases(text: str) -> None:
    assert not says_auth(text)


def test_an_html_error_page_is_summarised_not_quoted() -> None:
    from mcpcost.measuring.classify import byte_size
    from mcpcost.transports.failures import HTTPStatusError as StatusError
    from mcpcost.transports.http_answers import is_html

    assert is_html("text/html; charset=utf-8", b"")
    assert is_html("application/octet-stream", b"  <!DOCTYPE HTML><p>")
    assert not is_html("application/json", b'{"error": "<b>"}')
    assert [byte_size(n) for n in (734, 1234, 3_400_000)] == ["734 B", "1.2 kB", "3.4 MB"]
    page = StatusError(502, url="https://x.example/mcp", html_body=True, body_size=1234)
    status, message = classify_failure(page)
    assert status is Status.STARTUP_FAILURE
    assert message == "HTTP 502 from https://x.example/mcp, HTML page, 1.2 kB"
    missing = StatusError(404, url="https://x.example/mcp", html_body=True, body_size=734)
    assert classify_failure(missing) == (
        Status.GONE,
        "HTTP 404 from https://x.example/mcp, HTML page, 734 B",
    )


def test_a_remote_nobody_answers_at_is_unreachable() -> None:
    exc = HostUnreachable("connection refused by 127.0.0.1:9 (nothing accepts connections there)")
    status, message = classify_failure(exc)
    assert status is Status.UNREACHABLE
    assert message.startswith("connection refused by 127.0.0.1:9")


@pytest.mark.parametrize("code", [404, 410])
def test_http_404_and_410_are_gone(code: int) -> None:
    status, message = classify_failure(HTTPStatusError(code, url="https://x.example/mcp"))
    assert status is Status.GONE
    assert message == f"HTTP {code} from https://x.example/mcp"


def test_other_closed_connections_stay_startup_failures() -> None:
    assert classify_failure(TransportClosed("the SSE stream was cut"))[0] is (
        Status.STARTUP_FAILURE
    )
