"""The address policy: which IP addresses a URL that came from the world may reach.

A URL named by a registry entry or by a caller of a service is hostile until checked: it may
name the machine itself, the local network, or a cloud's metadata service (which hands out
credentials to whoever asks from inside). ``classify_address`` says what an address is (pure,
from fixed tables, so its answer does not change with the Python version); ``AddressPolicy``
says which kinds may be reached; ``resolve_allowed`` resolves a host and returns its addresses
only when every one of them is allowed, and ``check_url`` does that for a URL.

A check made before connecting would leave a gap: the name could resolve again, differently,
when the connection is made (DNS rebinding). So the check is also made at connect time, on the
addresses the connection then uses (``runtime.http_session``), for the first request and for
every redirect.

IPv6 addresses that carry an IPv4 address (IPv4-mapped ``::ffff:a.b.c.d``, the NAT64 prefix
``64:ff9b::/96``, 6to4 ``2002::/16``) are judged by the IPv4 address they carry.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from typing import Any
from urllib.parse import urlsplit

from mcpcost.errors import McpcostError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[..., list[tuple[Any, ...]]]  # socket.getaddrinfo's shape


class AddressKind(StrEnum):
    PUBLIC = "public"
    LOOPBACK = "loopback"
    PRIVATE = "private"
    LINK_LOCAL = "link-local"
    CARRIER_GRADE_NAT = "carrier-grade NAT"
    UNIQUE_LOCAL = "unique-local"
    MULTICAST = "multicast"
    RESERVED = "reserved"
    UNSPECIFIED = "unspecified"
    CLOUD_METADATA = "cloud metadata"


# What --allow-private-addresses admits. The other kinds are never reached: nothing serves MCP
# on a multicast, reserved or unspecified address (0.0.0.0 connects to this machine on Linux),
# and a cloud metadata service is refused even when private ranges are allowed.
PRIVATE_KINDS = frozenset(
    {
        AddressKind.LOOPBACK,
        AddressKind.PRIVATE,
        AddressKind.LINK_LOCAL,
        AddressKind.CARRIER_GRADE_NAT,
        AddressKind.UNIQUE_LOCAL,
    }
)

# Cloud metadata and platform services, reachable from inside a cloud machine, that answer
# with credentials or configuration. Each is documented by its vendor (checked 2026-12-01):
# 169.254.169.254  AWS EC2 instance metadata (docs.aws.amazon.com, "Retrieve instance
#                  metadata"); the same address serves Google Cloud, Azure IMDS, Oracle Cloud
#                  and DigitalOcean metadata
# fd00:ec2::254    AWS EC2 instance metadata over IPv6 (same page)
# 169.254.170.2    AWS ECS task metadata and task role credentials (docs.aws.amazon.com,
#                  "IAM roles for tasks")
# 100.100.100.200  Alibaba Cloud ECS metadata (alibabacloud.com, "Overview of ECS instance
#                  metadata")
# 168.63.129.16    Azure WireServer, a public address (learn.microsoft.com, "What is IP address
#                  168.63.129.16?")
CLOUD_METADATA = (
    "169.254.169.254",
    "fd00:ec2::254",
    "169.254.170.2",
    "100.100.100.200",
    "168.63.129.16",
)

# (network, kind), first match wins; addresses in none of them are public.
_IPV4_TABLE = (
    ("0.0.0.0/32", AddressKind.UNSPECIFIED),
    ("0.0.0.0/8", AddressKind.RESERVED),  # "this network" (RFC 791)
    ("10.0.0.0/8", AddressKind.PRIVATE),  # RFC 1918
    ("100.64.0.0/10", AddressKind.CARRIER_GRADE_NAT),  # RFC 6598
    ("127.0.0.0/8", AddressKind.LOOPBACK),
    ("169.254.0.0/16", AddressKind.LINK_LOCAL),  # RFC 3927
    ("172.16.0.0/12", AddressKind.PRIVATE),
    ("192.0.0.0/24", AddressKind.RESERVED),  # IETF protocol assignments (RFC 6890)
    ("192.0.2.0/24", AddressKind.RESERVED),  # documentation (RFC 5737)
    ("192.88.99.0/24", AddressKind.RESERVED),  # former 6to4 relays (RFC 7526)
    ("192.168.0.0/16", AddressKind.PRIVATE),
    ("198.18.0.0/15", AddressKind.RESERVED),  # benchmarking (RFC 2544)
    ("198.51.100.0/24", AddressKind.RESERVED),
    ("203.0.113.0/24", AddressKind.RESERVED),
    ("224.0.0.0/4", AddressKind.MULTICAST),
    ("240.0.0.0/4", AddressKind.RESERVED),  # future use, and the broadcast address
)
_IPV6_TABLE = (
    ("::/128", AddressKind.UNSPECIFIED),
    ("::1/128", AddressKind.LOOPBACK),
    ("::/96", AddressKind.RESERVED),  # IPv4-compatible (deprecated, RFC 4291)
    ("64:ff9b:1::/48", AddressKind.PRIVATE),  # local-use NAT64 (RFC 8215)
    ("100::/64", AddressKind.RESERVED),  # discard-only (RFC 6666)
    ("2001::/23", AddressKind.RESERVED),  # IETF protocol assignments, Teredo (RFC 2928)
    ("2001:db8::/32", AddressKind.RESERVED),  # documentation (RFC 3849)
    ("3fff::/20", AddressKind.RESERVED),  # documentation (RFC 9637)
    ("5f00::/16", AddressKind.RESERVED),  # segment routing SIDs (RFC 9602)
    ("fc00::/7", AddressKind.UNIQUE_LOCAL),  # RFC 4193
    ("fe80::/10", AddressKind.LINK_LOCAL),
    ("fec0::/10", AddressKind.PRIVATE),  # site-local (deprecated, RFC 3879)
    ("ff00::/8", AddressKind.MULTICAST),
)
_GLOBAL_UNICAST = ipaddress.IPv6Network("2000::/3")  # outside it: unassigned, so reserved
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_SIX_TO_FOUR = ipaddress.IPv6Network("2002::/16")


IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


@cache
def _table(version: int) -> tuple[tuple[IPNetwork, AddressKind], ...]:
    rows = _IPV4_TABLE if version == 4 else _IPV6_TABLE
    return tuple((ipaddress.ip_network(n), k) for n, k in rows)


@cache
def _metadata() -> frozenset[IPAddress]:
    return frozenset(ipaddress.ip_address(a) for a in CLOUD_METADATA)


def parse_address(text: str) -> IPAddress:
    """An address from text, an IPv6 zone (``fe80::1%eth0``) dropped; ValueError if none."""
    return ipaddress.ip_address(text.split("%", 1)[0])


def unwrap(address: IPAddress) -> IPAddress:
    """The IPv4 address an IPv6 address carries (mapped, NAT64, 6to4), else the address."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return address.ipv4_mapped
        if address in _NAT64:
            return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if address.sixtofour is not None:
            return address.sixtofour
    return address


def classify_address(address: IPAddress | str) -> AddressKind:
    """What kind of address this is (pure)."""
    ip = unwrap(parse_address(address) if isinstance(address, str) else address)
    if ip in _metadata():
        return AddressKind.CLOUD_METADATA
    for network, kind in _table(ip.version):
        if ip in network:
            return kind
    if isinstance(ip, ipaddress.IPv6Address) and ip not in _GLOBAL_UNICAST:
        return AddressKind.RESERVED
    return AddressKind.PUBLIC


class AddressRefused(McpcostError, OSError):
    """A connection the policy does not allow (an ``OSError``, so an HTTP library reports it
    as a failed connection); the message says why. ``kind`` is the refused address's kind."""

    def __init__(self, reason: str, kind: AddressKind | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.kind = kind

    def __str__(self) -> str:
        return self.reason


def refused_address(host: str, address: str, kind: AddressKind) -> AddressRefused:
    named = address if host == address else f"{host} ({address})"
    return AddressRefused(
        f"refused by the address policy: {named} is a {kind} address, not a public one", kind
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class AddressPolicy:
    """Which addresses may be reached: public ones always; the private kinds with
    ``allow_private``; any address inside ``allowed_networks`` (CIDR text, for a test or an
    internal deployment that names its own ranges). Cloud metadata addresses never.

    ``allow_cleartext`` False: only ``https`` requests are sent, on every hop, so a redirect
    from an https URL to an http one is refused where it would be followed."""

    allow_private: bool = False
    allowed_networks: tuple[str, ...] = ()
    allow_cleartext: bool = True

    def __post_init__(self) -> None:
        for network in self.allowed_networks:
            ipaddress.ip_network(network)  # ValueError for text that is not a network

    def refusal(self, address: IPAddress | str) -> AddressKind | None:
        """None when ``address`` may be reached, else the kind that refuses it."""
        ip = parse_address(address) if isinstance(address, str) else address
        kind = classify_address(ip)
        if kind is AddressKind.PUBLIC:
            return None
        if kind is AddressKind.CLOUD_METADATA:
            return kind
        if self.allow_private and kind in PRIVATE_KINDS:
            return None
        if any(_within(ip, n) for n in self.allowed_networks):
            return None
        return kind


PUBLIC_ONLY = AddressPolicy()


def _within(ip: IPAddress, network: str) -> bool:
    net = ipaddress.ip_network(network)
    return ip in net or (unwrap(ip) != ip and unwrap(ip) in net)


def resolve_allowed(
    host: str,
    port: int,
    policy: AddressPolicy,
    *,
    family: int = socket.AF_UNSPEC,
    resolve: Resolver | None = None,
) -> list[tuple[Any, ...]]:
    """``getaddrinfo`` results for ``host`` (TCP), all of them allowed by ``policy``.

    AddressRefused when any resolved address is refused: a name that also resolves to an
    internal address is refused whole, so which address a connection picks cannot matter.
    ``socket.gaierror`` when the name does not resolve.
    """
    lookup = resolve or socket.getaddrinfo
    found = lookup(host, port, family, socket.SOCK_STREAM)
    for info in found:
        address = str(info[4][0])
        kind = policy.refusal(address)
        if kind is not None:
            raise refused_address(host, parse_address(address).compressed, kind)
    return found


def literal_address(host: str) -> str | None:
    """The address a host names without any lookup, or None for a name to resolve: an IP
    literal (bracketed IPv6 too), the short and hexadecimal IPv4 forms the system's resolver
    accepts (``127.1``, ``0x7f.1``), and ``localhost`` (and ``*.localhost``) as loopback."""
    name = host.strip("[]").rstrip(".").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return "127.0.0.1"
    try:
        return parse_address(name).compressed
    except ValueError:
        pass
    if not name or not all(c in "0123456789abcdefx." for c in name):
        return None
    try:
        return socket.inet_ntoa(socket.inet_aton(name))
    except OSError:
        return None


def url_host_port(url: str) -> tuple[str, int]:
    """(host, port) of an http(s) URL; ValueError for another scheme or no host."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("not an http(s) URL with a host")
    return parts.hostname, parts.port or (443 if scheme == "https" else 80)


def check_url(url: str, policy: AddressPolicy, *, resolve: Resolver | None = None) -> Sequence[str]:
    """The addresses an http(s) URL's host resolves to, when ``policy`` allows every one.

    AddressRefused otherwise; ``socket.gaierror`` when the name does not resolve; ValueError
    for a URL that is not http(s). Advice only: the connection is checked again when it is
    made (``runtime.http_session``), which is what closes the gap a re-resolution could open.
    """
    host, port = url_host_port(url)
    found = resolve_allowed(host, port, policy, resolve=resolve)
    return tuple(dict.fromkeys(parse_address(str(info[4][0])).compressed for info in found))
