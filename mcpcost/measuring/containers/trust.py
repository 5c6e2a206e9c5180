"""What a container needs from the host to reach package registries: a CA bundle and the proxy.

Behind a TLS-intercepting proxy a fresh container does not trust the proxy's CA, so ``npx`` and
``uvx`` fail with a certificate error. ``HostTrust`` carries the host's CA bundle (mounted
read-only at ``CA_MOUNT_PATH`` and named by every variable in ``CA_ENV_VARS``) and the host's
proxy variables (``PROXY_VARS``), passed through unchanged. Only variable names reach the
isolation note; proxy values carrying userinfo are secrets (``HostTrust.secret_values``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from mcpcost.errors import InputError

CA_MOUNT_PATH = "/run/mcpcost/ca-bundle.pem"
CA_ENV_VARS = (
    "NODE_EXTRA_CA_CERTS",
    "SSL_CERT_FILE",
    "REQUESTS_CA_BUNDLE",
    "PIP_CERT",
    "CURL_CA_BUNDLE",
    "GIT_SSL_CAINFO",
)
CA_NOTE = "host CA bundle mounted"
PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy")
HOST_CA_FILE = "/etc/ssl/certs/ca-certificates.crt"
CA_BUNDLE_AUTO = "auto"


class CABundleError(InputError):
    """The ``--ca-bundle`` value names no readable file."""


@dataclass(frozen=True, slots=True)
class HostTrust:
    """The host's CA bundle (an absolute host path, or None) and its proxy (name, value) pairs."""

    ca_bundle: str | None = None
    proxy: tuple[tuple[str, str], ...] = ()

    @property
    def empty(self) -> bool:
        return self.ca_bundle is None and not self.proxy

    @property
    def secret_values(self) -> tuple[str, ...]:
        """Proxy values that carry userinfo, and the userinfo itself: never shown."""
        found: list[str] = []
        for _, value in self.proxy:
            userinfo = _userinfo(value)
            if userinfo:
                found += [value, userinfo, *[p for p in userinfo.split(":", 1) if p]]
        return tuple(dict.fromkeys(found))

    def environment(self) -> dict[str, str]:
        env = dict(self.proxy)
        if self.ca_bundle is not None:
            env.update(dict.fromkeys(CA_ENV_VARS, CA_MOUNT_PATH))
            env["UV_NATIVE_TLS"] = "1"
        return env

    def binds(self) -> dict[str, str]:
        return {} if self.ca_bundle is None else {self.ca_bundle: CA_MOUNT_PATH}

    def note(self) -> str:
        parts = []
        if self.ca_bundle is not None:
            parts.append(CA_NOTE)
        if self.proxy:
            parts.append(f"host proxy variables passed ({', '.join(n for n, _ in self.proxy)})")
        return ", ".join(parts)


def _userinfo(value: str) -> str:
    try:
        netloc = urlsplit(value if "://" in value else f"//{value}").netloc
    except ValueError:
        return ""
    return netloc.rsplit("@", 1)[0] if "@" in netloc else ""


def host_proxy(environ: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """The host's proxy variables that are set (non-empty), in ``PROXY_VARS`` order."""
    return tuple((name, environ[name]) for name in PROXY_VARS if environ.get(name))


def resolve_ca_bundle(
    value: str | None,
    environ: Mapping[str, str],
    is_file: Callable[[str], bool] = os.path.isfile,
) -> str | None:
    """The absolute host path of the CA bundle to mount, or None.

    ``auto`` takes the first of ``SSL_CERT_FILE``, ``REQUESTS_CA_BUNDLE`` and ``HOST_CA_FILE``
    that is a file (None when none is); any other value must name a file (``CABundleError``).
    """
    if value is None:
        return None
    if value == CA_BUNDLE_AUTO:
        candidates = [environ.get("SSL_CERT_FILE"), environ.get("REQUESTS_CA_BUNDLE"), HOST_CA_FILE]
        for candidate in candidates:
            if candidate and is_file(candidate):
                return os.path.realpath(candidate)
        return None
    if not is_file(value):
        raise CABundleError(f"--ca-bundle {value}: not a file")
    return os.path.realpath(value)


def host_trust(ca_bundle: str | None, environ: Mapping[str, str]) -> HostTrust:
    """What containers get from the host: ``--ca-bundle`` resolved, and the proxy variables."""
    return HostTrust(ca_bundle=resolve_ca_bundle(ca_bundle, environ), proxy=host_proxy(environ))
