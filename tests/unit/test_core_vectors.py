"""Every canonicalisation vector (made with Node's JSON.parse/JSON.stringify and js-tiktoken)
reproduced exactly: canonical bytes, SHA-256, token count; every invalid text rejected."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from mcpcost.core.canonical import canonicalize_text
from mcpcost.core.jsonvalue import parse_json
from mcpcost.core.tokenizer import count_tokens
from mcpcost.errors import JSONSyntaxError
from tests.helpers.paths import SPEC_FIXTURES

VECTORS: dict[str, Any] = json.loads((SPEC_FIXTURES / "canonical-vectors.json").read_text("utf-8"))


def test_the_vector_file_is_complete() -> None:
    assert len(VECTORS["vectors"]) == VECTORS["count"] == 24
    assert len(VECTORS["invalid"]) >= 4


@pytest.mark.parametrize("vector", VECTORS["vectors"], ids=lambda v: v["id"])
def test_vector_reproduced_exactly(vector: dict[str, Any]) -> None:
    wire = base64.b64decode(vector["input_utf8_base64"])
    canonical = canonicalize_text(wire)
    assert canonical.text == vector["canonical"]
    assert canonical.sha256 == vector["sha256"]
    assert len(canonical.data) == vector["canonicalUtf8Bytes"]
    assert count_tokens(canonical.text) == vector["tokens"]
    parsed = parse_json(wire)
    if isinstance(parsed, list):
        assert len(parsed) == vector["toolCount"]


@pytest.mark.parametrize("vector", VECTORS["vectors"], ids=lambda v: v["id"])
def test_canonical_form_is_a_fixed_point(vector: dict[str, Any]) -> None:
    once = canonicalize_text(base64.b64decode(vector["input_utf8_base64"]))
    assert canonicalize_text(once.data).data == once.data


@pytest.mark.parametrize("vector", VECTORS["invalid"], ids=lambda v: v["id"])
def test_invalid_text_rejected(vector: dict[str, Any]) -> None:
    with pytest.raises(JSONSyntaxError):
        parse_json(base64.b64decode(vector["input_utf8_base64"]))
