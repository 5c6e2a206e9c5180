"""The address policy: what each address is, which ones a policy lets through, and that the
check holds where it matters, when the connection is made (a name that resolves again
differently, a redirect, a proxy), against real loopback servers on 127.0.0.1 and 127.0.0.2."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import requests

from mcpcost.runtime.addresses import (
    PUBLIC_ONLY,
    AddressKind,
    AddressPolicy,
    AddressRefused,
    check_url,
    classify_address,
)
from mcpcost.runtime.http_session import BoundedSession
from mcpcost.transports.network_failures import NetworkFailure, classify_request_failure
from tests.helpers.tls import loopback_certificate, server_context

KINDS = {
    "8.8.8.8": AddressKind.PUBLIC,
    "1.1.1.1": AddressKind.PUBLIC,
    "2606:4700:4700::1111": AddressKind.PUBLIC,
    "127.0.0.1": AddressKind.LOOPBACK,
    "127.0.0.2": AddressKind.LOOPBACK,
    "::1": AddressKind.LOOPBACK,
    "10.1.2.3": AddressKind.PRIVATE,
    "172.16.0.1": AddressKind.PRIVATE,
    "172.31.255.255": AddressKind.PRIVATE,
    "172.32.0.1": AddressKind.PUBLIC,
    "192.168.1.1": AddressKind.PRIVATE,
    "169.254.1.1": AddressKind.LINK_LOCAL,
    "fe80::1": AddressKind.LINK_LOCAL,
    "fe80::1%eth0": AddressKind.LINK_LOCAL,
    "100.64.0.1": AddressKind.CARRIER_GRADE_NAT,
    "100.127.255.254": AddressKind.CARRIER_GRADE_NAT,
    "fd12:3456::1": AddressKind.UNIQUE_LOCAL,
    "fc00::1": AddressKind.UNIQUE_LOCAL,
    "224.0.0.1": AddressKind.MULTICAST,
    "ff02::1": AddressKind.MULTICAST,
    "240.0.0.1": AddressKind.RESERVED,
    "255.255.255.255": AddressKind.RESERVED,
    "192.0.2.1": AddressKind.RESERVED,
    "198.18.0.1": AddressKind.RESERVED,
    "2001:db8::1": AddressKind.RESERVED,
    "4000::1": AddressKind.RESERVED,  # outside 2000::/3: not assigned
    "0.0.0.0": AddressKind.UNSPECIFIED,
    "::": AddressKind.UNSPECIFIED,
    "0.1.2.3": AddressKind.RESERVED,
    "169.254.169.254": AddressKind.CLOUD_METADATA,
    "fd00:ec2::254": AddressKind.CLOUD_METADATA,
    "169.254.170.2": AddressKind.CLOUD_METADATA,
    "100.100.100.200": AddressKind.CLOUD_METADATA,
    "168.63.129.16": AddressKind.CLOUD_METADATA,
    # IPv6 forms that carry an IPv4 address are judged by it
    "::ffff:127.0.0.1": AddressKind.LOOPBACK,
    "::ffff:169.254.169.254": AddressKind.CLOUD_METADATA,
    "::ffff:8.8.8.8": AddressKind.PUBLIC,
    "64:ff9b::a9fe:a9fe": AddressKind.CLOUD_METADATA,  # NAT64 of 169.254.169.254
    "64:ff9b::c0a8:101": AddressKind.PRIVATE,
    "2002:7f00:1::1": AddressKind.LOOPBACK,  # 6to4 of 127.0.0.1
    "2002:808:808::1": AddressKind.PUBLIC,
}


@pytest.mark.parametrize(("address", "kind"), sorted(KINDS.items()))
def test_each_address_has_its_kind(address: str, kind: AddressKind) -> None:
    assert classify_address(address) is kind


def test_the_policy_admits_public_addresses_and_what_it_is_told() -> None:
    private = AddressPolicy(allow_private=True)
    for address, kind in KINDS.items():
        refused_by_default = PUBLIC_ONLY.refusal(address)
        assert (refused_by_default is None) == (kind is AddressKind.PUBLIC), address
        refused_when_private = private.refusal(address)
        admitted = kind in {
            AddressKind.PUBLIC,
            AddressKind.LOOPBACK,
            AddressKind.PRIVATE,
            AddressKind.LINK_LOCAL,
            AddressKind.CARRIER_GRADE_NAT,
            AddressKind.UNIQUE_LOCAL,
        }
        assert (refused_when_private is None) == admitted, address
    named = AddressPolicy(allowed_networks=("127.0.0.1/32", "203.0.113.0/24"))
    assert named.refusal("127.0.0.1") is None and named.refusal("::ffff:127.0.0.1") is None
    assert named.refusal("127.0.0.2") is AddressKind.LOOPBACK
    assert named.refusal("203.0.113.9") is None
    everything = AddressPolicy(allow_private=True, allowed_networks=("0.0.0.0/0", "::/0"))
    assert everything.refusal("169.254.169.254") is AddressKind.CLOUD_METADATA
    with pytest.raises(ValueError):
        AddressPolicy(allowed_networks=("not a network",))


def fake_resolver(answers: dict[str, list[list[str]]]) -> Any:
    """getaddrinfo that answers each name with its next list of addresses (the last repeats)."""
    real = socket.getaddrinfo
    calls: dict[str, int] = {}

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host not in answers:
            return real(host, port, *args, **kwargs)
        turn = calls.get(host, 0)
        calls[host] = turn + 1
        found = answers[host][min(turn, len(answers[host]) - 1)]
        return [
            (
                socket.AF_INET6 if ":" in a else socket.AF_INET,
                socket.SOCK_STREAM,
                6,
                "",
                (a, port, 0, 0) if ":" in a else (a, port),
            )
            for a in found
        ]

    return getaddrinfo


def test_a_name_with_one_internal_address_is_refused_whole() -> None:
    resolve = fake_resolver({"mixed.example": [["8.8.8.8", "10.0.0.5"]]})
    with pytest.raises(AddressRefused) as refused:
        check_url("https://mixed.example/mcp", PUBLIC_ONLY, resolve=resolve)
    assert str(refused.value) == (
        "refused by the address policy: mixed.example (10.0.0.5) is a private address, "
        "not a public one"
    )
    good = fake_resolver({"good.example": [["8.8.8.8", "2606:4700:4700::1111"]]})
    assert check_url("https://good.example/mcp", PUBLIC_ONLY, resolve=good) == (
        "8.8.8.8",
        "2606:4700:4700::1111",
    )
    with pytest.raises(ValueError):
        check_url("file:///etc/passwd", PUBLIC_ONLY)


class _Recorder(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_GET(self) -> None:
        self.server.seen.append(self.path)  # type: ignore[attr-defined]
        target = getattr(self.server, "redirect_to", None)
        if target and self.path == "/go":
            self.send_response(302)
            self.send_header("Location", target)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")


def _serve(host: str) -> Iterator[ThreadingHTTPServer]:
    server = ThreadingHTTPServer((host, 0), _Recorder)
    server.seen = []  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def first() -> Iterator[ThreadingHTTPServer]:
    yield from _serve("127.0.0.1")


@pytest.fixture
def second() -> Iterator[ThreadingHTTPServer]:
    yield from _serve("127.0.0.2")


@pytest.fixture(autouse=True)
def no_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(var, raising=False)


ONLY_FIRST = AddressPolicy(allowed_networks=("127.0.0.1/32",))


def refusal_of(exc: requests.RequestException, url: str) -> str:
    kind, sentence = classify_request_failure(exc, url)
    assert kind is NetworkFailure.ADDRESS_REFUSED
    return sentence


def test_the_connection_is_checked_on_its_own_resolution(
    monkeypatch: pytest.MonkeyPatch, second: ThreadingHTTPServer
) -> None:
    """DNS rebinding: the name passes the check, then resolves to another address when the
    connection is made. The connection checks what it connects to, so nothing reaches it."""
    port = second.server_address[1]
    monkeypatch.setattr(
        socket, "getaddrinfo", fake_resolver({"rebind.test": [["127.0.0.1"], ["127.0.0.2"]]})
    )
    url = f"http://rebind.test:{port}/"
    assert check_url(url, ONLY_FIRST) == ("127.0.0.1",)
    with BoundedSession(ONLY_FIRST) as session, pytest.raises(requests.ConnectionError) as exc:
        session.get(url, timeout=5)
    assert refusal_of(exc.value, url) == (
        "refused by the address policy: rebind.test (127.0.0.2) is a loopback address, "
        "not a public one"
    )
    assert second.seen == []  # type: ignore[attr-defined]


def test_every_redirect_is_checked(first: ThreadingHTTPServer, second: ThreadingHTTPServer) -> None:
    start = f"http://127.0.0.1:{first.server_address[1]}"
    with BoundedSession(ONLY_FIRST) as session:
        with session.get(start + "/plain", timeout=5) as resp:
            assert resp.status_code == 200  # the allowed address itself is reached
        for target in (
            f"http://127.0.0.2:{second.server_address[1]}/",
            f"http://0.0.0.0:{second.server_address[1]}/",
            f"http://[::ffff:127.0.0.2]:{second.server_address[1]}/",
        ):
            first.redirect_to = target  # type: ignore[attr-defined]
            with pytest.raises(requests.ConnectionError) as exc:
                session.get(start + "/go", timeout=5)
            assert "refused by the address policy" in refusal_of(exc.value, target)
    assert first.seen == ["/plain", "/go", "/go", "/go"]  # type: ignore[attr-defined]
    assert second.seen == []  # type: ignore[attr-defined]


def test_https_only_refuses_cleartext_on_every_hop(
    tmp_path: Path, first: ThreadingHTTPServer, second: ThreadingHTTPServer
) -> None:
    """With ``allow_cleartext`` off, an http URL is refused before it is sent, and so is an
    https server's redirect to http: the check is made for each request of the chain."""
    cert, key = loopback_certificate(tmp_path)
    secure = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    secure.seen = []  # type: ignore[attr-defined]
    secure.socket = server_context(cert, key).wrap_socket(secure.socket, server_side=True)
    threading.Thread(target=secure.serve_forever, daemon=True).start()
    https_only = AddressPolicy(allow_private=True, allow_cleartext=False)
    plain = f"http://127.0.0.2:{second.server_address[1]}/"
    try:
        with BoundedSession(https_only) as session:
            start = f"https://127.0.0.1:{secure.server_address[1]}"
            trust = str(cert)  # per request: a CA bundle in the environment outranks the session's
            with session.get(start + "/plain", timeout=5, verify=trust) as resp:
                assert resp.status_code == 200  # https itself is reached
            secure.redirect_to = plain  # type: ignore[attr-defined]
            with pytest.raises(requests.ConnectionError) as exc:
                session.get(start + "/go", timeout=5, verify=trust)
            assert refusal_of(exc.value, plain) == (
                "refused by the address policy: a cleartext http request (only https is allowed)"
            )
            with pytest.raises(requests.ConnectionError):
                session.get(f"http://127.0.0.1:{first.server_address[1]}/plain", timeout=5)
    finally:
        secure.shutdown()
        secure.server_close()
    assert secure.seen == ["/plain", "/go"]  # type: ignore[attr-defined]
    assert first.seen == [] and second.seen == []  # type: ignore[attr-defined]


def test_without_a_policy_nothing_is_refused(
    first: ThreadingHTTPServer, second: ThreadingHTTPServer
) -> None:
    first.redirect_to = f"http://127.0.0.2:{second.server_address[1]}/"  # type: ignore[attr-defined]
    with BoundedSession() as session:
        with session.get(f"http://127.0.0.1:{first.server_address[1]}/go", timeout=5) as resp:
            assert resp.status_code == 200
    assert second.seen == ["/"]  # type: ignore[attr-defined]


def test_a_proxied_request_is_refused_rather_than_sent_unchecked(
    monkeypatch: pytest.MonkeyPatch, first: ThreadingHTTPServer
) -> None:
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{first.server_address[1]}")
    url = "http://8.8.8.8/mcp"
    with BoundedSession(PUBLIC_ONLY) as session, pytest.raises(requests.ConnectionError) as exc:
        session.get(url, timeout=5)
    assert "a proxy is configured for this URL" in refusal_of(exc.value, url)
    assert first.seen == []  # type: ignore[attr-defined]
