"""The canonical form of a tools capture and its hash.

canonical text = ``JSON.stringify(tools)`` over the parsed, page-joined tools array;
canonical bytes = that text as UTF-8; the published hash is their lowercase hex SHA-256.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcpcost.core.digest import sha256_hex
from mcpcost.core.jsonvalue import JSONValue, parse_json, stringify


@dataclass(frozen=True, slots=True)
class Canonical:
    """Canonical text of a value, with its UTF-8 bytes and their SHA-256."""

    text: str
    data: bytes
    sha256: str


def canonicalize(value: JSONValue) -> Canonical:
    """Canonical form of an already parsed value."""
    return canonical_of_text(stringify(value))


def canonical_of_text(text: str) -> Canonical:
    """The canonical form whose text is ``text`` (already ``JSON.stringify`` output)."""
    data = text.encode("utf-8")
    return Canonical(text=text, data=data, sha256=sha256_hex(data))


def canonicalize_text(wire: str | bytes) -> Canonical:
    """Canonical form of raw wire text: ``JSON.stringify(JSON.parse(wire))``."""
    return canonicalize(parse_json(wire))
