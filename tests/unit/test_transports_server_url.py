"""A ``${VAR}`` value holding ``/ ? # @`` in a URL's userinfo is refused in one line that quotes
no part of the URL (``transports.server_url.usable_url``); a value where it changes nothing, or
already percent-encoded, is used as written."""

from __future__ import annotations

import pytest

from mcpcost.transports.failures import UnusableURL
from mcpcost.transports.server_url import usable_url

PASSWORDS = ["pa/ss-w0rd", "pa@ss-w0rd", "pa#ss-w0rd", "pa?ss-w0rd"]


@pytest.mark.parametrize("password", PASSWORDS)
def test_a_reserved_character_in_a_userinfo_value_is_refused(password: str) -> None:
    url = f"https://me:{password}@api.example/mcp"
    with pytest.raises(UnusableURL) as caught:
        usable_url(url, [password])
    message = str(caught.value)
    assert "\n" not in message
    assert password not in message and "ss-w0rd" not in message and "api.example" not in message
    assert "%2F" in message


def test_a_literal_password_that_breaks_the_port_is_refused_without_quoting_it() -> None:
    with pytest.raises(UnusableURL) as caught:
        usable_url("https://me:pa/ss@api.example/mcp")
    assert "pa/ss" not in str(caught.value) and "api.example" not in str(caught.value)


@pytest.mark.parametrize(
    ("url", "values"),
    [
        ("https://me:pa%2Fss@api.example/mcp", ["pa%2Fss"]),
        ("https://api.example/mcp?dir=/a/b&x=1", ["/a/b"]),
        ("https://api.example/a/b/mcp", ["a/b"]),
        ("http://127.0.0.1:8080/mcp", []),
    ],
)
def test_values_that_keep_the_url_s_meaning_are_used(url: str, values: list[str]) -> None:
    assert usable_url(url, values) == url
