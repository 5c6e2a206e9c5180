"""Sign in to a server before measuring it: send an unauthenticated ``initialize`` (or open the
legacy SSE stream), and let the authorizer answer whatever challenge comes back. Used by
``mcpcost auth login`` and ``audit --login`` so that a person's sign-in happens before, not
inside, the measurement's time budget."""

from __future__ import annotations

from enum import Enum

import requests

from mcpcost.auth.authorization_failed import AuthorizationFailed
from mcpcost.auth.authorizer import OAuthAuthorizer
from mcpcost.runtime.http_session import BoundedSession
from mcpcost.transports.http_answers import USER_AGENT

PROBE_ROUNDS = 5
_INITIALIZE = (
    b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
    b'"capabilities":{},"clientInfo":{"name":"mcp-context-cost","version":"sign-in probe"}}}'
)


class SignInOutcome(Enum):
    OPEN = "open"  # the server answered without asking for authorization
    SIGNED_IN = "signed-in"  # a token is in hand and the server accepted it


def _send(
    session: requests.Session, url: str, sse: bool, auth: str | None, timeout_s: float
) -> requests.Response:
    headers = {"User-Agent": USER_AGENT}
    if auth is not None:
        headers["Authorization"] = auth
    if sse:
        headers["Accept"] = "text/event-stream"
        return session.get(url, headers=headers, timeout=timeout_s, stream=True)
    headers["Accept"] = "application/json, text/event-stream"
    headers["Content-Type"] = "application/json"
    return session.post(url, data=_INITIALIZE, headers=headers, timeout=timeout_s, stream=True)


def sign_in_to(authorizer: OAuthAuthorizer, url: str, timeout_s: float) -> SignInOutcome:
    """Probe ``url`` and sign in if it asks. AuthorizationFailed when it could not be done."""
    session = BoundedSession()
    sse = False
    try:
        for _ in range(PROBE_ROUNDS):
            sent = authorizer.authorization_header()
            try:
                with _send(session, url, sse, sent, timeout_s) as resp:
                    status = resp.status_code
                    www = resp.headers.get("WWW-Authenticate")
            except requests.RequestException as exc:
                raise AuthorizationFailed(f"unreachable ({type(exc).__name__})") from None
            if status in (401, 403):
                if authorizer.answer_challenge(status, www, sent):
                    continue
                raise AuthorizationFailed(f"HTTP {status} and no OAuth challenge to answer")
            if status in (400, 404, 405) and not sse:
                sse = True  # maybe a legacy HTTP+SSE endpoint: its GET is what is protected
                continue
            return SignInOutcome.SIGNED_IN if sent is not None else SignInOutcome.OPEN
        raise AuthorizationFailed("the server kept refusing after signing in")
    finally:
        session.close()
