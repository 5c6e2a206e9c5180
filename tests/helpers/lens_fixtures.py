"""A server whose tools cross the client-lens limits (the issue's fixtures), as a payload for
the hostile stdio server (``tests/servers/fixtures/hostile_server.py``), and how to launch it."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.helpers.paths import ROOT

HOSTILE = ROOT / "tests" / "servers" / "fixtures" / "hostile_server.py"
SERVER = "thirteen-char"  # the config name: 13 characters
NAME_55 = "n" * 55
NAME_65 = "m" * 65
DOTTED = "get.item"
SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}}


def limits_tools(extra: int = 0) -> list[dict[str, Any]]:
    """Names of 55 and 65 characters, a dotted name, a 2,100-character description, a
    ``$ref``/``$defs``/``anyOf`` schema, an ``outputSchema`` with annotations, an app-only tool,
    and ``extra`` plain tools (140 in all crosses the 128 and 100 tool caps)."""
    tools: list[dict[str, Any]] = [
        {"name": NAME_55, "description": "Long name.", "inputSchema": SCHEMA},
        {"name": NAME_65, "description": "Longer name.", "inputSchema": SCHEMA},
        {"name": DOTTED, "description": "Dotted.", "inputSchema": SCHEMA},
        {"name": "verbose", "description": "v" * 2100, "inputSchema": SCHEMA},
        {
            "name": "refs",
            "description": "Refs.",
            "inputSchema": {
                "type": "object",
                "properties": {"a": {"$ref": "#/$defs/A"}},
                "$defs": {"A": {"anyOf": [{"type": "string"}, {"type": "integer"}]}},
            },
        },
        {
            "name": "typed",
            "title": "Typed",
            "description": "Has an output schema.",
            "inputSchema": SCHEMA,
            "outputSchema": {"type": "object", "properties": {"r": {"type": "string"}}},
            "annotations": {"readOnlyHint": True},
        },
        {
            "name": "app_panel",
            "description": "For the app's UI.",
            "inputSchema": SCHEMA,
            "_meta": {"ui": {"visibility": ["app"]}},
        },
    ]
    tools.extend(
        {"name": f"plain_{i}", "description": "Plain.", "inputSchema": SCHEMA} for i in range(extra)
    )
    return tools


def limits_server(tmp: Path, extra: int = 133) -> list[str]:
    """The argv of a stdio server with ``limits_tools(extra)`` and 3,000 characters of
    instructions (140 tools by default)."""
    payload = tmp / "limits-payload.json"
    payload.write_text(
        json.dumps(
            {
                "serverName": "limits",
                "serverVersion": "1.0.0",
                "instructions": "i" * 3000,
                "tools": limits_tools(extra),
            }
        ),
        encoding="utf-8",
    )
    return [sys.executable, str(HOSTILE), str(payload)]
