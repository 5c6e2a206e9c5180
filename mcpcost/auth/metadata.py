"""Where OAuth metadata lives and what it says (pure): protected resource metadata (RFC 9728),
authorization server metadata (RFC 8414, OpenID Connect Discovery), and the 2025-03-26 fallback
endpoints. Documents are untrusted: only string fields and string lists are read."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

PRM_WELL_KNOWN = "/.well-known/oauth-protected-resource"
AS_WELL_KNOWN = "/.well-known/oauth-authorization-server"
OIDC_WELL_KNOWN = "/.well-known/openid-configuration"


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme, parts.netloc


def _path(url: str) -> str:
    return urlsplit(url).path.rstrip("/")


def protected_resource_metadata_urls(server_url: str, from_challenge: str | None) -> list[str]:
    """Candidates in the spec's order: the challenge's ``resource_metadata``, then the
    path-based well-known location, then the root one."""
    scheme, netloc = _origin(server_url)
    path = _path(server_url)
    found: list[str] = [from_challenge] if from_challenge else []
    if path:
        found.append(urlunsplit((scheme, netloc, PRM_WELL_KNOWN + path, "", "")))
    found.append(urlunsplit((scheme, netloc, PRM_WELL_KNOWN, "", "")))
    return list(dict.fromkeys(found))


def authorization_server_metadata_urls(issuer: str) -> list[str]:
    """Candidates in the MCP spec's order. With a path component: RFC 8414 path insertion,
    OpenID path insertion, OpenID path appending; without one: RFC 8414, then OpenID."""
    scheme, netloc = _origin(issuer)
    path = _path(issuer)
    if path:
        paths = [AS_WELL_KNOWN + path, OIDC_WELL_KNOWN + path, path + OIDC_WELL_KNOWN]
    else:
        paths = [AS_WELL_KNOWN, OIDC_WELL_KNOWN]
    return [urlunsplit((scheme, netloc, p, "", "")) for p in paths]


def _text(doc: Mapping[str, Any], name: str) -> str | None:
    value = doc.get(name)
    return value if isinstance(value, str) and value else None


def _texts(doc: Mapping[str, Any], name: str) -> tuple[str, ...] | None:
    value = doc.get(name)
    if not isinstance(value, list):
        return None
    return tuple(v for v in value if isinstance(v, str) and v)


def is_http_url(value: str) -> bool:
    parts = urlsplit(value)
    return parts.scheme in ("https", "http") and bool(parts.netloc)


@dataclass(frozen=True, slots=True)
class ProtectedResourceMetadata:
    """RFC 9728 section 2: the fields an MCP client uses."""

    resource: str | None
    authorization_servers: tuple[str, ...]
    scopes_supported: tuple[str, ...] | None


@dataclass(frozen=True, slots=True)
class AuthorizationServerMetadata:
    """RFC 8414 section 2 (and OpenID Discovery's same-named fields) that a client uses."""

    issuer: str | None
    authorization_endpoint: str | None
    token_endpoint: str
    registration_endpoint: str | None = None
    revocation_endpoint: str | None = None
    scopes_supported: tuple[str, ...] | None = None
    grant_types_supported: tuple[str, ...] | None = None
    token_endpoint_auth_methods_supported: tuple[str, ...] | None = None
    code_challenge_methods_supported: tuple[str, ...] | None = None
    client_id_metadata_document_supported: bool = False


def parse_protected_resource_metadata(doc: Any) -> ProtectedResourceMetadata | None:
    if not isinstance(doc, dict):
        return None
    servers = tuple(s for s in _texts(doc, "authorization_servers") or () if is_http_url(s))
    resource = _text(doc, "resource")
    if not servers and resource is None:
        return None
    return ProtectedResourceMetadata(resource, servers, _texts(doc, "scopes_supported"))


def parse_authorization_server_metadata(doc: Any) -> AuthorizationServerMetadata | None:
    if not isinstance(doc, dict):
        return None
    token = _text(doc, "token_endpoint")
    if token is None or not is_http_url(token):
        return None
    auth = _text(doc, "authorization_endpoint")
    registration = _text(doc, "registration_endpoint")
    revocation = _text(doc, "revocation_endpoint")
    return AuthorizationServerMetadata(
        issuer=_text(doc, "issuer"),
        authorization_endpoint=auth if auth and is_http_url(auth) else None,
        token_endpoint=token,
        registration_endpoint=registration if registration and is_http_url(registration) else None,
        revocation_endpoint=revocation if revocation and is_http_url(revocation) else None,
        scopes_supported=_texts(doc, "scopes_supported"),
        grant_types_supported=_texts(doc, "grant_types_supported"),
        token_endpoint_auth_methods_supported=_texts(doc, "token_endpoint_auth_methods_supported"),
        code_challenge_methods_supported=_texts(doc, "code_challenge_methods_supported"),
        client_id_metadata_document_supported=doc.get("client_id_metadata_document_supported")
        is True,
    )


def fallback_authorization_server(server_url: str) -> AuthorizationServerMetadata:
    """The 2025-03-26 default endpoints at the MCP server's origin, for a server that publishes
    no metadata at all."""
    scheme, netloc = _origin(server_url)
    base = urlunsplit((scheme, netloc, "", "", ""))
    return AuthorizationServerMetadata(
        issuer=base,
        authorization_endpoint=base + "/authorize",
        token_endpoint=base + "/token",
        registration_endpoint=base + "/register",
    )


def origin_of(url: str) -> str:
    scheme, netloc = _origin(url)
    return urlunsplit((scheme, netloc, "", "", ""))


def canonical_resource(server_url: str) -> str:
    """RFC 8707 / MCP canonical server URI: lower-case scheme and host, no fragment, no query,
    no trailing slash."""
    parts = urlsplit(server_url)
    path = parts.path.rstrip("/") if parts.path != "/" else ""
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, "", ""))


def resource_covers(resource: str, server_url: str) -> bool:
    """True when a metadata ``resource`` names this server: same origin, and its path is the
    server's path or a parent of it."""
    want = urlsplit(canonical_resource(server_url))
    have = urlsplit(canonical_resource(resource))
    if (have.scheme, have.netloc) != (want.scheme, want.netloc):
        return False
    prefix = have.path.rstrip("/")
    return want.path == prefix or want.path.startswith(prefix + "/")


def same_issuer(named: str | None, expected: str) -> bool:
    """Whether a metadata document's ``issuer`` is the one it was fetched for (a trailing slash
    aside). A document without one is accepted: OpenID-only servers sometimes omit it."""
    return named is None or named.rstrip("/") == expected.rstrip("/")


def secure_endpoint(url: str) -> bool:
    """Whether sign-in traffic may go to ``url``: HTTPS, or plain HTTP to a loopback host
    (``localhost``, ``127.0.0.0/8``, ``::1``) that never leaves the machine."""
    parts = urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return True
    if parts.scheme != "http" or not parts.hostname:
        return False
    host = parts.hostname.rstrip(".").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
