"""Gemini CLI: ``settings.json`` in ``~/.gemini``, a project's ``.gemini`` and the system directory.

``httpUrl`` means streamable HTTP and ``url`` SSE; a url beats a command. ``mcp.allowed`` and
``mcp.excluded`` switch servers off by name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from mcpcost.configs.clients.api_rules import CHECKED, gemini_json_schema_projection
from mcpcost.configs.clients.client import (
    Client,
    ClientSessionRule,
    Location,
    Parsed,
    Places,
    ProjectFile,
    Scope,
)
from mcpcost.configs.clients.dialect import Dialect, top_block
from mcpcost.configs.clients.formats import server_block
from mcpcost.configs.clients.presentation import (
    Confidence,
    Effect,
    ModelName,
    NameLimit,
    Presentation,
    Provenance,
    ToolCountLimit,
    ToolFilter,
)
from mcpcost.configs.clients.raw_server import ParseContext
from mcpcost.configs.config_file import ClientName
from mcpcost.configs.jsonc import KeyPath
from mcpcost.configs.variables import VariableSyntax

NAME = ClientName("gemini")
PROJECT_FILES = (ProjectFile(".gemini/settings.json", True),)
DIALECT = Dialect(
    NAME,
    url_keys=("httpUrl", "url"),
    sse_url_keys=frozenset({"url"}),
    http_url_keys=frozenset({"httpUrl"}),
    url_first=True,
    include_key="includeTools",
    exclude_key="excludeTools",
)


def parse(
    data: Any, lines: Mapping[KeyPath, int], ctx: ParseContext, problems: list[str]
) -> Parsed:
    root, _, raws = top_block(data, "mcpServers", DIALECT, lines, problems)
    mcp = server_block(root, "mcp", problems)
    if mcp is not None:
        allowed = mcp.get("allowed")
        excluded = mcp.get("excluded")
        for raw in raws:
            if isinstance(excluded, list) and raw.name in excluded:
                raw.disabled = True
            if isinstance(allowed, list) and raw.name not in allowed:
                raw.disabled = True
    return Parsed(raws)


def locations(at: Places) -> list[Location]:
    system = {
        "linux": at.root / "etc" / "gemini-cli",
        "darwin": at.root / "Library" / "Application Support" / "GeminiCli",
        "win32": at.programdata / "gemini-cli",
    }[at.platform]
    return [
        Location(NAME, Scope.USER, at.home / ".gemini" / "settings.json", True),
        *at.project(NAME, PROJECT_FILES),
        Location(NAME, Scope.MANAGED, system / "settings.json", True),
    ]


GEMINI_CLI = (
    "https://github.com/google-gemini/gemini-cli/blob/5411f113cafae26161b4969b0237b8e1e024e2c2"
)
_MCP_TOOL = Provenance(
    source=f"{GEMINI_CLI}/packages/core/src/tools/mcp-tool.ts (generateValidName)",
    date=CHECKED,
    confidence=Confidence.SOURCE_CODE,
)
_INVALID = re.compile(r"[^a-zA-Z0-9_\-.:]")
_SAFE_LIMIT = 63  # the source keeps one below the API's 64


def model_name(server: str, tool: str) -> str:
    name = f"{server}_{tool}"
    name = name if name.startswith("mcp_") else f"mcp_{name}"
    name = _INVALID.sub("_", name)
    return name if name[:1].isascii() and (name[:1].isalpha() or name[:1] == "_") else f"_{name}"


def shorten(name: str) -> str:
    return name[:30] + "..." + name[-30:]


PRESENTATION = Presentation(
    name=ModelName(
        template="mcp_{server}_{tool}",
        build=model_name,
        rewrite=(
            "characters outside A-Z a-z 0-9 _ - . : become '_'; a name not starting with a "
            "letter or '_' gets a leading '_'"
        ),
        provenance=_MCP_TOOL,
    ),
    name_limits=(
        NameLimit(
            subject="model-name",
            max_length=_SAFE_LIMIT,
            effect=Effect.RENAMES,
            shorten=shorten,
            rule=(
                "a name over 63 characters keeps its first and last 30 with '...' between "
                "(and may then need the user's approval)"
            ),
            fix="shorten the server's name in settings.json so mcp_<server>_<tool> fits 63",
            provenance=_MCP_TOOL,
        ),
    ),
    projection=gemini_json_schema_projection(
        Provenance(
            source=f"{GEMINI_CLI}/packages/core/src/tools/tools.ts (getSchema)",
            date=CHECKED,
            confidence=Confidence.SOURCE_CODE,
        ),
        note=(
            "it also adds a boolean wait_for_previous property, with a one-sentence "
            "description, to every object schema; not counted here"
        ),
    ),
    tool_limits=(
        ToolCountLimit(
            max_tools=512,
            scope="request",
            effect=Effect.REJECTS,
            rule=(
                'the Gemini API refuses the request: "At most 512 function declarations can '
                'be specified"'
            ),
            fix="drop a server from settings.json",
            provenance=Provenance(
                source="https://github.com/google-gemini/gemini-cli/issues/19083",
                date="2026-02-14",
                confidence=Confidence.REPORTED,
            ),
        ),
    ),
    tool_filter=ToolFilter(
        how="excludeTools (or includeTools) in the server's entry of settings.json",
        provenance=Provenance(
            source=f"{GEMINI_CLI}/docs/tools/mcp-server.md",
            date=CHECKED,
            confidence=Confidence.DOCUMENTED,
        ),
    ),
)

CLIENT = Client(
    presentation=PRESENTATION,
    name=NAME,
    label="Gemini CLI",
    syntax=VariableSyntax(braces=True, bare=True),
    parse=parse,
    locations=locations,
    project_files=PROJECT_FILES,
    session=ClientSessionRule(
        precedence=(Scope.MANAGED, Scope.PROJECT, Scope.USER),
        documented=True,
        source="https://geminicli.com/docs/reference/configuration",
    ),
)
