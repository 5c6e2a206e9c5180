"""Reading inputs for commands: local files, ``-`` for stdin, and http(s) URLs."""

from __future__ import annotations

import sys
from pathlib import Path

from mcpcost.errors import InputError

FETCH_TIMEOUT_S = 15.0  # connecting, and each wait for the next bytes
FETCH_DEADLINE_S = 120.0  # the whole body
MAX_FETCH_BYTES = 256 * 1024 * 1024


def is_url(text: str) -> bool:
    return text.startswith(("http://", "https://"))


def read_source(source: str) -> bytes:
    """Bytes of a path, ``-`` (stdin) or an http(s) URL; InputError with one line on failure."""
    if source == "-":
        return sys.stdin.buffer.read()
    if is_url(source):
        return fetch_url(source)
    try:
        return Path(source).read_bytes()
    except FileNotFoundError:
        raise InputError(f"{source}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{source}: is a directory") from None
    except OSError as exc:
        raise InputError(f"{source}: cannot read ({exc.strerror or exc})") from None


def fetch_url(url: str) -> bytes:
    """GET a URL within ``MAX_FETCH_BYTES`` (decoded) and ``FETCH_DEADLINE_S``; any failure is
    an InputError naming the URL."""
    import requests

    from mcpcost.runtime.http_body import BodyReadFailed, ReadLimits, read_body
    from mcpcost.runtime.http_session import BoundedSession

    try:
        with BoundedSession() as session, session.get(url, timeout=FETCH_TIMEOUT_S) as resp:
            if resp.status_code >= 400:
                raise InputError(f"failed to fetch {url}: HTTP {resp.status_code}")
            return read_body(resp, ReadLimits(MAX_FETCH_BYTES, FETCH_DEADLINE_S))
    except BodyReadFailed as exc:
        raise InputError(f"failed to fetch {url}: {exc}") from None
    except requests.RequestException as exc:
        from mcpcost.transports.network_failures import classify_request_failure

        _, what = classify_request_failure(exc, url)
        raise InputError(f"failed to fetch {url}: {what}") from None
