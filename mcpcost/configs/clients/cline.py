"""Cline: the VS Code extension's global storage, and the Cline CLI's settings file."""

from __future__ import annotations

from pathlib import Path

from mcpcost.configs.clients.client import Client, ClientSessionRule, Location, Places, Scope
from mcpcost.configs.clients.dialect import Dialect, map_parser
from mcpcost.configs.config_file import ClientName
from mcpcost.configs.variables import NONE

NAME = ClientName("cline")
_FILE = "cline_mcp_settings.json"


def locations(at: Places) -> list[Location]:
    out: list[Location] = []
    for product in ("Code", "Code - Insiders"):
        storage = at.app_dir / product / "User" / "globalStorage"
        settings = storage / "saoudrizwan.claude-dev" / "settings"
        out.append(Location(NAME, Scope.USER, settings / _FILE))
    cli = at.env("CLINE_MCP_SETTINGS_PATH")
    fallback = at.home / ".cline" / "data" / "settings" / _FILE
    out.append(Location(NAME, Scope.USER, Path(cli) if cli else fallback))
    return out


CLIENT = Client(
    name=NAME,
    label="Cline",
    syntax=NONE,
    parse=map_parser("mcpServers", Dialect(NAME, exclude_key="disabledTools")),
    locations=locations,
    session=ClientSessionRule(alternatives=True),
)
