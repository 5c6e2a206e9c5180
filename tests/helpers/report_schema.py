"""The audit report's JSON Schema, loaded once for the tests that validate reports against it.

It is one file, package data (``mcpcost/schemas/``), so the wheel and the Action's image carry it."""

from __future__ import annotations

import importlib.resources
import json

SCHEMA_FILE = importlib.resources.files("mcpcost") / "schemas" / "audit-report.schema.json"
SCHEMA = json.loads(SCHEMA_FILE.read_text("utf-8"))
