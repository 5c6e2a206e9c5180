"""mcp-context-cost: what MCP tool definitions cost in a model's context, measured reproducibly.

Public API (stable):

* ``parse_json`` / ``stringify`` — ECMAScript-faithful JSON (``mcpcost.core.jsonvalue``)
* ``canonicalize`` — canonical text, bytes and SHA-256 of a tools array
* ``count_tokens`` — the bundled o200k_base tokenizer
* ``measure_tools`` — the methodology's numbers for a tools array
* ``Measurement`` — the measurement.json record
* ``verify_document`` — re-derive a published measurement
* ``render_badge`` — shields.io endpoint JSON
"""

from __future__ import annotations

__version__ = "0.1.0"

from mcpcost.core.badge import render_badge
from mcpcost.core.canonical import canonicalize
from mcpcost.core.jsonvalue import parse_json, stringify
from mcpcost.core.measure import measure_tools
from mcpcost.core.model import Measurement
from mcpcost.core.status import Status
from mcpcost.core.tokenizer import count_tokens
from mcpcost.core.verify import verify_document

__all__ = [
    "Measurement",
    "Status",
    "__version__",
    "canonicalize",
    "count_tokens",
    "measure_tools",
    "parse_json",
    "render_badge",
    "stringify",
    "verify_document",
]
