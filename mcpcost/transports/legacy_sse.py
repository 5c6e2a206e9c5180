"""Legacy HTTP+SSE (2024-11-05): GET an event stream, POST messages to the ``endpoint`` it names.

A daemon thread holds the GET stream open for the life of the transport: the first ``endpoint``
event gives the POST URL (resolved against the stream URL), ``message`` events carry the server's
JSON-RPC messages. ``send`` waits for the endpoint (bounded by the transport's timeout) and POSTs;
answers arrive on the stream, so ``receive`` reads the shared queue. Once the stream has ended,
every later ``receive`` fails the same way.
"""

from __future__ import annotations

import threading
import time
from urllib.parse import urljoin

import requests

from mcpcost.core.jsonvalue import stringify
from mcpcost.transports.base import Message
from mcpcost.transports.failures import (
    HTTPStatusError,
    ProtocolError,
    TransportClosed,
    TransportTimeout,
)
from mcpcost.transports.http_base import HTTPTransportBase
from mcpcost.transports.http_common import iter_stream, read_body, request_failure
from mcpcost.transports.sse import SSEDecoder


class LegacySSETransport(HTTPTransportBase):
    """The deprecated HTTP+SSE transport: one GET stream plus POSTs to its endpoint."""

    kind = "sse"
    sticky_errors = True

    def _opened(self) -> None:
        self._endpoint: str | None = None
        self._endpoint_ready = threading.Event()
        self._stream_error: Exception | None = None
        self._thread = threading.Thread(target=self._listen, daemon=True, name="mcp-sse-stream")
        self._thread.start()

    # -- Transport ------------------------------------------------------------------------
    def send(self, message: Message) -> None:
        if self._closed:
            raise TransportClosed("transport is closed")
        endpoint = self._wait_endpoint()
        headers = self._base_headers({
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        })  # fmt: skip
        if self._protocol_version is not None:
            headers["MCP-Protocol-Version"] = self._protocol_version
        try:
            with self._http.post(
                endpoint,
                data=stringify(message).encode("utf-8"),
                headers=headers,
                timeout=self._timeouts(),
            ) as resp:
                with self._lock:
                    self._last_status = resp.status_code
                if resp.status_code >= 400:
                    raise self._status_error(resp, read_body(resp, 1 << 20))
        except requests.RequestException as exc:
            raise request_failure(
                exc, endpoint, self._timeouts(), "POST to the SSE endpoint failed: "
            ) from None

    def negotiated(self, protocol_version: str, *, modern: bool) -> None:
        self._protocol_version = protocol_version

    # -- the stream thread ----------------------------------------------------------------
    def _after_close(self) -> None:
        self._endpoint_ready.set()
        self._thread.join(timeout=1.0)

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
            error = request_failure(exc, self.url, self._timeouts())
        self._stream_error = error
        self._endpoint_ready.set()
        if not self._closed:
            self._queue.put(error)

    def _stream(self) -> Exception:
        headers = self._base_headers({
            "Accept": "text/event-stream",
            "Accept-Encoding": "identity",
            "Cache-Control": "no-cache",
        })  # fmt: skip
        resp = self._http.get(self.url, headers=headers, stream=True, timeout=self._timeouts())
        if not self._responses.add(resp):
            resp.close()
            return TransportClosed("transport is closed")
        try:
            self._seen_response(resp)
            if resp.status_code >= 400:
                return self._status_error(resp, read_body(resp, 1 << 20))
            ctype = resp.headers.get("Content-Type", "").split(";")[0].strip().lower()
            if ctype != "text/event-stream":
                return ProtocolError(f"GET {self.url} answered {ctype or 'no content type'}, "
                                     "not an event stream")  # fmt: skip
            decoder = SSEDecoder()
            for chunk in iter_stream(resp):
                self._add_bytes(len(chunk))
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
        elif name == "message":
            self._message_event(data)
