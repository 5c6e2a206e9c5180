"""Shared pieces of the HTTP transports: header building, auth signals, body classification."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import requests
import urllib3

from mcpcost import __version__
from mcpcost.core.jsonvalue import parse_json
from mcpcost.errors import JSONSyntaxError
from mcpcost.transports.failures import HTTPStatusError, ProtocolError, TransportClosed

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
        except (urllib3.exceptions.HTTPError, requests.RequestException, OSError, ValueError,
                AttributeError) as exc:  # fmt: skip
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
