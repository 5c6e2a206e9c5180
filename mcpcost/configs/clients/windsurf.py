"""Windsurf: ``~/.codeium/windsurf/mcp_config.json``."""

from __future__ import annotations

from mcpcost.configs.clients.api_rules import CHECKED
from mcpcost.configs.clients.client import Client, Location, Places, Scope
from mcpcost.configs.clients.dialect import Dialect, map_parser
from mcpcost.configs.clients.presentation import (
    Confidence,
    Effect,
    Presentation,
    Provenance,
    ToolCountLimit,
    ToolFilter,
)
from mcpcost.configs.config_file import ClientName
from mcpcost.configs.variables import VariableSyntax

NAME = ClientName("windsurf")
DIALECT = Dialect(NAME, url_keys=("serverUrl", "url"), exclude_key="disabledTools")


def locations(at: Places) -> list[Location]:
    return [Location(NAME, Scope.USER, at.home / ".codeium" / "windsurf" / "mcp_config.json")]


PRESENTATION = Presentation(
    tool_limits=(
        ToolCountLimit(
            max_tools=100,
            scope="session",
            effect=Effect.DROPS,
            rule="Cascade has access to at most 100 tools at any given time",
            fix="switch tools or servers off in Windsurf Settings > Cascade > MCP Servers",
            provenance=Provenance(
                source="https://docs.windsurf.com/windsurf/cascade/mcp",
                date="2026-11",
                confidence=Confidence.DOCUMENTED,
            ),
        ),
    ),
    tool_filter=ToolFilter(
        how=(
            "the tool's toggle in Windsurf's MCP settings (reportedly kept as disabledTools in "
            "the server's entry of mcp_config.json)"
        ),
        provenance=Provenance(
            source="https://docs.windsurf.com/windsurf/cascade/mcp",
            date=CHECKED,
            confidence=Confidence.REPORTED,
        ),
    ),
)

CLIENT = Client(
    presentation=PRESENTATION,
    name=NAME,
    label="Windsurf",
    syntax=VariableSyntax(env_prefix=True, file_refs=True),
    parse=map_parser("mcpServers", DIALECT),
    locations=locations,
)
