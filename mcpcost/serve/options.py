"""``ServeSettings``: the knobs of ``mcpcost serve``, one value the app and its parts read."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mcpcost.runtime.addresses import AddressPolicy

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8080


@dataclass(frozen=True, slots=True, kw_only=True)
class ServeSettings:
    """How the service listens, what it may reach and how much it does at once.

    ``timeout_s`` is each measurement's deadline (its captures' budget; no retry);
    ``cache_seconds`` how long an answer is kept per target; ``rate_per_minute`` the
    measurements one client may start a minute (0: no limit); ``refresh_seconds`` how often the
    published tree (``out``) is read again; ``forwarded_allow_ips`` the proxies whose
    ``X-Forwarded-For`` names the client (None: the peer address is the client)."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    out: Path | None = None
    allow_private_addresses: bool = False
    allow_http: bool = False
    max_concurrent: int = 4
    timeout_s: float = 30.0
    cache_seconds: float = 300.0
    rate_per_minute: int = 30
    refresh_seconds: float = 60.0
    forwarded_allow_ips: str | None = None

    @property
    def policy(self) -> AddressPolicy:
        return AddressPolicy(
            allow_private=self.allow_private_addresses, allow_cleartext=self.allow_http
        )
