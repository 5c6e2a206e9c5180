"""A strict check of a JSON value against a JSON Schema (draft 2020-12) written with the keywords
the package's own schemas use (pure).

It exists to read back a report written by an untrusted run (the Action's fork-safe second
phase) against ``mcpcost/schemas/audit-report.schema.json``. Only these keywords are known:
``type``, ``properties``, ``required``, ``additionalProperties``, ``items``, ``enum``,
``const``, ``$ref`` (to ``#/$defs/...``), ``oneOf``, ``minimum``, ``maxItems``, ``pattern``,
and the annotations ``$schema``, ``$id``, ``title``, ``description``. A schema that uses any
other keyword is refused when it is checked, never skipped, so a keyword added to the schema
cannot silently go unchecked; the tests check the same documents with ``jsonschema`` and
expect the same answers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from mcpcost.errors import InputError

ANNOTATIONS = frozenset({"$schema", "$id", "title", "description", "$defs"})
KEYWORDS = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "const",
        "$ref",
        "oneOf",
        "minimum",
        "maxItems",
        "pattern",
    }
)
REF_PREFIX = "#/$defs/"


class SchemaMismatch(InputError):
    """A value does not have the shape its schema describes; the message is one line."""


@lru_cache(maxsize=64)
def _pattern(text: str) -> re.Pattern[str]:
    return re.compile(text)


def _is_type(value: Any, name: str) -> bool:
    if name == "null":
        return value is None
    if name == "boolean":
        return isinstance(value, bool)
    if name == "string":
        return isinstance(value, str)
    if name == "array":
        return isinstance(value, list)
    if name == "object":
        return isinstance(value, dict)
    if isinstance(value, bool):
        return False
    if name == "integer":
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if name == "number":
        return isinstance(value, int | float)
    raise SchemaMismatch(f"the schema names an unknown type {name!r}")


def _same(a: Any, b: Any) -> bool:
    """JSON equality: ``true`` is not ``1``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return bool(a == b)


class _Checker:
    def __init__(self, root: Mapping[str, Any]) -> None:
        defs = root.get("$defs", {})
        self.defs: Mapping[str, Any] = defs if isinstance(defs, Mapping) else {}

    def fail(self, where: str, what: str) -> SchemaMismatch:
        return SchemaMismatch(f"at {where or '/'}: {what}")

    def check(self, value: Any, schema: Any, where: str) -> None:
        if schema is True:
            return
        if schema is False:
            raise self.fail(where, "no value is allowed here")
        if not isinstance(schema, Mapping):
            raise self.fail(where, "the schema is not an object")
        unknown = set(schema) - KEYWORDS - ANNOTATIONS
        if unknown:
            raise self.fail(where, f"the schema uses keywords not checked here: {sorted(unknown)}")
        if "$ref" in schema:
            ref = schema["$ref"]
            if not isinstance(ref, str) or not ref.startswith(REF_PREFIX):
                raise self.fail(where, f"unsupported $ref {ref!r}")
            target = self.defs.get(ref[len(REF_PREFIX) :])
            if target is None:
                raise self.fail(where, f"the schema has no {ref}")
            self.check(value, target, where)
        if "type" in schema:
            names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            if not any(_is_type(value, n) for n in names):
                raise self.fail(where, f"expected {' or '.join(names)}, got {_kind(value)}")
        if "const" in schema and not _same(value, schema["const"]):
            raise self.fail(where, "not the one value allowed")
        if "enum" in schema and not any(_same(value, x) for x in schema["enum"]):
            raise self.fail(where, f"{_shown(value)} is not one of the values allowed")
        if "oneOf" in schema:
            self._one_of(value, schema["oneOf"], where)
        if isinstance(value, dict):
            self._object(value, schema, where)
        elif isinstance(value, list):
            if "maxItems" in schema and len(value) > schema["maxItems"]:
                raise self.fail(where, f"more than {schema['maxItems']} items")
            if "items" in schema:
                for i, item in enumerate(value):
                    self.check(item, schema["items"], f"{where}/{i}")
        elif isinstance(value, str):
            if "pattern" in schema and not _pattern(schema["pattern"]).search(value):
                raise self.fail(where, "the text does not have the form required")
        elif isinstance(value, int | float) and not isinstance(value, bool):
            if "minimum" in schema and value < schema["minimum"]:
                raise self.fail(where, f"below the minimum {schema['minimum']}")

    def _one_of(self, value: Any, options: Any, where: str) -> None:
        matched = 0
        for option in options:
            try:
                self.check(value, option, where)
            except SchemaMismatch as exc:
                if "keywords not checked here" in str(exc):
                    raise
                continue
            matched += 1
        if matched != 1:
            raise self.fail(where, f"matches {matched} of the {len(options)} shapes allowed, not 1")

    def _object(self, value: dict[str, Any], schema: Mapping[str, Any], where: str) -> None:
        props: Mapping[str, Any] = schema.get("properties", {})
        for key in schema.get("required", ()):
            if key not in value:
                raise self.fail(where, f"{key!r} is missing")
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            here = f"{where}/{_pointer(key)}"
            if key in props:
                self.check(item, props[key], here)
            elif extra is False:
                raise self.fail(where, f"{_shown(key)} is not a field here")
            else:
                self.check(item, extra, here)


def _pointer(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")[:80]


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return "string" if isinstance(value, str) else "number"


def _shown(value: Any) -> str:
    """A value in an error message: short, one line, never the untrusted text at length."""
    text = repr(value)
    return text if len(text) <= 60 and "\n" not in text else text[:57].replace("\n", " ") + "..."


def check_against(value: Any, schema: Mapping[str, Any]) -> None:
    """Raise ``SchemaMismatch`` (one line: where, and what is wrong) unless ``value`` has the
    shape ``schema`` describes."""
    _Checker(schema).check(value, schema, "")
