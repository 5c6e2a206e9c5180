"""Masking knows every form a secret takes on its way out (``core.redact.SecretMask``): raw,
percent-encoded, JSON-escaped, and the base64 of a Basic header built from URL userinfo."""

from __future__ import annotations

import base64
import json
from urllib.parse import quote, quote_plus

from mcpcost.core.redact import MASK, SecretMask, redact_free_text, redact_text
from mcpcost.core.spec import ServerSpec

SECRET = 'p@ss/w"rd\\é%+ key'


def test_every_encoding_of_a_secret_is_masked() -> None:
    mask = SecretMask([SECRET])
    for form in (
        SECRET,
        quote(SECRET, safe=""),
        quote(SECRET, safe="").lower(),
        quote_plus(SECRET, safe=""),
        json.dumps(SECRET)[1:-1],
        json.dumps(SECRET, ensure_ascii=False)[1:-1],
    ):
        text = f"before {form} after"
        assert mask.holds(text), form
        assert redact_text(text, [SECRET]) == f"before {MASK} after", form


def test_a_query_value_is_masked_before_the_url_is_re_encoded() -> None:
    spec = ServerSpec(
        name="q",
        url=f"https://api.example/mcp?workspace={SECRET}&v=1",
        secrets=(SECRET,),
    )
    shown = spec.display()
    assert not SecretMask([SECRET]).holds(shown), shown
    assert "v=1" in shown


def test_url_userinfo_gives_the_basic_token_a_client_sends() -> None:
    spec = ServerSpec(name="u", url="https://bob:hunter2pass@api.example/mcp")
    token = base64.b64encode(b"bob:hunter2pass").decode()
    assert token in spec.secret_values
    assert redact_text(f"echo Authorization: Basic {token}", spec.secret_values).endswith(MASK)


def test_a_basic_header_value_decodes_to_secrets() -> None:
    token = base64.b64encode(b"alice:0penSesame").decode()
    spec = ServerSpec(
        name="h", url="https://api.example/mcp", headers=(("Authorization", f"Basic {token}"),)
    )
    assert "0penSesame" in spec.secret_values
    assert redact_text("password 0penSesame", spec.secret_values) == f"password {MASK}"


def test_short_and_common_values_do_not_blank_ordinary_words() -> None:
    """Values under four characters or as common as ``true`` are not masked in free text (they
    would blank unrelated words); they are still never printed as a value (names only)."""
    text = "retry 1 of 3: true, use default"
    assert redact_text(text, ["1", "3", "true", "default", "abc"]) == text
    assert redact_text("token abcd here", ["abcd"]) == f"token {MASK} here"


def test_free_text_keeps_names_and_line_breaks() -> None:
    text = "no key via --brave-api-key, BRAVE_API_KEY, --brave-api-key-file\n  next  line"
    assert redact_free_text(text, ["k-98765432"]) == text
    assert redact_free_text("--api-key=k-98765432 was refused\nagain") == (
        f"--api-key={MASK} was refused\nagain"
    )
    assert redact_free_text("use k-98765432 here", ["k-98765432"]) == f"use {MASK} here"
