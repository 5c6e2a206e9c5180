"""Reading inputs for commands: local files, ``-`` for stdin, and http(s) URLs."""

from __future__ import annotations

import sys
from pathlib import Path

from mcpcost.errors import InputError

FETCH_TIMEOUT_S = 15.0
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
    """GET a URL with a timeout; any failure is an InputError naming the URL."""
    import requests

    try:
        with requests.get(url, timeout=FETCH_TIMEOUT_S, stream=True) as resp:
            if resp.status_code >= 400:
                raise InputError(f"failed to fetch {url}: HTTP {resp.status_code}")
            chunks: list[bytes] = []
            size = 0
            for chunk in resp.iter_content(65536):
                size += len(chunk)
                if size > MAX_FETCH_BYTES:
                    raise InputError(f"failed to fetch {url}: larger than {MAX_FETCH_BYTES} bytes")
                chunks.append(chunk)
            return b"".join(chunks)
    except requests.RequestException as exc:
        from mcpcost.transports.http_common import classify_request_failure

        _, what = classify_request_failure(exc, url)
        raise InputError(f"failed to fetch {url}: {what}") from None
