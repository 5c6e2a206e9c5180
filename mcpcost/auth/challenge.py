"""The ``WWW-Authenticate`` Bearer challenge of a protected MCP server (RFC 6750 section 3,
RFC 9728 section 5.1). Pure: header text in, a ``BearerChallenge`` out."""

from __future__ import annotations

import re
from dataclasses import dataclass

from mcpcost.auth.oauth_values import OAuthScope

# One auth-param: name = token | quoted-string (RFC 9110 section 11.2).
_PARAM = re.compile(
    r'\s*([!#$%&\'*+.^_`|~0-9A-Za-z-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s,]*)\s*,?',
)
_SCHEME = re.compile(r"[\s,]*([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?=\s|$|,)")
_TOKEN68 = re.compile(r"\s*[A-Za-z0-9._~+/-]+=*\s*(?:,|$)")


@dataclass(frozen=True, slots=True)
class BearerChallenge:
    """What a Bearer challenge says; every field is optional and untrusted."""

    resource_metadata: str | None = None
    scope: OAuthScope | None = None
    error: str | None = None

    @property
    def insufficient_scope(self) -> bool:
        return self.error == "insufficient_scope"


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return re.sub(r"\\(.)", r"\1", value[1:-1])
    return value


def parse_challenges(header: str) -> list[tuple[str, dict[str, str]]]:
    """Every challenge in a header value: (lower-cased scheme, params with lower-cased names)."""
    out: list[tuple[str, dict[str, str]]] = []
    pos = 0
    while pos < len(header):
        scheme = _SCHEME.match(header, pos)
        if scheme is None:
            break
        pos = scheme.end()
        params: dict[str, str] = {}
        token68 = _TOKEN68.match(header, pos)
        if token68 is not None:
            pos = token68.end()
        while pos < len(header):
            param = _PARAM.match(header, pos)
            if param is None:
                break
            params.setdefault(param.group(1).lower(), _unquote(param.group(2)))
            pos = param.end()
        out.append((scheme.group(1).lower(), params))
    return out


def parse_bearer_challenge(header: str | None) -> BearerChallenge:
    """The Bearer challenge of a ``WWW-Authenticate`` value (empty when there is none)."""
    if not header:
        return BearerChallenge()
    for scheme, params in parse_challenges(header):
        if scheme == "bearer":
            return BearerChallenge(
                resource_metadata=params.get("resource_metadata") or None,
                scope=_scope(params.get("scope")),
                error=params.get("error") or None,
            )
    return BearerChallenge()


def _scope(value: str | None) -> OAuthScope | None:
    return OAuthScope(value) if value else None
