"""``private_key_jwt`` client assertions (RFC 7523 section 2.2, RFC 7521): a short-lived JWT
signed with the client's private key. Signing uses the optional ``cryptography`` package (no
signature code of our own); ES256/384/512 and RS256/384/512 are supported."""

from __future__ import annotations

import json
import secrets
from typing import Any

from mcpcost.auth.authorization_failed import AuthorizationFailed
from mcpcost.auth.pkce import b64url

ASSERTION_LIFETIME_S = 300
_HASHES = frozenset({"256", "384", "512"})


def assertion_claims(client_id: str, audience: str, now: float) -> dict[str, Any]:
    """iss and sub are the client id; aud the token endpoint; a fresh jti; five minutes."""
    issued = int(now)
    return {
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "jti": b64url(secrets.token_bytes(16)),
        "iat": issued,
        "exp": issued + ASSERTION_LIFETIME_S,
    }


def sign_assertion(claims: dict[str, Any], private_key_pem: str, alg: str | None) -> str:
    """A compact JWS of ``claims``. AuthorizationFailed when the key or algorithm is unusable.
    With no ``alg``: ES256/384/512 by the size of an EC key, RS256 for an RSA key."""
    try:
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa, utils
    except ImportError:
        raise AuthorizationFailed(
            "private_key_jwt needs the 'cryptography' package "
            "(pip install 'mcp-context-cost[oauth-jwt]')"
        ) from None
    try:
        key = serialization.load_pem_private_key(private_key_pem.encode("utf-8"), password=None)
    except (ValueError, TypeError):
        raise AuthorizationFailed("the private key is not an unencrypted PEM key") from None
    if alg is None:
        if isinstance(key, ec.EllipticCurvePrivateKey):
            alg = {384: "ES384", 521: "ES512"}.get(key.curve.key_size, "ES256")
        else:
            alg = "RS256"
    if alg[:2] not in ("ES", "RS") or alg[2:] not in _HASHES:
        raise AuthorizationFailed(f"unsupported signing algorithm {alg[:10]!r}")
    digest = {"256": hashes.SHA256(), "384": hashes.SHA384(), "512": hashes.SHA512()}[alg[2:]]
    header = {"alg": alg, "typ": "JWT"}
    signing_input = (
        b64url(json.dumps(header, separators=(",", ":")).encode())
        + "."
        + b64url(json.dumps(claims, separators=(",", ":")).encode())
    ).encode("ascii")
    if alg.startswith("ES"):
        if not isinstance(key, ec.EllipticCurvePrivateKey):
            raise AuthorizationFailed(f"{alg} needs an EC private key")
        der = key.sign(signing_input, ec.ECDSA(digest))
        r, s = utils.decode_dss_signature(der)
        size = (key.curve.key_size + 7) // 8
        signature = r.to_bytes(size, "big") + s.to_bytes(size, "big")
    else:
        if not isinstance(key, rsa.RSAPrivateKey):
            raise AuthorizationFailed(f"{alg} needs an RSA private key")
        signature = key.sign(signing_input, padding.PKCS1v15(), digest)
    return signing_input.decode("ascii") + "." + b64url(signature)
