"""``HTTPTransportBase``, what the Streamable HTTP and legacy HTTP+SSE transports share: the HTTP
session and its ownership, the queue of incoming messages, the open streaming responses,
headers, time limits, auth-aware status errors, JSON-RPC from ``message`` events, and the
diagnostics snapshot.

A transport given an ``address_policy`` connects only to addresses it allows, redirects
included (``runtime.http_session``); with ``quote_bodies`` False the body of an error status
stays out of its errors, so out of every note (a URL from the world may lead to a service
whose pages are not ours to publish)."""

from __future__ import annotations

import queue
import threading
from collections.abc import Mapping
from typing import Any

import requests

from mcpcost.auth import RequestAuthorizer
from mcpcost.auth.authorization_failed import AuthorizationFailed
from mcpcost.core.jsonvalue import parse_json
from mcpcost.core.spec import TransportName
from mcpcost.errors import JSONSyntaxError, JSONTooDeep
from mcpcost.runtime.addresses import AddressPolicy
from mcpcost.transports.base import Diagnostics, Message
from mcpcost.transports.failures import (
    HTTPStatusError,
    ProtocolError,
    TransportClosed,
    TransportTimeout,
    too_deep,
)
from mcpcost.transports.http_answers import (
    MAX_BODY_BYTES,
    MAX_ERROR_BODY_BYTES,
    PROBE_TIMEOUT_S,
    STREAM_EVENTS,
    USER_AGENT,
    ResponseSet,
    read_answer,
    status_error,
)
from mcpcost.transports.inbox import take
from mcpcost.transports.origin import OriginBoundSession

Item = Message | Exception
CONNECT_TIMEOUT_CAP_S = 30.0
# A connect gives up before the capture's own deadline, so a peer that never accepts is
# reported as such ("waiting for a TCP connection to ...") rather than as a silent server.
CONNECT_TIMEOUT_SHARE = 0.8
CHALLENGE_ROUNDS = 5  # sends of one request while an authorizer answers 401/403 challenges
# what an exchange on a transport's own thread hands to the queue for the session to raise
EXCHANGE_FAILURES = (
    HTTPStatusError,
    ProtocolError,
    TransportClosed,
    TransportTimeout,
    AuthorizationFailed,
)


class HTTPTransportBase:
    """State and helpers common to the HTTP transports; subclasses add how messages travel."""

    kind = TransportName.HTTP
    sticky_errors = False  # True: after an error item every later receive fails the same way

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        timeout_s: float = 60.0,
        session: requests.Session | None = None,
        max_bytes: int = MAX_BODY_BYTES,
        authorizer: RequestAuthorizer | None = None,
        address_policy: AddressPolicy | None = None,
        quote_bodies: bool = True,
    ) -> None:
        self.url = url
        self._authorizer = authorizer
        self._user_headers = dict(headers or {})
        self._timeout = timeout_s
        self._quote_bodies = quote_bodies
        self._http = session or OriginBoundSession(self._user_headers, address_policy)
        self._own_http = session is None
        self._max_bytes = max_bytes  # a JSON answer, or one event of a stream
        self._max_stream_bytes = STREAM_EVENTS * max_bytes  # all the events of one stream
        self._queue: queue.Queue[Item] = queue.Queue()
        self._responses = ResponseSet()
        self._protocol_version: str | None = None
        self._bytes = 0
        self._last_status: int | None = None
        self._last_headers: dict[str, str] = {}
        self._lock = threading.Lock()
        self._closed = False
        self._opened()

    # -- Transport ------------------------------------------------------------------------
    def receive(self, timeout_s: float) -> Message:
        item = take(self._queue, timeout_s)
        if isinstance(item, Exception):
            if self.sticky_errors:
                self._queue.put(item)
            raise item
        return item

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._before_close()
        self._responses.close_all()
        self._after_close()
        if self._own_http:
            self._http.close()

    @property
    def diagnostics(self) -> Diagnostics:
        with self._lock:
            return Diagnostics(
                kind=self.kind,
                bytes_received=self._bytes,
                http_status=self._last_status,
                http_headers=dict(self._last_headers),
            )

    # -- hooks ----------------------------------------------------------------------------
    def _opened(self) -> None:
        """Runs once at the end of construction (a subclass sets up its own state here)."""

    def _before_close(self) -> None:
        """Runs once at close, while streams are still open."""

    def _after_close(self) -> None:
        """Runs once at close, after every open stream was cut."""

    # -- helpers --------------------------------------------------------------------------
    def _base_headers(self, ours: Mapping[str, str]) -> dict[str, str]:
        """User-Agent, then the user's headers, then ``ours`` (which win over the user's)."""
        return {"User-Agent": USER_AGENT, **self._user_headers, **ours}

    def _timeouts(self) -> tuple[float, float]:
        """(connect, read) limits for one HTTP call."""
        return min(self._timeout * CONNECT_TIMEOUT_SHARE, CONNECT_TIMEOUT_CAP_S), self._timeout

    def _sign(self, headers: dict[str, str]) -> str | None:
        """Put the authorizer's ``Authorization`` value (if any) on ``headers``; return it."""
        if self._authorizer is None:
            return None
        value = self._authorizer.authorization_header()
        if value is not None:
            headers["Authorization"] = value
        return value

    def _challenge_answered(self, resp: requests.Response, sent: str | None, round_: int) -> bool:
        """True when a 401/403 was answered with a new token and the request should go again."""
        if self._authorizer is None or resp.status_code not in (401, 403):
            return False
        if round_ + 1 >= CHALLENGE_ROUNDS:
            return False
        www = resp.headers.get("WWW-Authenticate")
        return self._authorizer.answer_challenge(resp.status_code, www, sent)

    def _status_error(self, resp: requests.Response, body: bytes) -> HTTPStatusError:
        return status_error(
            self._http,
            resp,
            body,
            min(PROBE_TIMEOUT_S, self._timeout),
            quote_body=self._quote_bodies,
        )

    def _error_body(self, resp: requests.Response) -> bytes:
        """The body of an error status, read within its own cap and the transport's timeout."""
        return read_answer(resp, MAX_ERROR_BODY_BYTES, self._timeout)

    def _seen_response(self, resp: requests.Response) -> None:
        with self._lock:
            self._last_status = resp.status_code
            self._last_headers = dict(resp.headers)

    def _add_bytes(self, n: int) -> None:
        with self._lock:
            self._bytes += n

    def _message_event(self, data: str) -> None:
        """Queue the JSON-RPC object(s) of a ``message`` event; other payloads are dropped."""
        if not data.strip():
            return
        try:
            value: Any = parse_json(data)
        except JSONTooDeep as exc:
            raise too_deep(exc) from None
        except JSONSyntaxError:
            return
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, dict):
                self._queue.put(item)
