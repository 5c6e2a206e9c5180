"""Which status a failed capture gets. Pure: typed error in, (status, message) out.

Order: the timer, or a connection to a remote server that was never made (``timeout``); a
remote whose name does not resolve or that refuses the connection (``unreachable``); HTTP
401/403 (``remote-auth-wall`` when OAuth protected-resource metadata is advertised, else
``auth-required``); HTTP 404/410 (``gone``); JSON-RPC -32001 (``auth-required``); then, only as
a last resort, a narrow phrase test on what the server itself said (its JSON-RPC error message, or
stderr lines that are not stack frames). Everything else, including process exits, spawn
failures, protocol and guard errors, is ``startup-failure``. Stack-trace noise such as
``PublicKeyToken`` or ``Unexpected token`` never matches: the phrases need an auth meaning.
"""

from __future__ import annotations

import re

from mcpcost.auth.authorization_failed import AuthorizationFailed
from mcpcost.core.status import Status
from mcpcost.errors import McpcostError
from mcpcost.transports.failures import (
    AUTH_REQUIRED_CODE,
    ConnectTimedOut,
    HostUnreachable,
    HTTPStatusError,
    RPCError,
    TransportClosed,
    TransportTimeout,
)

AUTH_PHRASES = re.compile(
    r"(?i)\b("
    r"unauthori[sz]ed|not authenticated|unauthenticated|authentication (is )?(required|failed)|"
    r"(authori[sz]ation|login|sign[- ]in) (is )?required|"
    r"(missing|invalid|no|expired) (an? )?(api[ _-]?key|access token|auth token|bearer token|"
    r"credentials?)|"
    r"(api[ _-]?key|access token|credentials?) (is |are )?(missing|required|not (found|set|provided)|invalid)|"
    r"credentials not found|please (log ?in|authenticate)"
    r")\b"
)
_FRAME = re.compile(
    r"^\s*(at\s|File \"|Traceback|\S+\.(js|ts|py|cs|java|go|rs):\d+|"
    r"[\w.]+(Exception|Error):|---|\^)"
)


def stderr_message_lines(stderr: str) -> list[str]:
    """stderr lines that read as messages, not stack frames or code excerpts."""
    return [ln for ln in stderr.splitlines() if ln.strip() and not _FRAME.match(ln)]


def says_auth(text: str) -> bool:
    return bool(AUTH_PHRASES.search(text))


def byte_size(count: int) -> str:
    """A body's size as a note gives it: ``734 B``, ``1.2 kB``, ``3.4 MB`` (powers of 1000)."""
    if count < 1000:
        return f"{count} B"
    if count < 1_000_000:
        return f"{count / 1000:.1f} kB"
    return f"{count / 1_000_000:.1f} MB"


def classify_failure(exc: McpcostError, stderr_tail: str = "") -> tuple[Status, str]:
    """Status and message for a failed capture."""
    if isinstance(exc, TransportTimeout | ConnectTimedOut):
        return Status.TIMEOUT, str(exc)
    if isinstance(exc, HostUnreachable):
        return Status.UNREACHABLE, exc.reason
    if isinstance(exc, AuthorizationFailed):
        return Status.AUTH_REQUIRED, f"sign-in failed: {exc.reason}"
    if isinstance(exc, HTTPStatusError):
        if exc.is_auth:
            www = f"; WWW-Authenticate: {exc.www_authenticate}" if exc.www_authenticate else ""
            if exc.oauth_metadata:
                return Status.REMOTE_AUTH_WALL, (
                    f"HTTP {exc.status}: OAuth-protected (protected-resource metadata "
                    f"advertised){www}"
                )
            return Status.AUTH_REQUIRED, f"HTTP {exc.status}: authorization required{www}"
        # a web page (a proxy's, a host's 404) is said as what it is and how big, never quoted
        page = f", HTML page, {byte_size(exc.body_size)}" if exc.html_body else ""
        if exc.is_gone:
            return Status.GONE, f"{exc}{page}"
        if page:
            return Status.STARTUP_FAILURE, f"{exc}{page}"
        # not cut here: the note is masked first and cut after (a cut could split a secret)
        detail = f": {exc.body_snippet.strip()}" if exc.body_snippet.strip() else ""
        return Status.STARTUP_FAILURE, f"{exc}{detail}"
    if isinstance(exc, RPCError):
        if exc.code == AUTH_REQUIRED_CODE or says_auth(exc.server_message):
            return Status.AUTH_REQUIRED, str(exc)
        return Status.STARTUP_FAILURE, str(exc)
    if isinstance(exc, TransportClosed):
        tail = exc.stderr_tail or stderr_tail
        if any(says_auth(line) for line in stderr_message_lines(tail)):
            return Status.AUTH_REQUIRED, exc.reason
        return Status.STARTUP_FAILURE, exc.reason
    return Status.STARTUP_FAILURE, str(exc)
