"""The API's values, pure: what a measure request names, what an answer says, entity tags.

``measure_target`` turns the fields of a request (a JSON body or query parameters) into a
``MeasureTarget`` or raises ``RequestProblem`` with a one-line reason. ``measurement_view`` is the
public face of a ``Measurement``: the fields a caller reads, never the raw capture, and
``"method": "exact"`` (the methodology's number, never an estimate). ``entity_tag`` and
``matches_entity_tag`` are the ETag rules (RFC 9110: weak comparison for ``If-None-Match``).
``client_key`` says whose rate limit a request counts against.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlsplit, urlunsplit

from mcpcost.core.digest import sha256_hex
from mcpcost.core.jsonvalue import stringify
from mcpcost.core.measure import SessionStart, session_start
from mcpcost.core.model import NOT_CAPTURED, Measurement
from mcpcost.core.spec import TransportName
from mcpcost.errors import McpcostError
from mcpcost.runtime.addresses import AddressPolicy, parse_address, refused_address

MAX_URL_CHARS: Final = 2048
MAX_BODY_BYTES: Final = 16 << 10  # a measure request is one URL and one word
REMOTE_TRANSPORTS: Final = (TransportName.AUTO, TransportName.HTTP, TransportName.SSE)
MEASURE_FIELDS: Final = frozenset({"url", "transport"})
METHOD: Final = "exact"


class RequestProblem(McpcostError):
    """A request the API does not act on: ``status`` is the HTTP status, ``code`` the word the
    answer's ``error`` field carries, the message one line."""

    def __init__(self, message: str, *, status: int = 400, code: str = "bad-request") -> None:
        super().__init__(message)
        self.status = status
        self.code = code


@dataclass(frozen=True, slots=True, kw_only=True)
class MeasureTarget:
    """One server to measure: a normalised http(s) URL and the transport asked for."""

    url: str
    transport: TransportName

    @property
    def key(self) -> str:
        """What the result cache and the in-flight table know this target by."""
        return f"{self.transport} {self.url}"


def _text_field(fields: Mapping[str, object], name: str) -> str | None:
    value = fields.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise RequestProblem(f"{name} must be a string")
    return value


def normalise_url(text: str, *, allow_http: bool) -> str:
    """``text`` as the URL to measure: https (or http with ``allow_http``), a host, no user
    name or password (a caller's credentials are never sent on), no fragment; scheme and host
    in lower case. RequestProblem otherwise."""
    if len(text) > MAX_URL_CHARS:
        raise RequestProblem(f"url is longer than {MAX_URL_CHARS} characters")
    if any(ord(c) <= 0x20 or ord(c) == 0x7F for c in text):
        raise RequestProblem("url holds a space or a control character")
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        raise RequestProblem("url is not a valid URL") from None
    scheme = parts.scheme.lower()
    if scheme == "http" and not allow_http:
        raise RequestProblem(
            "url must be https: this service measures plain http only when started with "
            "--allow-http"
        )
    if scheme not in ("http", "https"):
        raise RequestProblem("url must be an https URL")
    host = (parts.hostname or "").lower()
    if not host:
        raise RequestProblem("url has no host")
    if parts.username is not None or parts.password is not None:
        raise RequestProblem("url must not carry a user name or password")
    netloc = f"[{host}]" if ":" in host else host
    if port is not None:
        netloc = f"{netloc}:{port}"
    return urlunsplit((scheme, netloc, parts.path, parts.query, ""))


def measure_target(fields: Mapping[str, object], *, allow_http: bool) -> MeasureTarget:
    """The target a request's fields name (``url``, optional ``transport``)."""
    unknown = sorted(set(fields) - MEASURE_FIELDS)
    if unknown:
        raise RequestProblem(
            f"unknown field(s): {', '.join(unknown)[:200]}; expected url, transport"
        )
    url = _text_field(fields, "url")
    if not url:
        raise RequestProblem("url is required")
    transport = _text_field(fields, "transport") or TransportName.AUTO
    if transport not in REMOTE_TRANSPORTS:
        raise RequestProblem("transport must be auto, http or sse")
    return MeasureTarget(
        url=normalise_url(url, allow_http=allow_http), transport=TransportName(transport)
    )


def literal_refusal(url: str, policy: AddressPolicy) -> str | None:
    """The address policy's one-line refusal of a URL whose host is an IP address, else None
    (a name is checked once resolved, at every connection)."""
    host = urlsplit(url).hostname or ""
    try:
        address = parse_address(host)
    except ValueError:
        return None
    kind = policy.refusal(address)
    return None if kind is None else str(refused_address(host, address.compressed, kind))


def measured_session(m: Measurement) -> SessionStart | None:
    """The session-start cost of a measurement with a number (None without one)."""
    if not m.has_number or not isinstance(m.raw_tools_capture, list):
        return None
    captured = m.server_instructions is not NOT_CAPTURED
    instructions = m.server_instructions if captured else None
    return session_start(m.raw_tools_capture, instructions, captured=captured)


def measurement_view(m: Measurement, session: SessionStart | None) -> dict[str, Any]:
    """The public fields of one measurement, in a fixed order."""
    out: dict[str, Any] = {
        "method": METHOD,
        "status": str(m.status),
        "totalTokens": m.total_tokens,
        "toolCount": m.tool_count,
        "canonicalSha256": m.canonical_sha256,
        "tools": [
            {
                "name": t.name,
                "tokens": t.tokens,
                "descriptionTokens": t.description_tokens,
                "inputSchemaTokens": t.input_schema_tokens,
            }
            for t in m.tools
        ],
        "sessionStart": None if session is None else session.to_dict(),
        "methodologyVersion": m.methodology_version,
        "encoding": m.encoding,
        "measuredAt": m.measured_at,
        "timeoutMs": m.timeout_ms,
        "transport": m.transport,
    }
    if m.protocol_version is not None:
        out["protocolVersion"] = m.protocol_version
    if m.notes is not None:
        out["notes"] = m.notes
    return out


def json_body(value: Any) -> bytes:
    """A JSON answer's bytes (``JSON.stringify``'s text: any string, a lone surrogate too)."""
    return (stringify(value) + "\n").encode("utf-8")


def error_body(code: str, message: str) -> bytes:
    return json_body({"error": code, "message": message})


def entity_tag(body: bytes) -> str:
    """A strong ETag for a representation's bytes."""
    return f'"{sha256_hex(body)[:32]}"'


def matches_entity_tag(if_none_match: str | None, etag: str) -> bool:
    """Whether an ``If-None-Match`` header names ``etag`` (weak comparison) or is ``*``."""
    if not if_none_match:
        return False
    wanted = etag.removeprefix("W/")
    for candidate in if_none_match.split(","):
        tag = candidate.strip()
        if tag == "*" or tag.removeprefix("W/") == wanted:
            return True
    return False


def client_key(address: str | None) -> str:
    """Whose rate limit a request counts against: the IPv4 address, the /64 network of an IPv6
    address (one host commonly holds a whole /64), else the text as given."""
    if not address:
        return "unknown"
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address[:100]
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network(f"{ip}/64", strict=False))
    return str(ip)
