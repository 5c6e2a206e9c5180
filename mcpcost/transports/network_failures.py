"""What a failed HTTP request says about the network: ``classify_request_failure`` names what
failed below HTTP (refused, unresolved, TLS, proxy, timeouts, the address policy) in one
sentence without credentials, and ``request_failure`` turns it into the typed transport error
the measurer maps to a status."""

from __future__ import annotations

import socket
import ssl
from collections.abc import Iterator
from enum import StrEnum
from typing import Any
from urllib.parse import urlsplit

import requests

from mcpcost.errors import TransportError
from mcpcost.runtime.addresses import AddressRefused
from mcpcost.transports.failures import (
    ConnectTimedOut,
    HostUnreachable,
    TransportClosed,
    TransportTimeout,
)


class NetworkFailure(StrEnum):
    """What went wrong below HTTP when a request got no answer."""

    CONNECTION_REFUSED = "connection refused"
    NAME_NOT_RESOLVED = "name not resolved"
    TLS_VERIFICATION = "TLS verification failed"
    TLS_HANDSHAKE = "TLS handshake failed"
    PROXY = "proxy failed"
    CONNECT_TIMEOUT = "timed out connecting"
    READ_TIMEOUT = "timed out reading"
    CONNECTION_LOST = "connection failed"
    ADDRESS_REFUSED = "refused by the address policy"


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and what it wraps: ``__cause__``/``__context__``, urllib3 ``reason``, ``args``."""
    seen: set[int] = set()
    todo: list[BaseException] = [exc]
    while todo:
        cur = todo.pop(0)
        if id(cur) in seen:
            continue
        seen.add(id(cur))
        yield cur
        for nxt in (cur.__cause__, cur.__context__, getattr(cur, "reason", None), *cur.args):
            if isinstance(nxt, BaseException):
                todo.append(nxt)


def _first(exc: BaseException, kind: type[BaseException]) -> Any:
    return next((c for c in _causes(exc) if isinstance(c, kind)), None)


def _endpoint(url: str) -> str:
    """host:port of a URL, without credentials, path or query."""
    parts = urlsplit(url)
    host = parts.hostname or "?"
    if ":" in host:
        host = f"[{host}]"
    port = parts.port or (443 if parts.scheme in ("https", "wss") else 80)
    return f"{host}:{port}"


def _proxy_for(url: str) -> str | None:
    """host:port of the proxy the environment selects for ``url`` (never its credentials)."""
    try:
        proxies = requests.utils.get_environ_proxies(url)
    except Exception:  # a malformed proxy setting: say nothing rather than guess
        return None
    scheme = urlsplit(url).scheme
    proxy = proxies.get(scheme) or proxies.get("all")
    return _endpoint(proxy if "://" in proxy else f"http://{proxy}") if proxy else None


def _certificate_problem(err: ssl.SSLCertVerificationError) -> str:
    message = (err.verify_message or "").strip()
    if message.startswith(("Hostname mismatch", "IP address mismatch")):
        return "hostname mismatch (" + message.split(",", 1)[-1].strip().rstrip(".") + ")"
    return message or (err.reason or "certificate rejected")


def classify_request_failure(
    exc: requests.RequestException, url: str
) -> tuple[NetworkFailure, str]:
    """The failure kind and one sentence saying what failed, for a request to ``url``."""
    where = _endpoint(url)
    host = urlsplit(url).hostname or "?"
    policy_refusal = _first(exc, AddressRefused)
    if policy_refusal is not None:
        return NetworkFailure.ADDRESS_REFUSED, str(policy_refusal)
    if isinstance(exc, requests.exceptions.ProxyError):
        proxy = _proxy_for(url)
        what = f"the proxy {proxy}" if proxy else "the configured proxy"
        refused = _first(exc, ConnectionRefusedError) is not None
        resolved = _first(exc, socket.gaierror) is None
        if refused:
            return NetworkFailure.PROXY, f"{what} refused the connection (reaching {where})"
        if not resolved:
            return NetworkFailure.PROXY, f"{what} could not be resolved (reaching {where})"
        return NetworkFailure.PROXY, f"{what} failed while reaching {where}"
    if isinstance(exc, requests.exceptions.SSLError):
        cert = _first(exc, ssl.SSLCertVerificationError)
        if cert is not None:
            return (
                NetworkFailure.TLS_VERIFICATION,
                f"TLS certificate verification failed for {where}: {_certificate_problem(cert)}",
            )
        tls = _first(exc, ssl.SSLError)
        reason = (getattr(tls, "reason", None) or type(tls).__name__) if tls else "unknown"
        if reason == "WRONG_VERSION_NUMBER":
            reason += " (the server does not speak TLS there: plain http?)"
        return NetworkFailure.TLS_HANDSHAKE, f"TLS handshake with {where} failed: {reason}"
    if isinstance(exc, requests.exceptions.ConnectTimeout):
        return NetworkFailure.CONNECT_TIMEOUT, f"timed out connecting to {where}"
    if isinstance(exc, requests.exceptions.Timeout):
        return NetworkFailure.READ_TIMEOUT, f"a response from {where}"
    if _first(exc, socket.gaierror) is not None or any(
        type(c).__name__ == "NameResolutionError" for c in _causes(exc)
    ):
        gai = _first(exc, socket.gaierror)
        detail = f" ({gai.strerror})" if gai is not None and gai.strerror else ""
        return (
            NetworkFailure.NAME_NOT_RESOLVED,
            f"the host name {host} could not be resolved{detail}",
        )
    if _first(exc, ConnectionRefusedError) is not None:
        return (
            NetworkFailure.CONNECTION_REFUSED,
            f"connection refused by {where} (nothing accepts connections there)",
        )
    os_error = next(
        (c for c in _causes(exc) if isinstance(c, OSError) and c.errno is not None), None
    )
    detail = (os_error.strerror if os_error is not None else None) or type(exc).__name__
    return NetworkFailure.CONNECTION_LOST, f"the connection to {where} failed: {detail}"


def request_failure(
    exc: requests.RequestException, url: str, timeouts: tuple[float, float], prefix: str = ""
) -> TransportError:
    """The typed transport error for a request to ``url`` that got no HTTP answer.

    ``timeouts`` are the request's (connect, read) limits. A connect that timed out is a
    ``ConnectTimedOut`` and a slow answer a ``TransportTimeout`` (both status ``timeout``); a
    refused connection or a name that does not resolve a ``HostUnreachable`` (``unreachable``);
    everything else a ``TransportClosed`` (status ``startup-failure``) whose reason says what
    failed.
    """
    kind, sentence = classify_request_failure(exc, url)
    if kind is NetworkFailure.CONNECT_TIMEOUT:
        return ConnectTimedOut(f"{sentence} (no connection within {int(timeouts[0] * 1000)}ms)")
    if kind is NetworkFailure.READ_TIMEOUT:
        return TransportTimeout(int(timeouts[1] * 1000), sentence)
    if kind in (NetworkFailure.CONNECTION_REFUSED, NetworkFailure.NAME_NOT_RESOLVED):
        return HostUnreachable(prefix + sentence)
    return TransportClosed(prefix + sentence)
