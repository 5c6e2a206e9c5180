"""Windsurf: ``~/.codeium/windsurf/mcp_config.json``."""

from __future__ import annotations

from mcpcost.configs.clients.client import Client, Location, Places, Scope
from mcpcost.configs.clients.dialect import Dialect, map_parser
from mcpcost.configs.config_file import ClientName
from mcpcost.configs.variables import VariableSyntax

NAME = ClientName("windsurf")
DIALECT = Dialect(NAME, url_keys=("serverUrl", "url"), exclude_key="disabledTools")


def locations(at: Places) -> list[Location]:
    return [Location(NAME, Scope.USER, at.home / ".codeium" / "windsurf" / "mcp_config.json")]


CLIENT = Client(
    name=NAME,
    label="Windsurf",
    syntax=VariableSyntax(env_prefix=True, file_refs=True),
    parse=map_parser("mcpServers", DIALECT),
    locations=locations,
)
