"""OAuth 2.1 request shapes and token responses (pure): the authorization URL, token endpoint
requests for each client authentication method, dynamic client registration (RFC 7591), and
parsing what the token endpoint answers. Records holding secrets leave them out of ``repr``."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any
from urllib.parse import quote_plus, urlencode, urlsplit, urlunsplit

from mcpcost.auth.authorization_failed import AuthorizationFailed
from mcpcost.auth.metadata import AuthorizationServerMetadata
from mcpcost.auth.oauth_values import OAuthScope, OAuthState

JWT_BEARER_ASSERTION = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
CLIENT_NAME = "mcp-context-cost"
EXPIRY_MARGIN_S = 30.0


class ClientAuthMethod(Enum):
    """Token endpoint client authentication (RFC 7591 ``token_endpoint_auth_method`` values)."""

    CLIENT_SECRET_BASIC = "client_secret_basic"
    CLIENT_SECRET_POST = "client_secret_post"
    NONE = "none"
    PRIVATE_KEY_JWT = "private_key_jwt"


@dataclass(frozen=True, slots=True)
class ClientIdentity:
    """Who we are to one authorization server."""

    client_id: str
    client_secret: str | None = field(default=None, repr=False)
    auth_method: ClientAuthMethod = ClientAuthMethod.NONE
    private_key_pem: str | None = field(default=None, repr=False)
    signing_alg: str | None = None


@dataclass(frozen=True, slots=True)
class TokenSet:
    """What the token endpoint granted. ``expires_at`` is seconds since the epoch, or None."""

    access_token: str = field(repr=False)
    token_type: str = "Bearer"
    refresh_token: str | None = field(default=None, repr=False)
    expires_at: float | None = None
    scope: OAuthScope | None = None

    def usable_at(self, now: float) -> bool:
        return self.expires_at is None or now < self.expires_at - EXPIRY_MARGIN_S

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"access_token": self.access_token, "token_type": self.token_type}
        if self.refresh_token is not None:
            out["refresh_token"] = self.refresh_token
        if self.expires_at is not None:
            out["expires_at"] = self.expires_at
        if self.scope is not None:
            out["scope"] = self.scope
        return out

    @classmethod
    def from_json(cls, doc: Any) -> TokenSet | None:
        if not isinstance(doc, dict) or not isinstance(doc.get("access_token"), str):
            return None
        refresh = doc.get("refresh_token")
        expires = doc.get("expires_at")
        scope = doc.get("scope")
        kind = doc.get("token_type")
        return cls(
            access_token=doc["access_token"],
            token_type=kind if isinstance(kind, str) else "Bearer",
            refresh_token=refresh if isinstance(refresh, str) else None,
            expires_at=float(expires) if isinstance(expires, int | float) else None,
            scope=OAuthScope(scope) if isinstance(scope, str) else None,
        )


def choose_auth_method(
    has_secret: bool,
    registered: str | None,
    server: AuthorizationServerMetadata,
) -> ClientAuthMethod:
    """The registration's method when it named one we know; else, with a secret, basic when the
    server supports it (RFC 8414's default when it lists nothing), else post; else none."""
    known = {m.value: m for m in ClientAuthMethod}
    if registered in known:
        return known[registered]
    if not has_secret:
        return ClientAuthMethod.NONE
    supported = server.token_endpoint_auth_methods_supported
    if supported is None or "client_secret_basic" in supported:
        return ClientAuthMethod.CLIENT_SECRET_BASIC
    if "client_secret_post" in supported:
        return ClientAuthMethod.CLIENT_SECRET_POST
    return ClientAuthMethod.CLIENT_SECRET_BASIC


def authorization_url(
    endpoint: str,
    *,
    client_id: str,
    redirect_uri: str,
    code_challenge: str,
    state: OAuthState,
    scope: OAuthScope | None,
    resource: str | None,
) -> str:
    """The authorization request (response_type=code, PKCE S256), appended to the endpoint's own
    query if it has one."""
    params = [
        ("response_type", "code"),
        ("client_id", client_id),
        ("redirect_uri", redirect_uri),
        ("code_challenge", code_challenge),
        ("code_challenge_method", "S256"),
        ("state", state),
    ]
    if scope:
        params.append(("scope", scope))
    if resource:
        params.append(("resource", resource))
    parts = urlsplit(endpoint)
    query = "&".join(q for q in (parts.query, urlencode(params)) if q)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, ""))


def basic_credentials(client_id: str, secret: str) -> str:
    """RFC 6749 section 2.3.1: form-urlencode each part, then Basic-encode ``id:secret``."""
    pair = f"{quote_plus(client_id, safe='')}:{quote_plus(secret, safe='')}"
    return "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii")


def token_request(
    identity: ClientIdentity, params: Mapping[str, str], assertion: str | None = None
) -> tuple[dict[str, str], dict[str, str]]:
    """(headers, form) of a token endpoint POST for this client's authentication method.
    ``assertion`` is the signed JWT when the method is private_key_jwt."""
    headers = {"Accept": "application/json"}
    form = dict(params)
    method = identity.auth_method
    if method is ClientAuthMethod.CLIENT_SECRET_BASIC and identity.client_secret is not None:
        headers["Authorization"] = basic_credentials(identity.client_id, identity.client_secret)
    elif method is ClientAuthMethod.CLIENT_SECRET_POST and identity.client_secret is not None:
        form["client_id"] = identity.client_id
        form["client_secret"] = identity.client_secret
    elif method is ClientAuthMethod.PRIVATE_KEY_JWT:
        if assertion is None:
            raise AuthorizationFailed("private_key_jwt needs a signed client assertion")
        form["client_id"] = identity.client_id
        form["client_assertion_type"] = JWT_BEARER_ASSERTION
        form["client_assertion"] = assertion
    else:
        form["client_id"] = identity.client_id
    return headers, form


def registration_request(redirect_uri: str | None, *, client_credentials: bool) -> dict[str, Any]:
    """RFC 7591 client metadata for a public client of ours (or a machine client)."""
    if client_credentials:
        return {
            "client_name": CLIENT_NAME,
            "grant_types": ["client_credentials"],
            "token_endpoint_auth_method": "client_secret_basic",
        }
    return {
        "client_name": CLIENT_NAME,
        "redirect_uris": [redirect_uri] if redirect_uri else [],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        "application_type": "native",
    }


@dataclass(frozen=True, slots=True)
class Registration:
    """What dynamic registration returned."""

    client_id: str
    client_secret: str | None = field(default=None, repr=False)
    auth_method: str | None = None


def parse_registration(doc: Any) -> Registration:
    if not isinstance(doc, dict) or not isinstance(doc.get("client_id"), str):
        raise AuthorizationFailed("client registration answered without a client_id")
    secret = doc.get("client_secret")
    method = doc.get("token_endpoint_auth_method")
    return Registration(
        client_id=doc["client_id"],
        client_secret=secret if isinstance(secret, str) and secret else None,
        auth_method=method if isinstance(method, str) else None,
    )


def parse_token_response(
    status: int, doc: Any, now: float, previous_refresh: str | None = None
) -> TokenSet:
    """A TokenSet from a token endpoint answer, or AuthorizationFailed with the server's error
    code (its description is not echoed: it is server text). A refresh answer without a new
    refresh token keeps the previous one (RFC 6749 section 6)."""
    if not isinstance(doc, dict):
        raise AuthorizationFailed(f"token endpoint answered HTTP {status} without a JSON object")
    error = doc.get("error")
    if status >= 400 or error is not None:
        code = error if isinstance(error, str) and error.isascii() and len(error) < 64 else ""
        raise AuthorizationFailed(
            f"token endpoint refused (HTTP {status}{', ' + code if code else ''})"
        )
    token = doc.get("access_token")
    if not isinstance(token, str) or not token:
        raise AuthorizationFailed("token endpoint answered without an access_token")
    kind = doc.get("token_type")
    if isinstance(kind, str) and kind.lower() != "bearer":
        raise AuthorizationFailed(f"token endpoint issued a {kind[:20]!r} token, not Bearer")
    expires_in = doc.get("expires_in")
    refresh = doc.get("refresh_token")
    scope = doc.get("scope")
    return TokenSet(
        access_token=token,
        refresh_token=refresh if isinstance(refresh, str) and refresh else previous_refresh,
        expires_at=now + float(expires_in)
        if isinstance(expires_in, int | float) and not isinstance(expires_in, bool)
        else None,
        scope=OAuthScope(scope) if isinstance(scope, str) else None,
    )


def scope_union(*scopes: OAuthScope | None) -> OAuthScope | None:
    """The scopes of every argument, each once, in first-seen order (None when empty)."""
    words: list[str] = []
    for scope in scopes:
        words.extend(w for w in (scope or "").split() if w not in words)
    return OAuthScope(" ".join(words)) if words else None
