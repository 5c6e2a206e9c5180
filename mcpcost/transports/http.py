"""Streamable HTTP: every message is a POST; the answer is JSON, an SSE stream, or 202.

Each request POST runs on its own daemon thread and puts what it gets (messages or a typed error)
on one queue, so ``receive(timeout)`` bounds every wait; notifications and replies are posted
synchronously so the server sees them in order. ``Mcp-Session-Id`` from any response is echoed
on later requests; after negotiation ``MCP-Protocol-Version`` is sent (and, for the 2026-07-28
era, ``Mcp-Method``). 401/403 become HTTPStatusError carrying ``WWW-Authenticate`` and whether
OAuth protected-resource metadata is advertised. An error status whose body is JSON-RPC (a modern
server's 400/404 with an error object) is delivered as a message so the session can read the code.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Mapping
from typing import Any

import requests

from mcpcost.core.jsonvalue import parse_json, stringify
from mcpcost.errors import JSONSyntaxError
from mcpcost.transports.base import Diagnostics, Message
from mcpcost.transports.errors import (
    HTTPStatusError,
    ProtocolError,
    TransportClosed,
    TransportTimeout,
)
from mcpcost.transports.http_common import (
    MAX_BODY_BYTES,
    PROBE_TIMEOUT_S,
    USER_AGENT,
    ResponseSet,
    iter_stream,
    parse_jsonrpc_body,
    read_body,
    status_error,
)
from mcpcost.transports.sse import SSEDecoder

_Item = Message | Exception


class StreamableHTTPTransport:
    """MCP Streamable HTTP client transport (2025-03-26 onward, and the 2026-07-28 form)."""

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        timeout_s: float = 60.0,
        session: requests.Session | None = None,
        max_bytes: int = MAX_BODY_BYTES,
    ) -> None:
        self.url = url
        self._user_headers = dict(headers or {})
        self._timeout = timeout_s
        self._http = session or requests.Session()
        self._own_http = session is None
        self._max_bytes = max_bytes
        self._queue: queue.Queue[_Item] = queue.Queue()
        self._responses = ResponseSet()
        self._session_id: str | None = None
        self._protocol_version: str | None = None
        self._modern = False
        self._bytes = 0
        self._last_status: int | None = None
        self._last_headers: dict[str, str] = {}
        self._lock = threading.Lock()
        self._closed = False

    # -- Transport ------------------------------------------------------------------------
    def send(self, message: Message) -> None:
        if self._closed:
            raise TransportClosed("transport is closed")
        headers = self._headers(message)
        body = stringify(message).encode("utf-8")
        is_request = "id" in message and "method" in message
        if not is_request:
            # Notifications and our replies are posted before send() returns, so the server
            # sees them in order (initialized before tools/list); they are answered with 202.
            self._post(body, headers, is_request)
            return
        worker = threading.Thread(
            target=self._post, args=(body, headers, is_request), daemon=True, name="mcp-http-post"
        )
        worker.start()

    def receive(self, timeout_s: float) -> Message:
        started = time.monotonic()
        try:
            item = self._queue.get(timeout=max(timeout_s, 0.0))
        except queue.Empty:
            waited = int((time.monotonic() - started) * 1000)
            raise TransportTimeout(waited, "a message from the server") from None
        if isinstance(item, Exception):
            raise item
        return item

    def negotiated(self, protocol_version: str, *, modern: bool) -> None:
        self._protocol_version = protocol_version
        self._modern = modern

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._responses.close_all()
        if self._own_http:
            self._http.close()

    @property
    def diagnostics(self) -> Diagnostics:
        with self._lock:
            return Diagnostics(
                kind="http",
                bytes_received=self._bytes,
                http_status=self._last_status,
                http_headers=dict(self._last_headers),
            )

    # -- internals ------------------------------------------------------------------------
    def _headers(self, message: Message) -> dict[str, str]:
        headers = {
            "User-Agent": USER_AGENT,
            **self._user_headers,
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            "Accept-Encoding": "identity",
        }
        if self._session_id is not None:
            headers["Mcp-Session-Id"] = self._session_id
        if self._protocol_version is not None:
            headers["MCP-Protocol-Version"] = self._protocol_version
        method = message.get("method")
        if self._modern and isinstance(method, str):
            headers["Mcp-Method"] = method
        return headers

    def _post(self, body: bytes, headers: dict[str, str], is_request: bool) -> None:
        try:
            self._exchange(body, headers, is_request)
        except (HTTPStatusError, ProtocolError, TransportClosed) as exc:
            self._queue.put(exc)
        except requests.RequestException as exc:
            if not self._closed:
                self._queue.put(
                    TransportClosed(f"HTTP request to {self.url} failed: {type(exc).__name__}")
                )

    def _exchange(self, body: bytes, headers: dict[str, str], is_request: bool) -> None:
        connect = min(self._timeout, 30.0)
        resp = self._http.post(
            self.url, data=body, headers=headers, stream=True, timeout=(connect, self._timeout)
        )
        if not self._responses.add(resp):
            resp.close()
            return
        try:
            with self._lock:
                self._last_status = resp.status_code
                self._last_headers = dict(resp.headers)
            sid = resp.headers.get("Mcp-Session-Id")
            if sid:
                self._session_id = sid
            if resp.status_code >= 400:
                payload = read_body(resp, 1 << 20)
                messages = parse_jsonrpc_body(payload)
                if messages and resp.status_code not in (401, 403):
                    self._deliver(messages, len(payload))
                    return
                raise status_error(self._http, resp, payload, min(PROBE_TIMEOUT_S, self._timeout))
            if resp.status_code in (202, 204) or not is_request:
                return
            ctype = resp.headers.get("Content-Type", "").split(";")[0].strip().lower()
            if ctype == "text/event-stream":
                self._read_sse(resp)
            else:
                payload = read_body(resp, self._max_bytes)
                self._add_bytes(len(payload))
                try:
                    value: Any = parse_json(payload)
                except JSONSyntaxError:
                    raise ProtocolError(
                        f"server answered with {ctype or 'no content type'} that is not JSON"
                    ) from None
                items = value if isinstance(value, list) else [value]
                self._deliver([m for m in items if isinstance(m, dict)], 0)
        finally:
            self._responses.discard(resp)
            resp.close()

    def _read_sse(self, resp: requests.Response) -> None:
        decoder = SSEDecoder()
        for chunk in iter_stream(resp):
            self._add_bytes(len(chunk))
            if decoder.buffered > self._max_bytes:
                raise ProtocolError(f"server sent an event larger than {self._max_bytes} bytes")
            for event in decoder.feed(chunk):
                self._event(event.event, event.data)
        for event in decoder.flush():
            self._event(event.event, event.data)

    def _event(self, name: str, data: str) -> None:
        if name != "message" or not data.strip():
            return
        try:
            value: Any = parse_json(data)
        except JSONSyntaxError:
            return
        items = value if isinstance(value, list) else [value]
        self._deliver([m for m in items if isinstance(m, dict)], 0)

    def _deliver(self, messages: list[dict[str, Any]], size: int) -> None:
        self._add_bytes(size)
        for m in messages:
            self._queue.put(m)

    def _add_bytes(self, n: int) -> None:
        with self._lock:
            self._bytes += n
