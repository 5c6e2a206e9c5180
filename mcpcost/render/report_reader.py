"""Reading an audit JSON report back (pure apart from reading the package's own schema): the
report a run saved, which the Action's fork-safe second phase renders although a pull
request's code wrote it. Bounded by the caller's read; parsed with the one JSON reader (at
most 512 levels); then checked strictly against ``mcpcost/schemas/audit-report.schema.json``
(``core.json_schema``). Anything else is one ``InputError`` line: exit 2, never a traceback.
"""

from __future__ import annotations

import importlib.resources
import json
from functools import cache
from typing import Any

from mcpcost.core.json_schema import SchemaMismatch, check_against
from mcpcost.core.jsonvalue import parse_json
from mcpcost.errors import InputError, JSONSyntaxError

SCHEMA_NAME = "audit-report.schema.json"


@cache
def report_schema() -> dict[str, Any]:
    """The report's JSON Schema, package data."""
    text = (importlib.resources.files("mcpcost") / "schemas" / SCHEMA_NAME).read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def read_report(data: bytes, *, what: str = "the saved report") -> dict[str, Any]:
    """The report in ``data``, checked against its schema; ``InputError`` (one line) on
    anything else."""
    try:
        doc = parse_json(data)
    except JSONSyntaxError as exc:
        raise InputError(f"{what} is not readable JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise InputError(f"{what} is not a JSON object")
    try:
        check_against(doc, report_schema())
    except SchemaMismatch as exc:
        raise InputError(f"{what} does not have the audit report's shape: {exc}") from None
    return doc
