"""Dynamic client registration (RFC 7591): the client identity of last resort."""

from __future__ import annotations

import requests

from mcpcost.auth.authorization_failed import AuthorizationFailed
from mcpcost.auth.grants import (
    ClientIdentity,
    choose_auth_method,
    parse_registration,
    registration_request,
)
from mcpcost.auth.metadata import AuthorizationServerMetadata
from mcpcost.core.jsonvalue import parse_json
from mcpcost.errors import JSONSyntaxError
from mcpcost.runtime.http_body import BodyReadFailed, ReadLimits, read_body

MAX_REGISTRATION_BYTES = 1 << 20


def register_client(
    http: requests.Session,
    server: AuthorizationServerMetadata,
    redirect_uri: str,
    *,
    timeout_s: float,
) -> ClientIdentity:
    """Register a public client for ``redirect_uri`` at the server's registration endpoint."""
    assert server.registration_endpoint is not None
    try:
        with http.post(
            server.registration_endpoint,
            json=registration_request(redirect_uri, client_credentials=False),
            headers={"Accept": "application/json"},
            timeout=timeout_s,
            allow_redirects=False,
            stream=True,
        ) as resp:
            status = resp.status_code
            if status not in (200, 201):
                raise AuthorizationFailed(f"client registration refused (HTTP {status})")
            body = read_body(resp, ReadLimits(MAX_REGISTRATION_BYTES, timeout_s))
    except (requests.RequestException, OSError) as exc:
        raise AuthorizationFailed(
            f"client registration unreachable ({type(exc).__name__})"
        ) from None
    except BodyReadFailed as exc:
        raise AuthorizationFailed(f"client registration answer unreadable: {exc}") from None
    try:
        registration = parse_registration(parse_json(body))
    except JSONSyntaxError:
        raise AuthorizationFailed("client registration answered with no JSON") from None
    method = choose_auth_method(
        registration.client_secret is not None, registration.auth_method, server
    )
    return ClientIdentity(registration.client_id, registration.client_secret, method)
