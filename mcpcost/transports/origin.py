"""Our headers stay with the server the user named: a URL's origin, and an HTTP session whose
redirects drop them on the way to any other origin (a ``BoundedSession``, so it reads no body
by itself and keeps to an address policy when given one)."""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

import requests

from mcpcost.runtime.addresses import AddressPolicy
from mcpcost.runtime.http_session import BoundedSession

_DEFAULT_PORTS = {"http": 80, "https": 443}
# sent by requests itself from session state; dropped across origins along with the user's
_CREDENTIAL_HEADERS = ("Authorization", "Proxy-Authorization", "Cookie")


def origin(url: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) with the scheme's default port filled in; hosts compare lowercase."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return ("", url, None)
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), port or _DEFAULT_PORTS.get(scheme)


class OriginBoundSession(BoundedSession):
    """A session that follows a redirect to another origin without the named headers (the user's
    headers: tokens, API keys) or credentials. requests alone strips ``Authorization`` on a host
    change but forwards every other header, and keeps it across a port or scheme change."""

    def __init__(self, header_names: Iterable[str], policy: AddressPolicy | None = None) -> None:
        super().__init__(policy)
        self._bound = {n.lower() for n in (*header_names, *_CREDENTIAL_HEADERS)}

    def rebuild_auth(
        self, prepared_request: requests.PreparedRequest, response: requests.Response
    ) -> None:
        super().rebuild_auth(prepared_request, response)  # type: ignore[no-untyped-call]
        before, after = response.request.url, prepared_request.url
        if before is None or after is None or origin(before) != origin(after):
            for name in [h for h in prepared_request.headers if h.lower() in self._bound]:
                del prepared_request.headers[name]
