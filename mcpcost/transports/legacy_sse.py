"""Legacy HTTP+SSE (2024-11-05): GET an event stream, POST messages to the ``endpoint`` it names.

A daemon thread holds the GET stream open for the life of the transport: the first ``endpoint``
event gives the POST URL (resolved against the stream URL), ``message`` events carry the server's
JSON-RPC messages. ``send`` waits for the endpoint (bounded by the transport's timeout) and POSTs;
answers arrive on the stream, so ``receive`` reads the shared queue.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import urljoin

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
    read_body,
    status_error,
)
from mcpcost.transports.sse import SSEDecoder

_Item = Message | Exception


class LegacySSETransport:
    """The deprecated HTTP+SSE transport: one GET stream plus POSTs to its endpoint."""

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
        self._endpoint: str | None = None
        self._endpoint_ready = threading.Event()
        self._stream_error: Exception | None = None
        self._bytes = 0
        self._last_status: int | None = None
        self._last_headers: dict[str, str] = {}
        self._protocol_version: str | None = None
        self._closed = False
        self._thread = threading.Thread(target=self._listen, daemon=True, name="mcp-sse-stream")
        self._thread.start()

    # -- Transport ------------------------------------------------------------------------
    def send(self, message: Message) -> None:
        if self._closed:
            raise TransportClosed("transport is closed")
        endpoint = self._wait_endpoint()
        headers = {
            "User-Agent": USER_AGENT,
            **self._user_headers,
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        if self._protocol_version is not None:
            headers["MCP-Protocol-Version"] = self._protocol_version
        try:
            with self._http.post(
                endpoint,
                data=stringify(message).encode("utf-8"),
                headers=headers,
                timeout=(min(self._timeout, 30.0), self._timeout),
            ) as resp:
                self._last_status = resp.status_code
                if resp.status_code >= 400:
                    body = read_body(resp, 1 << 20)
                    raise status_error(self._http, resp, body, min(PROBE_TIMEOUT_S, self._timeout))
        except requests.RequestException as exc:
            raise TransportClosed(
                f"POST to the SSE endpoint failed: {type(exc).__name__}"
            ) from None

    def receive(self, timeout_s: float) -> Message:
        started = time.monotonic()
        try:
            item = self._queue.get(timeout=max(timeout_s, 0.0))
        except queue.Empty:
            waited = int((time.monotonic() - started) * 1000)
            raise TransportTimeout(waited, "a message from the server") from None
        if isinstance(item, Exception):
            self._queue.put(item)  # the stream is over: every later receive fails the same way
            raise item
        return item

    def negotiated(self, protocol_version: str, *, modern: bool) -> None:
        self._protocol_version = protocol_version

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._responses.close_all()
        self._endpoint_ready.set()
        self._thread.join(timeout=1.0)
        if self._own_http:
            self._http.close()

    @property
    def diagnostics(self) -> Diagnostics:
        return Diagnostics(
            kind="sse",
            bytes_received=self._bytes,
            http_status=self._last_status,
            http_headers=dict(self._last_headers),
        )

    # -- the stream thread ----------------------------------------------------------------
    def _wait_endpoint(self) -> str:
        started = time.monotonic()
        if not self._endpoint_ready.wait(self._timeout):
            waited = int((time.monotonic() - started) * 1000)
            raise TransportTimeout(waited, "the SSE endpoint event")
        if self._endpoint is None:
            raise self._stream_error or TransportClosed("SSE stream ended before an endpoint")
        return self._endpoint

    def _listen(self) -> None:
        error: Exception
        try:
            error = self._stream()
        except (HTTPStatusError, ProtocolError, TransportClosed) as exc:
            error = exc
        except requests.RequestException as exc:
            error = TransportClosed(f"SSE stream from {self.url} failed: {type(exc).__name__}")
        self._stream_error = error
        self._endpoint_ready.set()
        if not self._closed:
            self._queue.put(error)

    def _stream(self) -> Exception:
        headers = {
            "User-Agent": USER_AGENT,
            **self._user_headers,
            "Accept": "text/event-stream",
            "Accept-Encoding": "identity",
            "Cache-Control": "no-cache",
        }
        resp = self._http.get(
            self.url,
            headers=headers,
            stream=True,
            timeout=(min(self._timeout, 30.0), self._timeout),
        )
        if not self._responses.add(resp):
            resp.close()
            return TransportClosed("transport is closed")
        try:
            self._last_status = resp.status_code
            self._last_headers = dict(resp.headers)
            if resp.status_code >= 400:
                body = read_body(resp, 1 << 20)
                return status_error(self._http, resp, body, min(PROBE_TIMEOUT_S, self._timeout))
            ctype = resp.headers.get("Content-Type", "").split(";")[0].strip().lower()
            if ctype != "text/event-stream":
                return ProtocolError(f"GET {self.url} answered {ctype or 'no content type'}, "
                                     "not an event stream")  # fmt: skip
            decoder = SSEDecoder()
            for chunk in iter_stream(resp):
                self._bytes += len(chunk)
                if decoder.buffered > self._max_bytes:
                    return ProtocolError(
                        f"server sent an event larger than {self._max_bytes} bytes"
                    )
                for event in decoder.feed(chunk):
                    self._event(event.event, event.data)
            return TransportClosed("the server closed the SSE stream")
        except (requests.RequestException, OSError, ValueError, AttributeError):
            return TransportClosed("the SSE stream was cut")
        finally:
            self._responses.discard(resp)
            resp.close()

    def _event(self, name: str, data: str) -> None:
        if name == "endpoint":
            if self._endpoint is None:
                self._endpoint = urljoin(self.url, data.strip())
                self._endpoint_ready.set()
            return
        if name != "message" or not data.strip():
            return
        try:
            value: Any = parse_json(data)
        except JSONSyntaxError:
            return
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, dict):
                self._queue.put(item)
