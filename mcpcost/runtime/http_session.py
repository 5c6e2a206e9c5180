"""The one HTTP session class: ``BoundedSession``, a ``requests.Session`` that never reads a body
by itself and, given an address policy, connects only where the policy allows.

Bodies. ``requests`` reads a whole body into memory in two places its caller does not see: a
request sent without ``stream=True``, and each redirect response it follows (or merely looks
at), which it reads to release the connection. A server that answers with an endless or
compressed-bomb body would exhaust memory there. A ``BoundedSession`` sends every request with
``stream=True``, never reads a redirect's body (the connection is closed instead), and asks
only for the content codings ``runtime.http_body`` decodes within its caps. Every body is then
read by the caller, through ``runtime.http_body``.

Addresses. With a policy (``runtime.addresses``) the session's connections are made by
``GuardedAdapter``: a ``requests`` transport adapter whose connection pools make their sockets
with ``_guarded_socket``, which resolves the host, refuses the connection unless every address
is allowed, and connects to those same addresses. Of the three ways to make ``requests``
connect only to checked addresses, this is the one that leaves no gap and changes nothing
else: checking a URL and then letting ``requests`` resolve it again leaves a window in which
the name can be re-bound to an internal address (DNS rebinding); resolving once and rewriting
the URL to the address would need the ``Host`` header, TLS SNI and certificate checks
re-targeted by hand, and breaks virtual hosting and redirects. Replacing only the socket
creation keeps the URL, ``Host``, SNI and certificate verification as ``requests`` does them.
Because every connection (the first request's, each redirect's, a retry's) is made there, a
redirect to an internal address is refused when it is followed, and a reused pooled
connection was checked when it was made. A proxy would make the connection to the target
itself, out of our sight, so a guarded request that the environment would send through a
proxy is refused rather than sent unchecked.
"""

from __future__ import annotations

import functools
import socket
import sys
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter
from requests.utils import select_proxy
from urllib3 import HTTPConnectionPool, HTTPSConnectionPool, PoolManager
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.exceptions import ConnectTimeoutError, NameResolutionError, NewConnectionError
from urllib3.util.connection import allowed_gai_family

from mcpcost.runtime.addresses import AddressPolicy, AddressRefused, resolve_allowed
from mcpcost.runtime.http_body import ACCEPT_ENCODING


def _guarded_socket(conn: HTTPConnection, policy: AddressPolicy) -> socket.socket:
    """A connected socket for ``conn``'s host, to an address ``policy`` allows.

    Raised errors are those urllib3's own connection raises, so ``requests`` reports them the
    same way (a refusal is a ``NewConnectionError`` caused by ``AddressRefused``).
    """
    host = conn.host.strip("[]")  # the name to resolve (a trailing dot is not kept)
    try:
        found = resolve_allowed(host, conn.port or 0, policy, family=allowed_gai_family())
    except AddressRefused as exc:
        raise NewConnectionError(conn, str(exc)) from exc
    except socket.gaierror as exc:
        raise NameResolutionError(conn.host, conn, exc) from exc
    error: OSError | None = None
    for family, kind, proto, _name, address in found:
        sock = None
        try:
            sock = socket.socket(family, kind, proto)
            for option in conn.socket_options or ():
                sock.setsockopt(*option)
            timeout: Any = conn.timeout
            if timeout is None or isinstance(timeout, int | float):  # else urllib3's "default"
                sock.settimeout(timeout)
            if conn.source_address:
                sock.bind(conn.source_address)
            sock.connect(address)
            sys.audit("http.client.connect", conn, conn.host, conn.port)
            return sock
        except TimeoutError as exc:
            if sock is not None:
                sock.close()
            raise ConnectTimeoutError(
                conn, f"Connection to {conn.host} timed out. (connect timeout={conn.timeout})"
            ) from exc
        except OSError as exc:
            error = exc
            if sock is not None:
                sock.close()
    detail = error or OSError("getaddrinfo returned no address")
    raise NewConnectionError(conn, f"Failed to establish a new connection: {detail}") from error


class _GuardedHTTPConnection(HTTPConnection):
    policy: AddressPolicy

    def _new_conn(self) -> socket.socket:
        return _guarded_socket(self, self.policy)


class _GuardedHTTPSConnection(HTTPSConnection):
    policy: AddressPolicy

    def _new_conn(self) -> socket.socket:
        return _guarded_socket(self, self.policy)


@functools.cache
def _pool_classes(policy: AddressPolicy) -> dict[str, type[HTTPConnectionPool]]:
    """Connection pool classes whose connections carry ``policy`` (made once per policy)."""
    plain = type("GuardedHTTP", (_GuardedHTTPConnection,), {"policy": policy})
    tls = type("GuardedHTTPS", (_GuardedHTTPSConnection,), {"policy": policy})
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
    """Close a redirect response's connection and let its body read as empty.

    ``requests`` reads a redirect's whole body (``resp.content``) to release its connection:
    an unbounded read of a body the world chose. It has no public way to mark a body consumed,
    so this is the one place that sets ``Response``'s private ``_content`` fields. Should a
    ``requests`` release lack them, only the connection is closed, and what is read then comes
    from a closed stream (nothing). ``tests/integration/test_runtime_http_body.py`` follows a
    redirect whose body never ends, on the installed ``requests``."""
    if hasattr(resp, "_content") and hasattr(resp, "_content_consumed"):
        body: Any = resp
        body._content = b""
        body._content_consumed = True
    raw: Any = resp.raw
    if raw is not None:
        raw.close()
