"""The address policy's connections (``runtime.http_session``'s pinned urllib3 connections)
against real loopback servers: a connection goes to the checked address while the ``Host``
header, TLS SNI and the certificate check keep the URL's host; a resolved address that refuses
the connection gives way to the next one."""

from __future__ import annotations

import socket
import ssl
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import requests

from mcpcost.runtime.addresses import AddressPolicy
from mcpcost.runtime.http_session import BoundedSession
from tests.helpers.tls import loopback_certificate, server_context

ONLY_LOOPBACK_1 = AddressPolicy(allowed_networks=("127.0.0.1/32",))


class _Recorder(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_GET(self) -> None:
        self.server.hosts.append(self.headers.get("Host"))  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")


def _start(server: ThreadingHTTPServer) -> Iterator[ThreadingHTTPServer]:
    server.hosts = []  # type: ignore[attr-defined]
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def plain() -> Iterator[ThreadingHTTPServer]:
    yield from _start(ThreadingHTTPServer(("127.0.0.1", 0), _Recorder))


@pytest.fixture
def names(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """Names that resolve, here, to the addresses listed (every other name as usual)."""
    table: dict[str, list[str]] = {}
    real = socket.getaddrinfo

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host not in table:
            return real(host, port, *args, **kwargs)
        return [
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port)) for address in table[host]
        ]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(var, raising=False)
    return table


def test_a_named_host_is_reached_at_its_checked_address_under_its_name(
    plain: ThreadingHTTPServer, names: dict[str, list[str]]
) -> None:
    names["named.test"] = ["127.0.0.1"]
    port = plain.server_address[1]
    with BoundedSession(ONLY_LOOPBACK_1) as session:
        with session.get(f"http://named.test:{port}/", timeout=5) as resp:
            assert resp.status_code == 200 and resp.raw.read() == b"ok"
        with session.get(f"http://named.test:{port}/again", timeout=5) as resp:
            assert resp.status_code == 200
    assert plain.hosts == [f"named.test:{port}"] * 2  # type: ignore[attr-defined]


def test_an_address_that_refuses_gives_way_to_the_next(
    plain: ThreadingHTTPServer, names: dict[str, list[str]]
) -> None:
    names["two.test"] = ["127.0.0.2", "127.0.0.1"]  # nothing listens on 127.0.0.2 at this port
    port = plain.server_address[1]
    with (
        BoundedSession(AddressPolicy(allow_private=True)) as session,
        session.get(f"http://two.test:{port}/", timeout=5) as resp,
    ):
        assert resp.status_code == 200
    assert plain.hosts == [f"two.test:{port}"]  # type: ignore[attr-defined]


def test_tls_names_the_urls_host_not_the_address(
    tmp_path: Path, names: dict[str, list[str]]
) -> None:
    """SNI and the certificate check are the URL's host's: the certificate names localhost and
    127.0.0.1, so https://localhost is trusted and https://elsewhere.test is not, though both
    connect to 127.0.0.1."""
    cert, key = loopback_certificate(tmp_path)
    context = server_context(cert, key)
    sni: list[str | None] = []

    def seen(sock: Any, name: str | None, ctx: ssl.SSLContext) -> None:
        sni.append(name)

    context.sni_callback = seen
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    names["localhost"] = ["127.0.0.1"]
    names["elsewhere.test"] = ["127.0.0.1"]
    for secure in _start(server):
        port = secure.server_address[1]
        with BoundedSession(ONLY_LOOPBACK_1) as session:
            url = f"https://localhost:{port}/"
            with session.get(url, timeout=5, verify=str(cert)) as resp:
                assert resp.status_code == 200
            with pytest.raises(requests.exceptions.SSLError, match=r"elsewhere\.test"):
                session.get(f"https://elsewhere.test:{port}/", timeout=5, verify=str(cert))
        assert secure.hosts == [f"localhost:{port}"]  # type: ignore[attr-defined]
    assert sni[0] == "localhost" and "elsewhere.test" in sni
