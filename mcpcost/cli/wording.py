"""Sentences for exception class names left in failure notes (``ChunkedEncodingError``).

Measurements record the failure as the transport saw it; the command line shows a person what
it means. Only whole class names are replaced, so a server's own text is left as it is.
"""

from __future__ import annotations

import re

EXCEPTION_SENTENCES: dict[str, str] = {
    "ConnectionError": "nothing accepted the connection (is the server running and the address "
    "right?)",
    "ConnectionRefusedError": "the connection was refused (nothing listens at that address)",
    "ConnectionResetError": "the server closed the connection",
    "RemoteDisconnected": "the server closed the connection without answering",
    "ConnectTimeout": "the connection was not accepted in time",
    "ReadTimeout": "the server accepted the connection but did not answer in time",
    "Timeout": "there was no answer in time",
    "SSLError": "the TLS handshake failed (is the server's certificate trusted here?)",
    "ProxyError": "the proxy refused or failed the connection",
    "TooManyRedirects": "the server redirected too many times",
    "InvalidURL": "the URL is not valid",
    "InvalidSchema": "the URL's scheme is not http or https",
    "MissingSchema": "the URL has no http:// or https://",
    "ChunkedEncodingError": "the response was cut off mid-stream",
    "ContentDecodingError": "the response could not be decoded",
}
_NAMES = re.compile(r"\b(" + "|".join(sorted(EXCEPTION_SENTENCES, key=len, reverse=True)) + r")\b")


def plain_reason(text: str) -> str:
    """``text`` with each known exception class name replaced by its sentence."""
    return _NAMES.sub(lambda m: EXCEPTION_SENTENCES[m.group(1)], text)
