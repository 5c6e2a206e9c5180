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
    # A remote whose connection is refused or whose host name does not resolve.
    UNREACHABLE = "unreachable"
    # A remote that answers HTTP 404 or 410: nothing serves MCP at that address any more.
    GONE = "gone"
    # A registry entry that cannot be launched without a value nobody but its user has (a
    # required argument or URL variable without a default); never launched with a guess.
    NEEDS_CONFIG = "needs-config"
    # A registry entry whose registry status is deprecated or deleted: recorded, not launched.
    INACTIVE = "inactive"
    # A registry entry this project cannot launch at all (a package type or transport it does
    # not run); the note says which.
    OTHER = "other"

    @property
    def has_number(self) -> bool:
        """True for the statuses that carry a token count."""
        return self in (Status.MEASURED, Status.DYNAMIC)


GOOD_STATUSES = frozenset({Status.MEASURED, Status.DYNAMIC})
