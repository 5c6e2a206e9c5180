"""The loopback redirect receiver (RFC 8252 section 7.3): an HTTP server on 127.0.0.1 at a port
the OS picks, which takes exactly one redirect to ``/callback`` carrying the ``state`` of this
sign-in and ``code`` (or ``error``), and answers the browser with a short page. A request with
any other state (a page or process on the machine guessing the port) is answered 400 and
ignored: it can neither end the sign-in nor be told "Signed in."."""

from __future__ import annotations

import hmac
import http.server
import threading
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

import requests

from mcpcost.auth.oauth_values import OAuthState
from mcpcost.runtime.http_body import BodyReadFailed, ReadLimits, read_body
from mcpcost.runtime.http_session import BoundedSession

CALLBACK_PATH = "/callback"
MAX_PAGE_BYTES = 1 << 20  # the page a followed authorization URL ends on (read, then dropped)
_PAGE = (
    "<!doctype html><meta charset=utf-8><title>mcp-context-cost</title>"
    "<p>{}</p><p>You can close this tab.</p>"
)


@dataclass(frozen=True, slots=True)
class Redirect:
    """What arrived at the redirect URI (``code`` is a secret until exchanged)."""

    code: str | None = field(default=None, repr=False)
    state: OAuthState | None = None
    error: str | None = None


class LoopbackReceiver:
    """Listen on 127.0.0.1 for the authorization redirect carrying ``state``; use as a
    context manager."""

    def __init__(self, state: OAuthState) -> None:
        self._result: Redirect | None = None
        self._arrived = threading.Event()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                if parts.path != CALLBACK_PATH or receiver._arrived.is_set():
                    self.send_error(404)
                    return
                query = parse_qs(parts.query)

                def one(name: str) -> str | None:
                    values = query.get(name)
                    return values[0] if values else None

                got = one("state")
                if got is None or not hmac.compare_digest(got.encode(), state.encode()):
                    self._page(400, "This is not the sign-in mcp-context-cost is waiting for.")
                    return
                receiver._result = Redirect(one("code"), OAuthState(got), one("error"))
                receiver._arrived.set()
                self._page(200, "Signed in." if one("code") else "Sign-in did not complete.")

            def _page(self, status: int, text: str) -> None:
                body = _PAGE.format(text).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                return  # the query carries the code: never logged

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, daemon=True, name="mcpcost-oauth-redirect"
        )

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}{CALLBACK_PATH}"

    def __enter__(self) -> LoopbackReceiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def wait(self, timeout_s: float) -> Redirect | None:
        """The redirect, or None if none came within ``timeout_s``."""
        if not self._arrived.wait(timeout_s):
            return None
        return self._result


def follow_authorization_url(url: str, timeout_s: float) -> bool:
    """A browser for servers that approve at once: GET the URL and follow its redirects."""
    try:
        with BoundedSession() as session, session.get(url, timeout=timeout_s) as resp:
            read_body(resp, ReadLimits(MAX_PAGE_BYTES, timeout_s))  # the page the chain ends on
    except (requests.RequestException, BodyReadFailed):
        return False
    return True
