"""Measurement statuses: every server in published results has exactly one."""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    """Outcome of measuring one server."""

    MEASURED = "measured"
    DYNAMIC = "dynamic"
    AUTH_REQUIRED = "auth-required"
    STARTUP_FAILURE = "startup-failure"
    TIMEOUT = "timeout"
    REMOTE_AUTH_WALL = "remote-auth-wall"
    NOT_YET_RUN = "not-yet-run"

    @property
    def has_number(self) -> bool:
        """True for the statuses that carry a token count."""
        return self in (Status.MEASURED, Status.DYNAMIC)


GOOD_STATUSES = frozenset({Status.MEASURED, Status.DYNAMIC})
