"""A remote server's URL checked before anything connects to it (pure).

A config may build a URL from variables (``https://me:${PASSWD}@host/mcp``). A value holding a
character that ends that part of a URL changes what the URL means: a ``/`` or ``?`` in a password
cuts the authority there (``requests`` then fails on the "port", in its own thread, quoting part
of the password); a ``@`` or ``#`` makes the rest of the password the *host*, so the request and
its credentials would go to a host the user never named. ``usable_url`` refuses both with one
line that names the part and the remedy and never quotes the URL or the value.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

from mcpcost.transports.failures import UnusableURL

# What ends each part of a URL (RFC 3986 section 3): a value holding one of these changes it.
_ENDS = {
    "authority (host or userinfo)": "/?#@[]",
    "path": "?#",
    "query": "#",
}
_ENCODED = "percent-encode it in the value (/ as %2F, ? as %3F, # as %23, @ as %40)"


def _placeholder(index: int) -> str:
    return f"mcpcostvalue{index}x"


def usable_url(url: str, values: Iterable[str] = ()) -> str:
    """``url`` when it can be used as written; ``values`` are the variable values substituted
    into it. Raises ``UnusableURL`` (a message without any part of the URL) otherwise."""
    template = url
    placed: list[tuple[str, str]] = []
    for index, value in enumerate(sorted({v for v in values if v}, key=len, reverse=True)):
        if value in template:
            template = template.replace(value, _placeholder(index))
            placed.append((_placeholder(index), value))
    try:
        parts = urlsplit(template)
        netloc, path, query = parts.netloc, parts.path, parts.query
    except ValueError:
        message = "the server URL cannot be parsed (it is not shown: it may hold a secret)"
        raise UnusableURL(message) from None
    for part, text in (("authority (host or userinfo)", netloc), ("path", path), ("query", query)):
        for mark, value in placed:
            if mark in text and any(c in value for c in _ENDS[part]):
                raise UnusableURL(
                    f"a variable's value put into the server URL's {part} holds a character "
                    f"that ends that part of a URL ({' '.join(_ENDS[part])}): {_ENCODED}"
                )
    try:
        _ = urlsplit(url).port
    except ValueError:
        raise UnusableURL(
            "the server URL's port is not a number (a / ? # or @ in a password ends the host "
            f"early: {_ENCODED}; the URL is not shown, it may hold a secret)"
        ) from None
    return url
