"""What a user or a CI job makes available for signing in: pre-registered client credentials,
a refresh token, a private key, a client ID metadata document URL, and whether a person may be
sent to a browser. Read from the environment (pure: a mapping in, settings out).

Environment (all optional; secrets only ever come from here, never from flags):
  MCPCOST_OAUTH_CLIENT_ID            a pre-registered client id
  MCPCOST_OAUTH_CLIENT_SECRET        its secret (client_secret_basic / client_secret_post)
  MCPCOST_OAUTH_PRIVATE_KEY          a PEM private key for private_key_jwt
  MCPCOST_OAUTH_SIGNING_ALG          ES256 (default for EC keys) or RS256 ...
  MCPCOST_OAUTH_REFRESH_TOKEN        a refresh token issued to that client
  MCPCOST_OAUTH_GRANT                client_credentials for a machine sign-in; else authorization_code
  MCPCOST_OAUTH_SCOPE                scopes to ask for instead of the server's
  MCPCOST_OAUTH_CLIENT_METADATA_URL  an https URL of our client ID metadata document
  MCPCOST_OAUTH_ISSUER               the authorization server (issuer) the credentials above
                                     were made for: they are sent to no other (docs/AUTH.md)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

from mcpcost.auth.oauth_values import OAuthScope

ENV_PREFIX = "MCPCOST_OAUTH_"
SECRET_ENV = (
    "MCPCOST_OAUTH_CLIENT_SECRET",
    "MCPCOST_OAUTH_PRIVATE_KEY",
    "MCPCOST_OAUTH_REFRESH_TOKEN",
)


class Grant(Enum):
    AUTHORIZATION_CODE = "authorization_code"
    CLIENT_CREDENTIALS = "client_credentials"


class BrowserMode(Enum):
    """How a person (or a test) is sent to the authorization URL."""

    NONE = "none"  # no interactive sign-in: only stored or configured credentials
    SYSTEM = "system"  # open the system browser; print the URL when there is none
    PRINT = "print"  # print the URL on stderr and wait for the redirect
    FOLLOW = "follow"  # GET the URL and follow redirects (servers that approve at once)


@dataclass(frozen=True, slots=True)
class OAuthSettings:
    grant: Grant = Grant.AUTHORIZATION_CODE
    client_id: str | None = None
    client_secret: str | None = field(default=None, repr=False)
    private_key_pem: str | None = field(default=None, repr=False)
    signing_alg: str | None = None
    refresh_token: str | None = field(default=None, repr=False)
    scope: OAuthScope | None = None
    client_metadata_url: str | None = None
    issuer: str | None = None  # the only issuer the configured secrets may be sent to
    # the Action: configured secrets are sent only when ``issuer`` names where they go
    issuer_required: bool = False
    browser: BrowserMode = BrowserMode.NONE
    use_store: bool = True
    login_timeout_s: float = 300.0

    @property
    def secret_values(self) -> tuple[str, ...]:
        values = (self.client_secret, self.private_key_pem, self.refresh_token)
        return tuple(v for v in values if v)

    @property
    def has_machine_credentials(self) -> bool:
        return self.grant is Grant.CLIENT_CREDENTIALS and self.client_id is not None

    @property
    def can_sign_in(self) -> bool:
        """Whether anything beyond a stored sign-in could produce a token."""
        return (
            self.browser is not BrowserMode.NONE
            or self.has_machine_credentials
            or (self.client_id is not None and self.refresh_token is not None)
        )

    def refuses_issuer(self, discovered_for: str | None, named: str | None) -> str | None:
        """Why the configured secrets must not go to the authorization server whose metadata
        was fetched for issuer ``discovered_for`` and names itself ``named``; None when they
        may (no secret configured, or the issuer they are bound to)."""
        if not self.secret_values:
            return None
        if self.issuer is None:
            if not self.issuer_required:
                return None
            return (
                "client credentials are configured without MCPCOST_OAUTH_ISSUER, the "
                "authorization server they were made for: not sending them"
            )
        bound = self.issuer.rstrip("/")
        if (discovered_for or "").rstrip("/") != bound or (named or "").rstrip("/") != bound:
            shown = (named or discovered_for or "an unnamed server")[:200]
            return (
                f"the configured client credentials are for {bound[:200]}, not {shown}: "
                "not sending them"
            )
        return None


def settings_from_env(environ: Mapping[str, str]) -> OAuthSettings:
    def get(name: str) -> str | None:
        value = environ.get(ENV_PREFIX + name, "").strip()
        return value or None

    grant = Grant.AUTHORIZATION_CODE
    if (get("GRANT") or "").lower() == Grant.CLIENT_CREDENTIALS.value:
        grant = Grant.CLIENT_CREDENTIALS
    key = environ.get(ENV_PREFIX + "PRIVATE_KEY") or None
    return OAuthSettings(
        grant=grant,
        client_id=get("CLIENT_ID"),
        client_secret=get("CLIENT_SECRET"),
        private_key_pem=key,
        signing_alg=get("SIGNING_ALG"),
        refresh_token=get("REFRESH_TOKEN"),
        scope=OAuthScope(scope) if (scope := get("SCOPE")) else None,
        client_metadata_url=get("CLIENT_METADATA_URL"),
        issuer=get("ISSUER"),
    )
