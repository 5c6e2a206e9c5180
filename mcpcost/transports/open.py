"""The default transport factory: stdio for a command, http / sse / auto for a URL; and
``open_authorized``, the same with a request authorizer and, for URLs that came from the world
rather than from the user, an address policy (``measuring.server.MeasureOptions`` chooses).

The HTTP transports (and ``requests`` behind them, ~0.1 s to import) are imported only when a
spec has a URL, so a stdio measurement spawns its server without paying for them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from mcpcost.core.spec import ServerSpec, TransportName
from mcpcost.transports.auto import AutoTransport
from mcpcost.transports.base import Transport
from mcpcost.transports.http import StreamableHTTPTransport
from mcpcost.transports.legacy_sse import LegacySSETransport
from mcpcost.transports.server_url import usable_url
from mcpcost.transports.stdio import spawn_stdio

if TYPE_CHECKING:
    from mcpcost.auth import RequestAuthorizer
    from mcpcost.runtime.addresses import AddressPolicy


def open_transport(spec: ServerSpec, timeout_s: float) -> Transport:
    """Open (launch or connect) the transport a spec asks for."""
    return open_authorized(spec, timeout_s, None)


def open_authorized(
    spec: ServerSpec,
    timeout_s: float,
    authorizer: RequestAuthorizer | None,
    *,
    policy: AddressPolicy | None = None,
    quote_bodies: bool = True,
) -> Transport:
    """``open_transport`` with an authorizer that signs HTTP requests and answers authorization
    challenges (see ``auth``). With ``policy`` every connection, each redirect's included, goes
    only to addresses it allows (``runtime.addresses``); without ``quote_bodies`` the body of an
    error status is never quoted in a note (it may be an internal service's page)."""
    if spec.url is None:
        return spawn_stdio(spec)

    url, headers = usable_url(spec.url, spec.secrets), dict(spec.headers)

    def opened(kind: Callable[..., Transport]) -> Transport:
        return kind(
            url,
            headers=headers,
            timeout_s=timeout_s,
            authorizer=authorizer,
            address_policy=policy,
            quote_bodies=quote_bodies,
        )

    if spec.transport == TransportName.HTTP:
        return opened(StreamableHTTPTransport)
    if spec.transport == TransportName.SSE:
        return opened(LegacySSETransport)
    return AutoTransport(opened(StreamableHTTPTransport), lambda: opened(LegacySSETransport))
