"""The one HTTP session class: ``BoundedSession``, a ``requests.Session`` that never reads a body
by itself and, given an address policy, connects only where the policy allows.

Bodies. ``requests`` reads a whole body into memory in two places its caller does not see: a
request sent without ``stream=True``, and each redirect response it follows (or merely looks
at), which it reads to release the connection. A server that answers with an endless or
compressed-bomb body would exhaust memory there. A ``BoundedSession`` sends every request with
``stream=True``, closes a redirect's connection before ``requests`` reads its body (a closed
stream reads as empty), and asks only for the content codings ``runtime.http_body`` decodes
within its caps. Every body is then read by the caller, through ``runtime.http_body``.

Addresses. With a policy (``runtime.addresses``) the session's connections are made by
``GuardedAdapter``: a ``requests`` transport adapter whose urllib3 connection pools use
``PinnedHTTPConnection``/``PinnedHTTPSConnection``. When one connects it resolves the URL's
host, refuses the connection unless every address is allowed, and connects to those same
addresses, while the ``Host`` header, TLS SNI and the certificate check keep the URL's host.
Of the three ways to make ``requests`` connect only to checked addresses, this is the one that
leaves no gap and changes nothing else: checking a URL and then letting ``requests`` resolve
it again leaves a window in which the name can be re-bound to an internal address (DNS
rebinding); rewriting the URL to the address breaks virtual hosting and redirects. Because
every connection (the first request's, each redirect's, a retry's) is made there, a redirect
to an internal address is refused when it is followed, and a reused pooled connection was
checked when it was made. A proxy would make the connection to the target itself, out of our
sight, so a guarded request that the environment would send through a proxy is refused rather
than sent unchecked.
"""

from __future__ import annotations

import functools
import socket
from collections.abc import Callable, Mapping
from typing import Any, ClassVar
from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter
from requests.utils import select_proxy
from urllib3 import HTTPConnectionPool, HTTPSConnectionPool, PoolManager
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.exceptions import NameResolutionError, NewConnectionError
from urllib3.util.connection import allowed_gai_family

from mcpcost.runtime.addresses import AddressPolicy, AddressRefused, resolve_allowed
from mcpcost.runtime.http_body import ACCEPT_ENCODING


def _connect_pinned(
    conn: HTTPConnection, policy: AddressPolicy, connect: Callable[[], None]
) -> None:
    """Run urllib3's own ``connect`` for ``conn`` against each address its host resolves to,
    all of them allowed by ``policy``, until one connects.

    The connection's public ``host`` names the address only while ``connect`` runs, so urllib3
    opens the socket there (and resolves nothing itself); before and after it is the URL's
    host, which the ``Host`` header is made from. Raised errors are those urllib3 raises, so
    ``requests`` reports them the same way (a refusal is a ``NewConnectionError`` caused by
    ``AddressRefused``); an address that refuses the connection gives way to the next one, a
    timeout or a TLS failure ends the attempt."""
    name = conn.host
    try:
        found = resolve_allowed(
            name.strip("[]"), conn.port or 0, policy, family=allowed_gai_family()
        )
    except AddressRefused as exc:
        raise NewConnectionError(conn, str(exc)) from exc
    except socket.gaierror as exc:
        raise NameResolutionError(name, conn, exc) from exc
    error: NewConnectionError | None = None
    try:
        for address in dict.fromkeys(str(info[4][0]) for info in found):
            conn.host = address
            try:
                connect()
                return
            except NewConnectionError as exc:
                error = exc
    finally:
        conn.host = name
    raise error or NewConnectionError(conn, "Failed to establish a new connection: no address")


class PinnedHTTPConnection(HTTPConnection):
    """A urllib3 connection that reaches only addresses ``policy`` allows (``_connect_pinned``)."""

    policy: ClassVar[AddressPolicy]

    def connect(self) -> None:
        _connect_pinned(self, self.policy, super().connect)


class PinnedHTTPSConnection(HTTPSConnection):
    """As ``PinnedHTTPConnection``, over TLS: SNI and the certificate check name the URL's host
    (urllib3's public ``server_hostname``), not the address connected to."""

    policy: ClassVar[AddressPolicy]

    def connect(self) -> None:
        given = self.server_hostname
        if given is None:
            self.server_hostname = self.host
        try:
            _connect_pinned(self, self.policy, super().connect)
        finally:
            self.server_hostname = given


@functools.cache
def _pool_classes(policy: AddressPolicy) -> dict[str, type[HTTPConnectionPool]]:
    """Connection pool classes whose connections carry ``policy`` (made once per policy)."""
    plain = type("GuardedHTTP", (PinnedHTTPConnection,), {"policy": policy})
    tls = type("GuardedHTTPS", (PinnedHTTPSConnection,), {"policy": policy})
    return {
        "http": type("GuardedHTTPPool", (HTTPConnectionPool,), {"ConnectionCls": plain}),
        "https": type("GuardedHTTPSPool", (HTTPSConnectionPool,), {"ConnectionCls": tls}),
    }


class GuardedAdapter(HTTPAdapter):
    """A transport adapter whose every connection goes only to addresses ``policy`` allows."""

    def __init__(self, policy: AddressPolicy) -> None:
        self.policy = policy
        super().__init__()

    def init_poolmanager(
        self, connections: int, maxsize: int, block: bool = False, **pool_kwargs: Any
    ) -> None:
        super().init_poolmanager(connections, maxsize, block, **pool_kwargs)
        manager: PoolManager = self.poolmanager
        manager.pool_classes_by_scheme = dict(_pool_classes(self.policy))

    def send(
        self,
        request: requests.PreparedRequest,
        stream: bool = False,
        timeout: Any = None,
        verify: bool | str = True,
        cert: Any = None,
        proxies: Mapping[str, str] | None = None,
    ) -> requests.Response:
        if not self.policy.allow_cleartext and not (request.url or "").lower().startswith(
            "https://"
        ):
            refused = AddressRefused(
                "refused by the address policy: a cleartext http request (only https is allowed)"
            )
            raise requests.exceptions.ConnectionError(refused, request=request)
        if proxies and select_proxy(request.url or "", dict(proxies)):
            refused = AddressRefused(
                "refused by the address policy: a proxy is configured for this URL, and the "
                "policy can only be checked on a direct connection (set NO_PROXY for it)"
            )
            raise requests.exceptions.ConnectionError(refused, request=request)
        return super().send(request, stream, timeout, verify, cert, proxies)


class BoundedSession(requests.Session):
    """A session that never reads a body by itself (see the module's docstring), with an
    optional address policy for every connection it makes."""

    def __init__(self, policy: AddressPolicy | None = None) -> None:
        super().__init__()
        self.policy = policy
        self._environment_settings: dict[tuple[str, str, bool], dict[str, Any]] = {}
        self.headers["Accept-Encoding"] = ACCEPT_ENCODING
        if policy is not None:
            self.mount("http://", GuardedAdapter(policy))
            self.mount("https://", GuardedAdapter(policy))

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:
        kwargs["stream"] = True
        return super().send(request, **kwargs)

    def merge_environment_settings(
        self, url: str | bytes | None, proxies: Any, stream: Any, verify: Any, cert: Any
    ) -> Any:
        """``requests``' merge, read from the environment once per origin in this session (for
        the plain call every request here makes: no per-request proxies, verify or cert).
        ``requests`` scans every environment variable for proxies on every request, a fifth of
        a registry sweep's CPU (docs/PERFORMANCE.md)."""
        if proxies or verify is not None or cert is not None or not isinstance(url, str):
            return super().merge_environment_settings(url, proxies, stream, verify, cert)
        parts = urlsplit(url)
        key = (parts.scheme, parts.netloc, bool(stream))
        found: Any = self._environment_settings.get(key)
        if found is None:
            found = super().merge_environment_settings(url, proxies, stream, verify, cert)
            self._environment_settings[key] = found
        return {k: dict(v) if isinstance(v, dict) else v for k, v in found.items()}

    def get_redirect_target(self, resp: requests.Response) -> str | None:
        target = super().get_redirect_target(resp)
        if target:
            discard_redirect_body(resp)
        return target


def discard_redirect_body(resp: requests.Response) -> None:
    """Close a redirect response's connection before its body is read.

    ``requests`` reads a redirect's whole body (``resp.content``) to release its connection:
    an unbounded read of a body the world chose. Closed first (urllib3's public
    ``HTTPResponse.close``), the stream reads as empty, so that read takes nothing from the
    server. ``tests/integration/test_runtime_http_body.py`` follows redirects whose bodies
    never end, on the installed ``requests``."""
    raw: Any = resp.raw
    if raw is not None:
        raw.close()
