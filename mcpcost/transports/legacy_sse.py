"""Legacy HTTP+SSE (2024-11-05): GET an event stream, POST messages to the ``endpoint`` it names.

A daemon thread holds the GET stream open for the life of the transport: the first ``endpoint``
event gives the POST URL (resolved against the stream URL), ``message`` events carry the server's
JSON-RPC messages. ``send`` waits for the endpoint (bounded by the transport's timeout) and POSTs;
answers arrive on the stream, so ``receive`` reads the shared queue. Once the stream has ended,
every later ``receive`` fails the same way. An ``endpoint`` on another origin (scheme, host,
port) than the stream's is refused: the messages and the user's headers would go to a server
the user never named.
"""

from __future__ import annotations

import threading
import time
from urllib.parse import urljoin

import requests

from mcpcost.core.jsonvalue import stringify
from mcpcost.core.spec import TransportName
from mcpcost.transports.base import Message
from mcpcost.transports.failures import (
    HTTPStatusError,
    ProtocolError,
    TransportClosed,
    TransportTimeout,
)
from mcpcost.transports.http_answers import stream_answer
from mcpcost.transports.http_transport import (
    CHALLENGE_ROUNDS,
    EXCHANGE_FAILURES,
    HTTPTransportBase,
)
from mcpcost.transports.network_failures import request_failure
from mcpcost.transports.origin import origin
from mcpcost.transports.sse import SSEDecoder


class _Challenged(TransportClosed):
    """The stream's GET met a challenge that was answered: open it again with the new token."""

    def __init__(self, status_error: HTTPStatusError) -> None:
        super().__init__("authorization renewed")
        self.status_error = status_error


class LegacySSETransport(HTTPTransportBase):
    """The deprecated HTTP+SSE transport: one GET stream plus POSTs to its endpoint."""

    kind = TransportName.SSE
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
        headers = self._base_headers(
            {
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
            }
        )
        if self._protocol_version is not None:
            headers["MCP-Protocol-Version"] = self._protocol_version
        data = stringify(message).encode("utf-8")
        try:
            for round_ in range(CHALLENGE_ROUNDS):
                sent = self._sign(headers)
                with self._http.post(
                    endpoint, data=data, headers=headers, timeout=self._timeouts()
                ) as resp:
                    with self._lock:
                        self._last_status = resp.status_code
                    if resp.status_code >= 400:
                        body = self._error_body(resp)
                        if self._challenge_answered(resp, sent, round_):
                            continue
                        raise self._status_error(resp, body)
                    return
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
            round_ = 0
            while isinstance(error, _Challenged) and round_ + 1 < CHALLENGE_ROUNDS:
                round_ += 1
                error = self._stream(round_)
            if isinstance(error, _Challenged):
                error = error.status_error
        except EXCHANGE_FAILURES as exc:
            error = exc
        except requests.RequestException as exc:
            error = request_failure(exc, self.url, self._timeouts())
        if self._stream_error is None:  # a refused endpoint stays the reason
            self._stream_error = error
        self._endpoint_ready.set()
        if not self._closed:
            self._queue.put(self._stream_error)

    def _stream(self, round_: int = 0) -> Exception:
        headers = self._base_headers(
            {
                "Accept": "text/event-stream",
                "Accept-Encoding": "identity",
                "Cache-Control": "no-cache",
            }
        )
        sent = self._sign(headers)
        resp = self._http.get(self.url, headers=headers, stream=True, timeout=self._timeouts())
        if not self._responses.add(resp):
            resp.close()
            return TransportClosed("transport is closed")
        try:
            self._seen_response(resp)
            if resp.status_code >= 400:
                body = self._error_body(resp)
                if self._challenge_answered(resp, sent, round_):
                    return _Challenged(self._status_error(resp, body))
                return self._status_error(resp, body)
            ctype = resp.headers.get("Content-Type", "").split(";")[0].strip().lower()
            if ctype != "text/event-stream":
                return ProtocolError(
                    f"GET {self.url} answered {ctype or 'no content type'}, not an event stream"
                )
            # the stream lives until the transport is closed (the capture's deadline does it);
            # what it may hold is capped per event and in total
            decoder = SSEDecoder(self._max_bytes)
            for chunk in stream_answer(resp, self._max_stream_bytes, None):
                self._add_bytes(len(chunk))
                for event in decoder.feed(chunk):
                    self._event(event.event, event.data)
                if self._stream_error is not None:
                    return self._stream_error
            return TransportClosed("the server closed the SSE stream")
        except (requests.RequestException, OSError, ValueError, AttributeError):
            return TransportClosed("the SSE stream was cut")
        finally:
            self._responses.discard(resp)
            resp.close()

    def _event(self, name: str, data: str) -> None:
        if name == "endpoint":
            if self._endpoint is None and self._stream_error is None:
                endpoint = urljoin(self.url, data.strip())
                if origin(endpoint) != origin(self.url):
                    # our messages (and headers) would go to a server the user never named
                    self._stream_error = ProtocolError(
                        "the SSE endpoint event names another origin than the stream's: refused"
                    )
                else:
                    self._endpoint = endpoint
                self._endpoint_ready.set()
        elif name == "message":
            self._message_event(data)
