"""PKCE (RFC 7636) with the S256 method, and the ``state`` value. Random values come from
``secrets``; the transform is pure."""

from __future__ import annotations

import base64
import secrets
from dataclasses import dataclass, field

from mcpcost.auth.oauth_values import OAuthState
from mcpcost.core.digest import sha256_digest


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def s256_challenge(verifier: str) -> str:
    """BASE64URL(SHA256(ASCII(code_verifier)))."""
    return b64url(sha256_digest(verifier.encode("ascii")))


@dataclass(frozen=True, slots=True)
class PKCEPair:
    verifier: str = field(repr=False)
    challenge: str
    method: str = "S256"


def new_pkce() -> PKCEPair:
    verifier = b64url(secrets.token_bytes(48))  # 64 characters, within RFC 7636's 43..128
    return PKCEPair(verifier, s256_challenge(verifier))


def new_state() -> OAuthState:
    return OAuthState(b64url(secrets.token_bytes(24)))
