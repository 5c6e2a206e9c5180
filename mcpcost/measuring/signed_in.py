"""Measuring a remote server signed in with CI credentials: ``measure_server`` with an OAuth
authorizer (``MeasureOptions.sign_in``), and the record saying the number was made signed in.

``authorization: "oauth"`` goes into a measurement that has a number and was made with an access
token; never the token, the client or the account. ``environment_sign_in`` is the no-person form
for CI and the Action: credentials only from ``MCPCOST_OAUTH_*`` variables, no browser, nothing
read from or written to a token store (see docs/AUTH.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from mcpcost.auth.authorizer import OAuthAuthorizer
from mcpcost.auth.credentials_env import BrowserMode, settings_from_env
from mcpcost.core.spec import ServerSpec

if TYPE_CHECKING:  # the flow (and requests behind it) loads only when a server needs it
    from mcpcost.auth.authorizer import OAuthAuthorizer


def environment_sign_in(
    spec: ServerSpec, environ: Mapping[str, str], *, issuer_required: bool = False
) -> OAuthAuthorizer | None:
    """The authorizer ``MeasureOptions.sign_in`` takes for a remote server when the environment
    has CI credentials; None for a local server or without credentials. ``issuer_required``:
    configured secrets go only to ``MCPCOST_OAUTH_ISSUER`` (the Action)."""
    settings = replace(settings_from_env(environ), issuer_required=issuer_required)
    if spec.url is None or not settings.can_sign_in:
        return None

    settings = replace(settings, browser=BrowserMode.NONE, use_store=False)
    return OAuthAuthorizer(spec.url, settings)
