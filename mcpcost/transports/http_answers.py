"""What an HTTP answer says, read within bounds: the body read as a transport would
(``read_answer``, ``stream_answer``: ``runtime.http_body`` with its failures turned into
transport failures), the auth signals of a 401/403 (``status_error``, ``probe_oauth_metadata``),
JSON-RPC in an error body, and the set of open streaming responses a transport can cut."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import requests

from mcpcost.core.jsonvalue import parse_json
from mcpcost.errors import JSONSyntaxError, TransportError
from mcpcost.runtime.http_body import (
    BodyCut,
    BodyReadFailed,
    BodyTooLarge,
    ReadDeadlinePassed,
    ReadLimits,
    body_chunks,
    cut,
)
from mcpcost.transports.base import MAX_CAPTURE_BYTES
from mcpcost.transports.failures import (
    HTTPStatusError,
    ProtocolError,
    TransportClosed,
    TransportTimeout,
)
from mcpcost.version import __version__

USER_AGENT = f"mcp-context-cost/{__version__}"
MAX_BODY_BYTES = MAX_CAPTURE_BYTES  # one answer, decoded: a JSON body, or one event of a stream
STREAM_EVENTS = 4  # an event stream may carry this many times MAX_BODY_BYTES in all
MAX_ERROR_BODY_BYTES = 1 << 20  # the body of an error status
MAX_METADATA_BYTES = 1 << 20  # a protected-resource metadata document
PROBE_TIMEOUT_S = 5.0
_SNIPPET = 300


def answer_failure(exc: BodyReadFailed) -> TransportError:
    """The transport failure for a body that could not be read within its limits."""
    if isinstance(exc, BodyTooLarge):
        return ProtocolError(f"server sent a response larger than {exc.limit} bytes")
    if isinstance(exc, ReadDeadlinePassed):
        return TransportTimeout(int(exc.seconds * 1000), "the rest of the response body")
    if isinstance(exc, BodyCut):
        return TransportClosed(f"the response stream was cut ({exc.cause})")
    return ProtocolError(str(exc))


def read_answer(resp: requests.Response, max_bytes: int, seconds: float) -> bytes:
    """A whole answer body (decoded), or the transport failure saying why it could not be."""
    try:
        return b"".join(body_chunks(resp, ReadLimits(max_bytes, seconds)))
    except BodyReadFailed as exc:
        raise answer_failure(exc) from None


def stream_answer(
    resp: requests.Response, max_bytes: int, seconds: float | None
) -> Iterator[bytes]:
    """An answer's decoded bytes as they arrive (no waiting for a full buffer). ``seconds``
    None: a stream that lives until its transport cuts it (``ResponseSet.close_all``)."""
    try:
        yield from body_chunks(resp, ReadLimits(max_bytes, seconds))
    except BodyReadFailed as exc:
        raise answer_failure(exc) from None


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
    """True when a protected-resource metadata document answers (200 with a JSON object).
    Each candidate is read within ``MAX_METADATA_BYTES`` and ``timeout_s``."""
    for candidate in well_known_urls(url):
        try:
            with session.get(
                candidate, timeout=timeout_s, allow_redirects=False, stream=True
            ) as resp:
                if resp.status_code != 200:
                    continue
                body = b"".join(body_chunks(resp, ReadLimits(MAX_METADATA_BYTES, timeout_s)))
        except (requests.RequestException, BodyReadFailed):
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
    session: requests.Session,
    resp: requests.Response,
    body: bytes,
    probe_timeout_s: float,
    *,
    quote_body: bool = True,
) -> HTTPStatusError:
    """An HTTPStatusError for a response, with the auth signals checked for 401/403.
    ``quote_body`` False keeps the body out of the error (and so out of every note)."""
    www = resp.headers.get("WWW-Authenticate")
    oauth = False
    if resp.status_code in (401, 403):
        oauth = names_resource_metadata(www) or probe_oauth_metadata(
            session, resp.url or "", probe_timeout_s
        )
    html = is_html(resp.headers.get("Content-Type", ""), body)
    quoted = quote_body and not html
    snippet = body[:_SNIPPET].decode("utf-8", errors="replace") if quoted else ""
    return HTTPStatusError(
        resp.status_code,
        url=resp.url or "",
        www_authenticate=www,
        oauth_metadata=oauth,
        body_snippet=snippet,
        jsonrpc_body=parse_jsonrpc_body(body) is not None,
        body_size=len(body),
        html_body=html,
    )


def is_html(content_type: str, body: bytes) -> bool:
    """Whether an error body is an HTML page (by its type, or by how it starts): a proxy's or a
    web server's error page says nothing a note can use, so it is summarised, not quoted."""
    if content_type.split(";")[0].strip().lower() in ("text/html", "application/xhtml+xml"):
        return True
    head = body[:512].lstrip().lower()
    return head.startswith((b"<!doctype html", b"<html", b"<head", b"<body"))


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
            cut(resp)
