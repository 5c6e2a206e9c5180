"""The MCP authorization client (OAuth 2.1 as the MCP specification profiles it).

Pure pieces: ``challenge`` (WWW-Authenticate), ``metadata`` (where metadata lives, what it says),
``grants`` (request shapes, token responses), ``pkce``, ``settings``. IO: ``authorizer`` (the
flow), ``loopback`` (the redirect receiver), ``store`` (keyring or 0600 file),
``client_assertion`` (private_key_jwt signing). The HTTP transports depend only on the
``RequestAuthorizer`` protocol below. See docs/AUTH.md.
"""

from __future__ import annotations

from typing import Protocol


class RequestAuthorizer(Protocol):
    """What an HTTP transport asks of an authorization client."""

    def authorization_header(self) -> str | None:
        """The ``Authorization`` value for the next request, or None to send none."""

    def answer_challenge(self, status: int, www_authenticate: str | None, sent: str | None) -> bool:
        """After a 401/403 to a request that carried ``sent``: True to send it again."""
