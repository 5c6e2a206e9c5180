"""GitHub Copilot CLI: ``~/.copilot/mcp-config.json`` (``$COPILOT_HOME`` moves it)."""

from __future__ import annotations

from pathlib import Path

from mcpcost.configs.clients.client import Client, Location, Places, Scope
from mcpcost.configs.clients.dialect import Dialect, map_parser
from mcpcost.configs.clients.presentation import (
    Confidence,
    DeferralRegime,
    Presentation,
    Provenance,
    Trigger,
)
from mcpcost.configs.config_file import ClientName
from mcpcost.configs.variables import NONE

NAME = ClientName("copilot")


def locations(at: Places) -> list[Location]:
    home = at.env("COPILOT_HOME")
    base = Path(home) if home else at.home / ".copilot"
    return [Location(NAME, Scope.USER, base / "mcp-config.json")]


PRESENTATION = Presentation(
    regime=DeferralRegime(
        mechanism="tool-search",
        trigger=Trigger.TOOL_COUNT,
        min_tools=30,
        keeps=(),
        note="deferThreshold defaults to 30; a server set to deferTools: never stays up front",
        provenance=Provenance(
            source="copilot-sdk-java ToolSearchConfig API documentation (deferThreshold)",
            date="2026-12",
            confidence=Confidence.DOCUMENTED,
        ),
    ),
)

CLIENT = Client(
    presentation=PRESENTATION,
    name=NAME,
    label="GitHub Copilot CLI",
    syntax=NONE,
    parse=map_parser("mcpServers", Dialect(NAME, include_key="tools")),
    locations=locations,
)
