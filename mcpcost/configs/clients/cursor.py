"""Cursor: ``~/.cursor/mcp.json`` and a project's ``.cursor/mcp.json``."""

from __future__ import annotations

from mcpcost.configs.clients.api_rules import CHECKED, app_only_hidden
from mcpcost.configs.clients.client import (
    Client,
    ClientSessionRule,
    Location,
    Places,
    ProjectFile,
    Scope,
)
from mcpcost.configs.clients.dialect import Dialect, map_parser
from mcpcost.configs.clients.presentation import (
    Confidence,
    DeferralRegime,
    Effect,
    Kept,
    NameLimit,
    Presentation,
    Provenance,
    ToolFilter,
    Trigger,
)
from mcpcost.configs.config_file import ClientName
from mcpcost.configs.variables import VariableSyntax

NAME = ClientName("cursor")
PROJECT_FILES = (ProjectFile(".cursor/mcp.json"),)


def locations(at: Places) -> list[Location]:
    return [
        Location(NAME, Scope.USER, at.home / ".cursor" / "mcp.json"),
        *at.project(NAME, PROJECT_FILES),
    ]


PRESENTATION = Presentation(
    name_limits=(
        NameLimit(
            subject="server-and-tool",
            max_length=60,
            effect=Effect.DROPS,
            rule=(
                "a tool whose server name plus tool name passes 60 characters is filtered out "
                '("Some tools have naming issues and may be filtered out")'
            ),
            fix="shorten the server's name in .cursor/mcp.json (server + tool name at most 60)",
            provenance=Provenance(
                source="https://github.com/ComposioHQ/composio/issues/2788",
                date="2026-02-27",
                confidence=Confidence.REPORTED,
            ),
        ),
    ),
    hidden=app_only_hidden(),
    regime=DeferralRegime(
        mechanism="dynamic-context-discovery",
        trigger=Trigger.ALWAYS,
        keeps=(Kept.NAMES,),
        note="only tool names are sent; the model fetches a definition when it needs one",
        provenance=Provenance(
            source="https://cursor.com/blog/dynamic-context-discovery",
            date="2026-01",
            confidence=Confidence.DOCUMENTED,
        ),
    ),
    tool_filter=ToolFilter(
        how="the tool's toggle under the server in Cursor Settings > MCP",
        provenance=Provenance(
            source="https://cursor.com/docs/context/mcp",
            date=CHECKED,
            confidence=Confidence.REPORTED,
        ),
    ),
)

CLIENT = Client(
    presentation=PRESENTATION,
    name=NAME,
    label="Cursor",
    syntax=VariableSyntax(env_prefix=True, editor=True),
    parse=map_parser("mcpServers", Dialect(NAME, env_file=True)),
    locations=locations,
    project_files=PROJECT_FILES,
    session=ClientSessionRule(
        precedence=(Scope.PROJECT, Scope.USER),
        documented=True,
        source="https://cursor.com/docs/cli/mcp",
    ),
)
