"""LM Studio: ``~/.lmstudio/mcp.json`` (``%USERPROFILE%\\.lmstudio`` on Windows).

The file follows Cursor's notation: a ``mcpServers`` map of command or url entries. LM Studio
documents no variable expansion and no project-level file.
"""

from __future__ import annotations

from mcpcost.configs.clients.client import Client, Location, Places, Scope
from mcpcost.configs.clients.dialect import Dialect, map_parser
from mcpcost.configs.config_file import ClientName
from mcpcost.configs.variables import NONE

NAME = ClientName("lmstudio")


def locations(at: Places) -> list[Location]:
    return [Location(NAME, Scope.USER, at.home / ".lmstudio" / "mcp.json")]


CLIENT = Client(
    name=NAME,
    label="LM Studio",
    syntax=NONE,
    parse=map_parser("mcpServers", Dialect(NAME)),
    locations=locations,
)
