"""Shared pieces of the HTTP transports: header building, auth signals, body classification,
and what a failed request says about the network (``request_failure``)."""

from __future__ import annotations

import contextlib
import socket
import ssl
import threading
from collections.abc import Iterator
from enum import StrEnum
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import requests
import urllib3

from mcpcost.core.jsonvalue import parse_json
from mcpcost.errors import JSONSyntaxError, TransportError
from mcpcost.transports.failures import (
    ConnectTimedOut,
    HTTPStatusError,
    ProtocolError,
    TransportClosed,
    TransportTimeout,
)
from mcpcost.version import __version__

USER_AGENT = f"mcp-context-cost/{__version__}"
MAX_BODY_BYTES = 64 * 1024 * 1024
PROBE_TIMEOUT_S = 5.0
_SNIPPET = 300


def well_known_urls(url: str) -> list[str]:
    """Where RFC 9728 protected-resource metadata may live for an MCP endpoint URL."""
    parts = urlsplit(url)
    base = "/.well-known/oauth-protected-resource"
    path = parts.path.rstrip("/")
    paths = [base + path, base] if path else [base]
    return [urlunsplit((parts.scheme, parts.netloc, p, "", "")) for p in paths]


def names_resource_metadata(www_authenticate: str | None) -> bool:
    return bool(www_authenticate) and "resource_metadata" in (www_authenticate or "").lower()


def probe_oauth_metadata(session: requests.Session, url: str, timeout_s: float) -> bool:
    """True when a protected-resource metadata document answers (200 with a JSON object)."""
    for candidate in well_known_urls(url):
        try:
            with session.get(candidate, timeout=timeout_s, allow_redirects=False) as resp:
                if resp.status_code != 200:
                    continue
                body = resp.content[:1_000_000]
        except requests.RequestException:
            continue
        try:
            doc = parse_json(body)
        except JSONSyntaxError:
            continue
        if isinstance(doc, dict) and ("resource" in doc or "authorization_servers" in doc):
            return True
    return False


def is_jsonrpc_message(value: Any) -> bool:
    return isinstance(value, dict) and value.get("jsonrpc") == "2.0"


def parse_jsonrpc_body(body: bytes) -> list[dict[str, Any]] | None:
    """The JSON-RPC messages of a JSON body (object or batch), or None if it is not JSON-RPC."""
    try:
        value = parse_json(body)
    except JSONSyntaxError:
        return None
    items = value if isinstance(value, list) else [value]
    if items and all(is_jsonrpc_message(m) for m in items):
        return [m for m in items if isinstance(m, dict)]
    return None


def status_error(
    session: requests.Session, resp: requests.Response, body: bytes, probe_timeout_s: float
) -> HTTPStatusError:
    """An HTTPStatusError for a response, with the auth signals checked for 401/403."""
    www = resp.headers.get("WWW-Authenticate")
    oauth = False
    if resp.status_code in (401, 403):
        oauth = names_resource_metadata(www) or probe_oauth_metadata(
            session, resp.url or "", probe_timeout_s
        )
    return HTTPStatusError(
        resp.status_code,
        url=resp.url or "",
        www_authenticate=www,
        oauth_metadata=oauth,
        body_snippet=body[:_SNIPPET].decode("utf-8", errors="replace"),
        jsonrpc_body=parse_jsonrpc_body(body) is not None,
    )


def read_body(resp: requests.Response, limit: int = MAX_BODY_BYTES) -> bytes:
    chunks: list[bytes] = []
    size = 0
    for chunk in resp.iter_content(1 << 16):
        size += len(chunk)
        if size > limit:
            raise ProtocolError(f"server sent a response larger than {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def iter_stream(resp: requests.Response) -> Iterator[bytes]:
    """Raw chunks of a streaming response as they arrive (no waiting for a full buffer).

    Any failure of the underlying connection (cut, reset, read timeout) is a TransportClosed.
    """
    raw: Any = resp.raw
    while True:
        try:
            chunk = raw.read1(1 << 16) if hasattr(raw, "read1") else raw.read(1 << 16)
        except (
            urllib3.exceptions.HTTPError,
            requests.RequestException,
            OSError,
            ValueError,
            AttributeError,
        ) as exc:
            raise TransportClosed(f"the response stream was cut ({type(exc).__name__})") from None
        if not chunk:
            return
        yield chunk


def cut_response(resp: requests.Response) -> None:
    """Close a streaming response from another thread, waking a reader blocked on it."""
    raw: Any = resp.raw
    conn = getattr(raw, "_connection", None)
    sock = getattr(conn, "sock", None)
    if sock is None:
        fp = getattr(getattr(raw, "_fp", None), "fp", None)
        sock = getattr(getattr(fp, "raw", None), "_sock", None)
    if isinstance(sock, socket.socket):
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(Exception):
        resp.close()


class ResponseSet:
    """Open streaming responses, so ``close()`` can cut them from another thread."""

    def __init__(self) -> None:
        self._open: set[requests.Response] = set()
        self._lock = threading.Lock()
        self.closed = False

    def add(self, resp: requests.Response) -> bool:
        with self._lock:
            if self.closed:
                return False
            self._open.add(resp)
            return True

    def discard(self, resp: requests.Response) -> None:
        with self._lock:
            self._open.discard(resp)

    def close_all(self) -> None:
        with self._lock:
            self.closed = True
            items = list(self._open)
            self._open.clear()
        for resp in items:
            cut_response(resp)


class NetworkFailure(StrEnum):
    """What went wrong below HTTP when a request got no answer."""

    CONNECTION_REFUSED = "connection refused"
    NAME_NOT_RESOLVED = "name not resolved"
    TLS_VERIFICATION = "TLS verification failed"
    TLS_HANDSHAKE = "TLS handshake failed"
    PROXY = "proxy failed"
    CONNECT_TIMEOUT = "timed out connecting"
    READ_TIMEOUT = "timed out reading"
    CONNECTION_LOST = "connection failed"


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and what it wraps: ``__cause__``/``__context__``, urllib3 ``reason``, ``args``."""
    seen: set[int] = set()
    todo: list[BaseException] = [exc]
    while todo:
        cur = todo.pop(0)
        if id(cur) in seen:
            continue
        seen.add(id(cur))
        yield cur
        for nxt in (cur.__cause__, cur.__context__, getattr(cur, "reason", None), *cur.args):
            if isinstance(nxt, BaseException):
                todo.append(nxt)


def _first(exc: BaseException, kind: type[BaseException]) -> Any:
    return next((c for c in _causes(exc) if isinstance(c, kind)), None)


def _endpoint(url: str) -> str:
    """host:port of a URL, without credentials, path or query."""
    parts = urlsplit(url)
    host = parts.hostname or "?"
    if ":" in host:
        host = f"[{host}]"
    port = parts.port or (443 if parts.scheme in ("https", "wss") else 80)
    return f"{host}:{port}"


def _proxy_for(url: str) -> str | None:
    """host:port of the proxy the environment selects for ``url`` (never its credentials)."""
    try:
        proxies = requests.utils.get_environ_proxies(url)
    except Exception:  # a malformed proxy setting: say nothing rather than guess
        return None
    scheme = urlsplit(url).scheme
    proxy = proxies.get(scheme) or proxies.get("all")
    return _endpoint(proxy if "://" in proxy else f"http://{proxy}") if proxy else None


def _certificate_problem(err: ssl.SSLCertVerificationError) -> str:
    message = (err.verify_message or "").strip()
    if message.startswith(("Hostname mismatch", "IP address mismatch")):
        return "hostname mismatch (" + message.split(",", 1)[-1].strip().rstrip(".") + ")"
    return message or (err.reason or "certificate rejected")


def classify_request_failure(
    exc: requests.RequestException, url: str
) -> tuple[NetworkFailure, str]:
    """The failure kind and one sentence saying what failed, for a request to ``url``."""
    where = _endpoint(url)
    host = urlsplit(url).hostname or "?"
    if isinstance(exc, requests.exceptions.ProxyError):
        proxy = _proxy_for(url)
        what = f"the proxy {proxy}" if proxy else "the configured proxy"
        refused = _first(exc, ConnectionRefusedError) is not None
        resolved = _first(exc, socket.gaierror) is None
        if refused:
            return NetworkFailure.PROXY, f"{what} refused the connection (reaching {where})"
        if not resolved:
            return NetworkFailure.PROXY, f"{what} could not be resolved (reaching {where})"
        return NetworkFailure.PROXY, f"{what} failed while reaching {where}"
    if isinstance(exc, requests.exceptions.SSLError):
        cert = _first(exc, ssl.SSLCertVerificationError)
        if cert is not None:
            return (
                NetworkFailure.TLS_VERIFICATION,
                f"TLS certificate verification failed for {where}: {_certificate_problem(cert)}",
            )
        tls = _first(exc, ssl.SSLError)
        reason = (getattr(tls, "reason", None) or type(tls).__name__) if tls else "unknown"
        if reason == "WRONG_VERSION_NUMBER":
            reason += " (the server does not speak TLS there: plain http?)"
        return NetworkFailure.TLS_HANDSHAKE, f"TLS handshake with {where} failed: {reason}"
    if isinstance(exc, requests.exceptions.ConnectTimeout):
        return NetworkFailure.CONNECT_TIMEOUT, f"timed out connecting to {where}"
    if isinstance(exc, requests.exceptions.Timeout):
        return NetworkFailure.READ_TIMEOUT, f"a response from {where}"
    if _first(exc, socket.gaierror) is not None or any(
        type(c).__name__ == "NameResolutionError" for c in _causes(exc)
    ):
        gai = _first(exc, socket.gaierror)
        detail = f" ({gai.strerror})" if gai is not None and gai.strerror else ""
        return (
            NetworkFailure.NAME_NOT_RESOLVED,
            f"the host name {host} could not be resolved{detail}",
        )
    if _first(exc, ConnectionRefusedError) is not None:
        return (
            NetworkFailure.CONNECTION_REFUSED,
            f"connection refused by {where} (nothing accepts connections there)",
        )
    os_error = next(
        (c for c in _causes(exc) if isinstance(c, OSError) and c.errno is not None), None
    )
    detail = (os_error.strerror if os_error is not None else None) or type(exc).__name__
    return NetworkFailure.CONNECTION_LOST, f"the connection to {where} failed: {detail}"


def request_failure(
    exc: requests.RequestException, url: str, timeouts: tuple[float, float], prefix: str = ""
) -> TransportError:
    """The typed transport error for a request to ``url`` that got no HTTP answer.

    ``timeouts`` are the request's (connect, read) limits. A connect that timed out is a
    ``ConnectTimedOut`` and a slow answer a ``TransportTimeout`` (both status ``timeout``);
    everything else a ``TransportClosed`` (status ``startup-failure``) whose reason says what
    failed.
    """
    kind, sentence = classify_request_failure(exc, url)
    if kind is NetworkFailure.CONNECT_TIMEOUT:
        return ConnectTimedOut(f"{sentence} (no connection within {int(timeouts[0] * 1000)}ms)")
    if kind is NetworkFailure.READ_TIMEOUT:
        return TransportTimeout(int(timeouts[1] * 1000), sentence)
    return TransportClosed(prefix + sentence)
