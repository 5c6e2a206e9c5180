"""Streamable HTTP: every message is a POST; the answer is JSON, an SSE stream, or 202.

Each request POST runs on a thread of its own (a kept one, ``runtime.workers``) and puts what it
gets (messages or a typed error) on one queue, so ``receive(timeout)`` bounds every wait;
notifications and replies are posted synchronously so the server sees them in order.
``Mcp-Session-Id`` from any response is echoed on later requests; after negotiation
``MCP-Protocol-Version`` is sent (and, for the 2026-07-28 era, ``Mcp-Method``). 401/403 become
HTTPStatusError carrying ``WWW-Authenticate`` and whether OAuth protected-resource metadata is
advertised. An error status whose body is JSON-RPC (a modern server's 400/404 with an error
object) is delivered as a message so the session can read the code.

Closing a session that has an ``Mcp-Session-Id`` (the legacy era) sends ``DELETE`` with that id,
as the spec asks clients to; any answer, 405 included, or none within ``DELETE_TIMEOUT_S`` is fine.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import requests

from mcpcost.core.jsonvalue import parse_json, stringify
from mcpcost.core.spec import TransportName
from mcpcost.errors import JSONSyntaxError, JSONTooDeep
from mcpcost.runtime.http_body import finish
from mcpcost.runtime.workers import start_on_kept_thread
from mcpcost.transports.base import Message
from mcpcost.transports.failures import (
    ProtocolError,
    TransportClosed,
    TransportTimeout,
    too_deep,
)
from mcpcost.transports.http_answers import parse_jsonrpc_body, read_answer, stream_answer
from mcpcost.transports.http_transport import (
    CHALLENGE_ROUNDS,
    EXCHANGE_FAILURES,
    HTTPTransportBase,
)
from mcpcost.transports.network_failures import request_failure
from mcpcost.transports.sse import SSEDecoder

DELETE_TIMEOUT_S = 2.0


class StreamableHTTPTransport(HTTPTransportBase):
    """MCP Streamable HTTP client transport (2025-03-26 onward, and the 2026-07-28 form)."""

    kind = TransportName.HTTP
    _session_id: str | None = None
    _modern = False

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
        start_on_kept_thread(partial(self._post, body, headers, is_request))

    def negotiated(self, protocol_version: str, *, modern: bool) -> None:
        self._protocol_version = protocol_version
        self._modern = modern

    @property
    def session_id(self) -> str | None:
        """The ``Mcp-Session-Id`` the server issued, if any."""
        return self._session_id

    # -- internals ------------------------------------------------------------------------
    def _before_close(self) -> None:
        if self._session_id is None or self._modern:
            return
        headers = self._base_headers({"Mcp-Session-Id": self._session_id})
        if self._authorizer is not None and (value := self._authorizer.authorization_header()):
            headers["Authorization"] = value
        if self._protocol_version is not None:
            headers["MCP-Protocol-Version"] = self._protocol_version
        limit = min(self._timeout, DELETE_TIMEOUT_S)
        try:
            finish(self._http.delete(self.url, headers=headers, timeout=(limit, limit)))
        except requests.RequestException:
            pass  # best effort: the server ends the session on its own

    def _headers(self, message: Message) -> dict[str, str]:
        headers = self._base_headers(
            {
                "Accept": "application/json, text/event-stream",
                "Content-Type": "application/json",
                "Accept-Encoding": "identity",
            }
        )
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
        except EXCHANGE_FAILURES as exc:
            self._queue.put(exc)
        except requests.RequestException as exc:
            if not self._closed:
                self._queue.put(request_failure(exc, self.url, self._timeouts()))

    def _exchange(self, body: bytes, headers: dict[str, str], is_request: bool) -> None:
        for round_ in range(CHALLENGE_ROUNDS):
            if not self._exchange_once(body, headers, is_request, round_):
                return

    def _exchange_once(
        self, body: bytes, headers: dict[str, str], is_request: bool, round_: int
    ) -> bool:
        """One POST; True when an authorization challenge was answered and it must go again."""
        sent = self._sign(headers)
        resp = self._http.post(
            self.url, data=body, headers=headers, stream=True, timeout=self._timeouts()
        )
        if not self._responses.add(resp):
            resp.close()
            return False
        try:
            self._seen_response(resp)
            sid = resp.headers.get("Mcp-Session-Id")
            if sid:
                self._session_id = sid
            if resp.status_code >= 400:
                payload = self._error_body(resp)
                if self._challenge_answered(resp, sent, round_):
                    return True
                messages = parse_jsonrpc_body(payload)
                if messages and resp.status_code not in (401, 403):
                    self._deliver(messages, len(payload))
                    return False
                raise self._status_error(resp, payload)
            if resp.status_code in (202, 204) or not is_request:
                return False
            ctype = resp.headers.get("Content-Type", "").split(";")[0].strip().lower()
            if ctype == "text/event-stream":
                self._read_sse(resp)
            else:
                payload = read_answer(resp, self._max_bytes, self._timeout)
                self._add_bytes(len(payload))
                try:
                    value: Any = parse_json(payload)
                except JSONTooDeep as exc:
                    raise too_deep(exc) from None
                except JSONSyntaxError:
                    raise ProtocolError(
                        f"server answered with {ctype or 'no content type'} that is not JSON"
                    ) from None
                items = value if isinstance(value, list) else [value]
                self._deliver([m for m in items if isinstance(m, dict)], 0)
            return False
        finally:
            self._responses.discard(resp)
            finish(resp)

    def _read_sse(self, resp: requests.Response) -> None:
        """The events of one POST's answer stream, within the transport's caps. A stream still
        open at the transport's timeout ends quietly: what it was to carry has either arrived
        or is the session's own timeout to report."""
        decoder = SSEDecoder(self._max_bytes)
        try:
            for chunk in stream_answer(resp, self._max_stream_bytes, self._timeout):
                self._add_bytes(len(chunk))
                for event in decoder.feed(chunk):
                    if event.event == "message":
                        self._message_event(event.data)
        except TransportTimeout:
            return
        for event in decoder.flush():
            if event.event == "message":
                self._message_event(event.data)

    def _deliver(self, messages: list[dict[str, Any]], size: int) -> None:
        self._add_bytes(size)
        for m in messages:
            self._queue.put(m)
