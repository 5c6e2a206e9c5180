"""Why an authorization attempt failed (a reason a person can act on; never a secret)."""

from __future__ import annotations

from mcpcost.errors import TransportError


class AuthorizationFailed(TransportError):
    """No credential or flow could produce a usable access token; ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
