"""The MCP authorization client (OAuth 2.1 as the MCP specification profiles it).

Pure pieces:

* ``challenge``             the Bearer challenge of a ``WWW-Authenticate`` header
* ``metadata``              where OAuth metadata lives and what it says
* ``grants``                request shapes, token responses, client authentication methods
* ``pkce``                  PKCE S256 and the ``state`` value
* ``oauth_values``          ``OAuthScope`` and ``OAuthState``: OAuth's text values, typed apart
* ``credentials_env``       the sign-in settings a user or CI job gives through the environment
* ``client_assertion``      private_key_jwt assertions (signed with ``cryptography``)
* ``authorization_failed``  ``AuthorizationFailed``, a reason a person can act on

IO:

* ``authorizer``    the flow: discovery, registration, the grant, refresh, step-up
* ``registration``  dynamic client registration (RFC 7591)
* ``revocation``    signing out: revoking a stored sign-in's tokens (RFC 7009)
* ``loopback``      the redirect receiver on 127.0.0.1
* ``store``         where sign-ins are kept: the OS keyring or a 0600 file

The HTTP transports depend only on the ``RequestAuthorizer`` protocol below. See docs/AUTH.md.
"""

from __future__ import annotations

from typing import Protocol


class RequestAuthorizer(Protocol):
    """What an HTTP transport asks of an authorization client."""

    def authorization_header(self) -> str | None:
        """The ``Authorization`` value for the next request, or None to send none."""

    def answer_challenge(self, status: int, www_authenticate: str | None, sent: str | None) -> bool:
        """After a 401/403 to a request that carried ``sent``: True to send it again."""
