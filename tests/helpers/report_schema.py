"""The audit report's JSON Schema as committed in ``spec/``, loaded once for the tests that
validate reports against it."""

from __future__ import annotations

import json

from tests.helpers.paths import ROOT

SPEC_SCHEMA = ROOT / "spec" / "audit-report.schema.json"
SCHEMA = json.loads(SPEC_SCHEMA.read_text("utf-8"))
