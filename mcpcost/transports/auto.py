"""``auto`` for URLs: Streamable HTTP first, legacy HTTP+SSE when the endpoint clearly is not one.

The first POST decides: an answer (or a JSON-RPC error body) commits to Streamable HTTP; HTTP 400,
404 or 405 with a body that is not JSON-RPC means an older server, so the messages sent so far are
replayed over a legacy SSE transport on the same URL. Auth errors never trigger a fallback.
"""

from __future__ import annotations

from collections.abc import Callable

from mcpcost.transports.base import Diagnostics, Message, Transport
from mcpcost.transports.failures import HTTPStatusError

FALLBACK_STATUSES = frozenset({400, 404, 405})


def should_fall_back(exc: HTTPStatusError) -> bool:
    return exc.status in FALLBACK_STATUSES and not exc.jsonrpc_body


class AutoTransport:
    """Streamable HTTP with a one-time fallback to legacy SSE, decided by the first answer."""

    def __init__(self, primary: Transport, fallback: Callable[[], Transport]) -> None:
        self._current = primary
        self._fallback: Callable[[], Transport] | None = fallback
        self._sent: list[Message] = []
        self.fell_back = False

    def send(self, message: Message) -> None:
        if self._fallback is not None:
            self._sent.append(message)
        self._current.send(message)

    def receive(self, timeout_s: float) -> Message:
        try:
            message = self._current.receive(timeout_s)
        except HTTPStatusError as exc:
            if self._fallback is None or not should_fall_back(exc):
                raise
            self._switch()
            return self._current.receive(timeout_s)
        self._fallback = None
        self._sent.clear()
        return message

    def _switch(self) -> None:
        assert self._fallback is not None
        make, self._fallback = self._fallback, None
        self._current.close()
        self._current = make()
        self.fell_back = True
        for message in self._sent:
            self._current.send(message)
        self._sent.clear()

    def negotiated(self, protocol_version: str, *, modern: bool) -> None:
        self._current.negotiated(protocol_version, modern=modern)

    def close(self) -> None:
        self._current.close()

    @property
    def diagnostics(self) -> Diagnostics:
        return self._current.diagnostics
