"""Signing out: revoke a stored sign-in's tokens at the authorization server (RFC 7009)."""

from __future__ import annotations

import requests

from mcpcost.auth.grants import ClientAuthMethod, token_request
from mcpcost.auth.store import SignIn


def revoke_sign_in(sign_in: SignIn, http: requests.Session, timeout_s: float) -> bool:
    """Revoke the refresh and access tokens of a sign-in (RFC 7009) when the server names a
    revocation endpoint; True when it accepted both. Best effort: errors read as False."""
    if sign_in.revocation_endpoint is None:
        return False
    if sign_in.client.auth_method is ClientAuthMethod.PRIVATE_KEY_JWT:
        return False  # a fresh assertion would need the key, which is not stored
    ok = True
    for value, hint in (
        (sign_in.tokens.refresh_token, "refresh_token"),
        (sign_in.tokens.access_token, "access_token"),
    ):
        if not value:
            continue
        headers, form = token_request(sign_in.client, {"token": value, "token_type_hint": hint})
        try:
            with http.post(
                sign_in.revocation_endpoint,
                data=form,
                headers=headers,
                timeout=timeout_s,
                stream=True,  # only the status matters: the body is never read
            ) as resp:
                ok = ok and resp.status_code == 200
        except requests.RequestException:
            ok = False
    return ok
