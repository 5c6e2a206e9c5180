"""Typed transport failures: the measurer decides a status from these, never from message text.

TransportError (mcpcost.errors)
├── TransportClosed     the server went away (process exit, stream end); exit code + stderr tail
│   ├── SpawnFailed     the process could not be started at all
│   └── ConnectTimedOut no connection to a remote server within the connect limit
├── TransportTimeout    nothing arrived in time (per-request timer or the capture deadline)
├── HTTPStatusError     an HTTP answer we cannot use; 401/403 carry the auth signals
├── UnusableURL         a server URL that cannot be connected to as written (never quoted)
├── ProtocolError       the server broke the protocol (bad framing, oversize, pagination guards)
└── RPCError            the server answered a request with a JSON-RPC error object
"""

from __future__ import annotations

from typing import Any

from mcpcost.errors import McpcostError, TransportError

# JSON-RPC codes the session and the measurer act on.
AUTH_REQUIRED_CODE = -32001
UNSUPPORTED_PROTOCOL_VERSION = -32022


class TransportClosed(TransportError):
    """The server closed its end: a process exited or a connection/stream ended."""

    def __init__(self, reason: str, *, exit_code: int | None = None, stderr_tail: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.exit_code = exit_code
        self.stderr_tail = stderr_tail


class SpawnFailed(TransportClosed):
    """The server process could not be started (missing executable, permissions, bad cwd)."""


class HostUnreachable(TransportClosed):
    """A remote server's host name did not resolve or its connection was refused: nothing
    answered at the address (status ``unreachable``)."""


class ConnectTimedOut(TransportClosed):
    """No TCP/TLS connection to a remote server could be made within the connect limit.

    A closed-transport error rather than a ``TransportTimeout`` so the session reports it as it
    is instead of as a wait for a message; the status is still ``timeout``.
    """


class TransportTimeout(TransportError):
    """No message arrived within the time allowed."""

    def __init__(self, waited_ms: int, waiting_for: str) -> None:
        super().__init__(f"timeout after {waited_ms}ms waiting for {waiting_for}")
        self.waiting_for = waiting_for


class HTTPStatusError(TransportError):
    """An HTTP response with a status we cannot use. For 401/403 the auth signals are kept."""

    def __init__(
        self,
        status: int,
        *,
        url: str,
        www_authenticate: str | None = None,
        oauth_metadata: bool = False,
        body_snippet: str = "",
        jsonrpc_body: bool = False,
        body_size: int = 0,
        html_body: bool = False,
    ) -> None:
        super().__init__(f"HTTP {status} from {url}")
        self.status = status
        self.url = url
        self.www_authenticate = www_authenticate
        self.oauth_metadata = oauth_metadata
        self.body_snippet = body_snippet
        self.jsonrpc_body = jsonrpc_body
        self.body_size = body_size  # bytes read of the body (decoded, within the error cap)
        self.html_body = html_body  # an HTML page: summarised, never quoted

    @property
    def is_auth(self) -> bool:
        return self.status in (401, 403)

    @property
    def is_gone(self) -> bool:
        """404 Not Found or 410 Gone: nothing serves at that address (status ``gone``)."""
        return self.status in (404, 410)


class UnusableURL(TransportError):
    """A server URL that cannot be used as written: its message never quotes the URL, which may
    hold a password or a ``${VAR}`` value."""


class ProtocolError(TransportError):
    """The server broke the wire protocol or tripped one of our guards."""


def too_deep(exc: McpcostError) -> ProtocolError:
    """The protocol error for a server message past the JSON depth limit (``JSONTooDeep``)."""
    return ProtocolError(f"the server sent a message that is valid JSON but {exc}")


class RPCError(TransportError):
    """A JSON-RPC error answer to one of our requests."""

    def __init__(self, code: Any, message: Any, data: Any = None, *, method: str = "") -> None:
        text = message if isinstance(message, str) else ""
        super().__init__(f"server error {code}: {text}" + (f" (to {method})" if method else ""))
        self.code = code if isinstance(code, int) and not isinstance(code, bool) else None
        self.server_message = text
        self.data = data
        self.method = method
