"""mcp-context-cost: what MCP tool definitions cost in a model's context, measured reproducibly.

Stable public API (``docs/LIBRARY.md`` has an example):

Measuring and auditing

* ``ServerSpec`` — one server to measure: ``ServerSpec.stdio(name, argv)`` or ``.remote(name, url)``
* ``measure_server`` — measure one server spec: two captures compared, a ``Measurement`` back
* ``MeasureOptions`` — how ``measure_server`` measures: budget, retry, era, URL policy, sign-in
* ``audit_configs`` — audit MCP config files (or discover them); an ``AuditReport`` back
* ``AuditReport``, ``ConfigResult``, ``ServerResult`` — the audit report, per config, per server

Counting and verifying

* ``count_tokens`` — the o200k_base token count of a text (bundled tokenizer, offline)
* ``canonicalize`` / ``Canonical`` — canonical text, bytes and SHA-256 of a parsed JSON value
* ``measure_tools`` / ``ToolsMeasure`` — the methodology's numbers for a parsed tools array
* ``verify_document`` / ``VerifyResult`` — re-derive a published measurement.json
* ``parse_json`` / ``stringify`` — ECMAScript-faithful JSON
* ``render_badge`` — shields.io endpoint JSON for a measurement

Model types and statuses

* ``Measurement``, ``ToolCost``, ``Isolation`` — the measurement.json record and its parts
* ``Status`` — a measurement's outcome (``measured``, ``dynamic``, ``timeout``, ...)
* ``McpcostError`` (every error the package raises on purpose), ``InputError`` (unreadable input)
* ``__version__``

Names are loaded on first use, so ``import mcpcost`` stays cheap for the command line.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from mcpcost.version import __version__

# public name -> the module that defines it
_HOMES: dict[str, str] = {
    "AuditReport": "mcpcost.audit.report",
    "Canonical": "mcpcost.core.canonical",
    "ConfigResult": "mcpcost.audit.report",
    "InputError": "mcpcost.errors",
    "Isolation": "mcpcost.core.model",
    "McpcostError": "mcpcost.errors",
    "MeasureOptions": "mcpcost.measuring.server",
    "Measurement": "mcpcost.core.model",
    "ServerResult": "mcpcost.audit.report",
    "ServerSpec": "mcpcost.core.spec",
    "Status": "mcpcost.core.status",
    "ToolCost": "mcpcost.core.model",
    "ToolsMeasure": "mcpcost.core.measure",
    "VerifyResult": "mcpcost.core.verify",
    "audit_configs": "mcpcost.audit.compose",
    "canonicalize": "mcpcost.core.canonical",
    "count_tokens": "mcpcost.core.tokenizer",
    "measure_server": "mcpcost.measuring.server",
    "measure_tools": "mcpcost.core.measure",
    "parse_json": "mcpcost.core.jsonvalue",
    "render_badge": "mcpcost.core.badge",
    "stringify": "mcpcost.core.jsonvalue",
    "verify_document": "mcpcost.core.verify",
}

__all__ = [
    "AuditReport",
    "Canonical",
    "ConfigResult",
    "InputError",
    "Isolation",
    "McpcostError",
    "MeasureOptions",
    "Measurement",
    "ServerResult",
    "ServerSpec",
    "Status",
    "ToolCost",
    "ToolsMeasure",
    "VerifyResult",
    "__version__",
    "audit_configs",
    "canonicalize",
    "count_tokens",
    "measure_server",
    "measure_tools",
    "parse_json",
    "render_badge",
    "stringify",
    "verify_document",
]

if TYPE_CHECKING:
    from mcpcost.audit.compose import audit_configs
    from mcpcost.audit.report_model import AuditReport, ConfigResult, ServerResult
    from mcpcost.core.badge import render_badge
    from mcpcost.core.canonical import Canonical, canonicalize
    from mcpcost.core.jsonvalue import parse_json, stringify
    from mcpcost.core.measure import ToolsMeasure, measure_tools
    from mcpcost.core.model import Isolation, Measurement, ToolCost
    from mcpcost.core.spec import ServerSpec
    from mcpcost.core.status import Status
    from mcpcost.core.tokenizer import count_tokens
    from mcpcost.core.verify import VerifyResult, verify_document
    from mcpcost.errors import InputError, McpcostError
    from mcpcost.measuring.server import MeasureOptions, measure_server


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'mcpcost' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
