"""The default transport factory: stdio for a command, http / sse / auto for a URL.

The HTTP transports (and ``requests`` behind them, ~0.1 s to import) are imported only when a
spec has a URL, so a stdio measurement spawns its server without paying for them.

``CountingOpener`` wraps a factory and counts what it has opened, so a caller that launches many
servers at once can hold back its own work until they are all under way: on a busy machine every
bit of our CPU spent before the last launch delays that launch.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from mcpcost.core.spec import ServerSpec
from mcpcost.transports.base import Transport, TransportFactory
from mcpcost.transports.stdio import spawn_stdio

if TYPE_CHECKING:
    from mcpcost.transports.oauth import RequestAuthorizer


def open_transport(spec: ServerSpec, timeout_s: float) -> Transport:
    """Open (launch or connect) the transport a spec asks for."""
    return open_authorized(spec, timeout_s, None)


def authorized_opener(authorizer: RequestAuthorizer) -> TransportFactory:
    """A transport factory whose HTTP transports sign requests with ``authorizer``."""
    return lambda spec, timeout_s: open_authorized(spec, timeout_s, authorizer)


def open_authorized(
    spec: ServerSpec, timeout_s: float, authorizer: RequestAuthorizer | None
) -> Transport:
    """``open_transport`` with an authorizer that signs HTTP requests and answers authorization
    challenges (see ``transports.oauth``)."""
    if spec.url is None:
        return spawn_stdio(spec)
    from mcpcost.transports.auto import AutoTransport
    from mcpcost.transports.http import StreamableHTTPTransport
    from mcpcost.transports.legacy_sse import LegacySSETransport

    url = spec.url
    headers = dict(spec.headers)
    auth = authorizer
    if spec.transport == "http":
        return StreamableHTTPTransport(url, headers=headers, timeout_s=timeout_s, authorizer=auth)
    if spec.transport == "sse":
        return LegacySSETransport(url, headers=headers, timeout_s=timeout_s, authorizer=auth)
    return AutoTransport(
        StreamableHTTPTransport(url, headers=headers, timeout_s=timeout_s, authorizer=auth),
        lambda: LegacySSETransport(url, headers=headers, timeout_s=timeout_s, authorizer=auth),
    )


class CountingOpener:
    """A transport factory that counts the transports it has opened or failed to open."""

    def __init__(self, factory: TransportFactory = open_transport) -> None:
        self._factory = factory
        self._opened = 0
        self._changed = threading.Condition()

    def __call__(self, spec: ServerSpec, timeout_s: float) -> Transport:
        try:
            return self._factory(spec, timeout_s)
        finally:
            with self._changed:
                self._opened += 1
                self._changed.notify_all()

    @property
    def opened(self) -> int:
        return self._opened

    def wait_for(self, count: int, timeout_s: float) -> bool:
        """Block until ``count`` opens have happened (True) or ``timeout_s`` passed (False)."""
        with self._changed:
            return self._changed.wait_for(lambda: self._opened >= count, timeout_s)
