"""The default transport factory: stdio for a command, http / sse / auto for a URL.

The HTTP transports (and ``requests`` behind them, ~0.1 s to import) are imported only when a
spec has a URL, so a stdio measurement spawns its server without paying for them.
"""

from __future__ import annotations

from mcpcost.core.spec import ServerSpec
from mcpcost.transports.base import Transport
from mcpcost.transports.stdio import spawn_stdio


def open_transport(spec: ServerSpec, timeout_s: float) -> Transport:
    """Open (launch or connect) the transport a spec asks for."""
    if spec.url is None:
        return spawn_stdio(spec)
    from mcpcost.transports.auto import AutoTransport
    from mcpcost.transports.http import StreamableHTTPTransport
    from mcpcost.transports.legacy_sse import LegacySSETransport

    url = spec.url
    headers = dict(spec.headers)
    if spec.transport == "http":
        return StreamableHTTPTransport(url, headers=headers, timeout_s=timeout_s)
    if spec.transport == "sse":
        return LegacySSETransport(url, headers=headers, timeout_s=timeout_s)
    return AutoTransport(
        StreamableHTTPTransport(url, headers=headers, timeout_s=timeout_s),
        lambda: LegacySSETransport(url, headers=headers, timeout_s=timeout_s),
    )
