#!/usr/bin/env python3
"""A tiny MCP server (stdio, newline-delimited JSON-RPC, standard library only) for the README's
first command: `mcpcost audit --config examples/demo/mcp.json` measures it like any other server.

It serves a few notes-taking tools. `--heavy` adds a verbose tool, so a config can show what
adding weight looks like.
"""

from __future__ import annotations

import json
import sys

TOOLS = [
    {
        "name": "add_note",
        "title": "Add note",
        "description": "Store a short note under a title. Titles are unique; adding a note "
        "with an existing title replaces it.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "title": {"type": "string", "description": "Unique title of the note"},
                "body": {"type": "string", "description": "Text of the note"},
            },
            "required": ["title", "body"],
        },
        "annotations": {"destructiveHint": False, "idempotentHint": True},
    },
    {
        "name": "list_notes",
        "description": "List the titles of every stored note, newest first.",
        "inputSchema": {"type": "object", "properties": {}},
        "annotations": {"readOnlyHint": True},
    },
    {
        "name": "search_notes",
        "description": "Find notes whose title or body contains the query (case-insensitive).",
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {"type": "string"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10},
            },
            "required": ["query"],
        },
        "annotations": {"readOnlyHint": True},
    },
]

HEAVY_TOOL = {
    "name": "export_notes",
    "description": (
        "Export every stored note to a single document. Supports Markdown, HTML, plain text "
        "and JSON output, optional front matter with creation and modification dates, "
        "grouping by tag or by month, a table of contents, and filtering by a date range. "
    )
    * 6,
    "inputSchema": {
        "type": "object",
        "properties": {
            "format": {"type": "string", "enum": ["markdown", "html", "text", "json"]},
            "groupBy": {"type": "string", "enum": ["none", "tag", "month"]},
            "since": {"type": "string", "format": "date"},
            "until": {"type": "string", "format": "date"},
            "toc": {"type": "boolean", "default": False},
        },
    },
}


def main() -> int:
    tools = TOOLS + ([HEAVY_TOOL] if "--heavy" in sys.argv[1:] else [])
    for line in sys.stdin:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if "id" not in msg:
            continue  # a notification
        method = msg.get("method")
        if method == "initialize":
            result: object = {
                "protocolVersion": msg.get("params", {}).get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "demo-notes", "version": "1.0.0"},
                "instructions": "Notes are kept in memory only.",
            }
        elif method == "tools/list":
            result = {"tools": tools}
        elif method == "ping":
            result = {}
        else:
            reply = {"jsonrpc": "2.0", "id": msg["id"],
                     "error": {"code": -32601, "message": f"method not found: {method}"}}  # fmt: skip
            print(json.dumps(reply), flush=True)
            continue
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
