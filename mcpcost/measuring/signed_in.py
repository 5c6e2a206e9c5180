"""Measuring a remote server signed in: ``measure_server`` with an OAuth authorizer on the
transports, and the record saying the number was made signed in.

``authorization: "oauth"`` goes into a measurement that has a number and was made with an access
token; never the token, the client or the account. ``measure_with_environment_sign_in`` is the
no-person form for CI and the Action: credentials only from ``MCPCOST_OAUTH_*`` variables, no
browser, nothing read from or written to a token store (see docs/AUTH.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from mcpcost.auth.authorizer import OAuthAuthorizer
from mcpcost.auth.credentials_env import BrowserMode, settings_from_env
from mcpcost.core.model import Authorization, Measurement
from mcpcost.core.spec import ServerSpec
from mcpcost.measuring.server import measure_server
from mcpcost.transports.open import authorized_opener

if TYPE_CHECKING:  # the flow (and requests behind it) loads only when a server needs it
    from mcpcost.auth.authorizer import OAuthAuthorizer

AUTHORIZATION_OAUTH: Authorization = "oauth"


def mark_authorized(measurement: Measurement, authorizer: OAuthAuthorizer | None) -> Measurement:
    """Record that a number was measured signed in (never the token or the identity)."""
    if authorizer is None or not authorizer.used or not measurement.has_number:
        return measurement
    return replace(measurement, authorization=AUTHORIZATION_OAUTH)


def measure_with_environment_sign_in(
    spec: ServerSpec,
    *,
    timeout_s: float,
    environ: Mapping[str, str],
    issuer_required: bool = False,
) -> Measurement:
    """``measure_server``, signing in to a remote server with CI credentials when the
    environment has them (a local server, or no credentials: exactly ``measure_server``).
    ``issuer_required``: configured secrets go only to ``MCPCOST_OAUTH_ISSUER`` (the Action)."""
    settings = replace(settings_from_env(environ), issuer_required=issuer_required)
    if spec.url is None or not settings.can_sign_in:
        return measure_server(spec, timeout_s=timeout_s)

    settings = replace(settings, browser=BrowserMode.NONE, use_store=False)
    authorizer = OAuthAuthorizer(spec.url, settings)
    measured = measure_server(
        spec, timeout_s=timeout_s, open_transport=authorized_opener(authorizer)
    )
    return mark_authorized(measured, authorizer)
