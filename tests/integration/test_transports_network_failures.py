"""Network failures say what failed: loopback listeners that refuse, never accept, present a
self-signed or mismatched certificate, a proxy that refuses, and a name that cannot resolve."""

from __future__ import annotations

import contextlib
import http.server
import io
import shutil
import socket
import ssl
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcpcost.cli import main
from mcpcost.core.jsonvalue import parse_json

PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


@pytest.fixture(autouse=True)
def no_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in (*PROXY_VARS, "NO_PROXY", "no_proxy", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):
        monkeypatch.delenv(var, raising=False)


def measure(url: str, timeout: str = "1") -> dict[str, Any]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["measure", "--url", url, "--json", "--timeout", timeout], out, err)
    assert code == 1, err.getvalue()
    doc = parse_json(out.getvalue())
    assert isinstance(doc, dict)
    return doc


def closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port: int = s.getsockname()[1]
    s.close()
    return port


def test_refused_connection_is_named() -> None:
    port = closed_port()
    m = measure(f"http://127.0.0.1:{port}/mcp")
    assert m["status"] == "unreachable"
    assert m["notes"].endswith(
        f"connection refused by 127.0.0.1:{port} (nothing accepts connections there)"
    )
    assert "ConnectionError" not in m["notes"]


@pytest.fixture
def invalid_names_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """Resolver failure injected for ``.invalid`` names (RFC 6761: they never resolve). The
    resolver configured here is not on this machine, so asking it would leave loopback."""
    real = socket.getaddrinfo

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(host, str) and host.endswith(".invalid"):
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


def test_a_name_that_cannot_resolve_is_named(invalid_names_fail: None) -> None:
    m = measure("http://mcp.example.invalid/mcp")
    assert m["status"] == "unreachable"
    assert m["notes"].endswith(
        "the host name mcp.example.invalid could not be resolved (Name or service not known)"
    )


@pytest.fixture
def never_accepting() -> Iterator[int]:
    """A listener with a full backlog: further connects get no answer until they time out."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port: int = listener.getsockname()[1]
    fillers = []
    for _ in range(4):
        c = socket.socket()
        c.setblocking(False)
        try:
            c.connect(("127.0.0.1", port))
        except BlockingIOError:
            pass
        fillers.append(c)
    try:
        yield port
    finally:
        for c in fillers:
            c.close()
        listener.close()


def test_a_connect_that_never_completes_is_a_timeout_that_says_so(never_accepting: int) -> None:
    m = measure(f"http://127.0.0.1:{never_accepting}/mcp")
    assert m["status"] == "timeout"
    assert f"timed out connecting to 127.0.0.1:{never_accepting}" in m["notes"]


def test_a_refusing_proxy_is_named_without_its_credentials(
    monkeypatch: pytest.MonkeyPatch, invalid_names_fail: None
) -> None:
    port = closed_port()
    monkeypatch.setenv("HTTP_PROXY", f"http://user:s3cret@127.0.0.1:{port}")
    m = measure("http://mcp.example.invalid/mcp")
    assert m["status"] == "startup-failure"
    assert f"the proxy 127.0.0.1:{port} refused the connection" in m["notes"]
    assert "s3cret" not in m["notes"] and "user" not in m["notes"]


def make_certificate(folder: Path, name: str, host: str) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is not installed")
    cert, key = folder / f"{name}.pem", folder / f"{name}.key"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            f"/CN={host}",
            "-addext",
            f"subjectAltName=DNS:{host}",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return cert, key


def make_expired_certificate(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 that expired in 2020 (openssl 3.0's CLI cannot backdate)."""
    pytest.importorskip("cryptography", reason="cryptography builds the backdated certificate")
    import datetime as dt
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(dt.datetime(2020, 1, 1, tzinfo=dt.UTC))
        .not_valid_after(dt.datetime(2020, 1, 2, tzinfo=dt.UTC))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "expired.pem", folder / "expired.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


@contextlib.contextmanager
def serve_tls(cert: Path, key: Path) -> Iterator[int]:
    """An HTTPS listener on loopback presenting ``cert``."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    server.socket = ctx.wrap_socket(server.socket, server_side=True)
    server.handle_error = lambda *_a: None  # type: ignore[method-assign]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    """An HTTPS listener whose self-signed certificate names ``other.example``, not 127.0.0.1."""
    cert, key = make_certificate(tmp_path, "server", "other.example")
    with serve_tls(cert, key) as port:
        yield port, cert


def test_a_self_signed_certificate_is_named(tls_server: tuple[int, Path]) -> None:
    port, _ = tls_server
    m = measure(f"https://127.0.0.1:{port}/mcp")
    assert m["status"] == "startup-failure"
    assert f"TLS certificate verification failed for 127.0.0.1:{port}: self-signed" in m["notes"]


def test_a_certificate_for_another_host_is_a_hostname_mismatch(
    tls_server: tuple[int, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    port, cert = tls_server
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(cert))  # trusted, but for another name
    m = measure(f"https://127.0.0.1:{port}/mcp")
    assert m["status"] == "startup-failure"
    assert (
        f"TLS certificate verification failed for 127.0.0.1:{port}: hostname mismatch"
        in (m["notes"])
    )


def test_an_expired_certificate_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cert, key = make_expired_certificate(tmp_path)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(cert))  # trusted, for this address, but expired
    with serve_tls(cert, key) as port:
        m = measure(f"https://127.0.0.1:{port}/mcp")
    assert m["status"] == "startup-failure"
    assert (
        f"TLS certificate verification failed for 127.0.0.1:{port}: certificate has expired"
        in (m["notes"])
    )


def test_commands_that_fetch_a_url_say_what_failed_too() -> None:
    port = closed_port()
    out, err = io.StringIO(), io.StringIO()
    code = main(["badge", f"http://127.0.0.1:{port}/measurement.json"], out, err)
    assert code == 2
    assert err.getvalue() == (
        f"failed to fetch http://127.0.0.1:{port}/measurement.json: connection refused by "
        f"127.0.0.1:{port} (nothing accepts connections there)\n"
    )


def test_https_to_a_plain_http_port_says_the_handshake_failed() -> None:
    class Quiet(http.server.BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    server.handle_error = lambda *_a: None  # type: ignore[method-assign]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    try:
        m = measure(f"https://127.0.0.1:{port}/mcp")
    finally:
        server.shutdown()
        server.server_close()
    assert m["status"] == "startup-failure"
    assert f"TLS handshake with 127.0.0.1:{port} failed: WRONG_VERSION_NUMBER" in m["notes"]
