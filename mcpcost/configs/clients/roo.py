"""Roo Code: the VS Code extension's global storage and a project's ``.roo/mcp.json``."""

from __future__ import annotations

from mcpcost.configs.clients.client import (
    Client,
    ClientSessionRule,
    Location,
    Places,
    ProjectFile,
    Scope,
)
from mcpcost.configs.clients.dialect import Dialect, map_parser
from mcpcost.configs.config_file import ClientName
from mcpcost.configs.variables import NONE

NAME = ClientName("roo")
PROJECT_FILES = (ProjectFile(".roo/mcp.json"),)


def locations(at: Places) -> list[Location]:
    out: list[Location] = []
    for product in ("Code", "Code - Insiders"):
        storage = at.app_dir / product / "User" / "globalStorage"
        settings = storage / "rooveterinaryinc.roo-cline" / "settings"
        out.append(Location(NAME, Scope.USER, settings / "mcp_settings.json"))
    return [*out, *at.project(NAME, PROJECT_FILES)]


CLIENT = Client(
    name=NAME,
    label="Roo Code",
    syntax=NONE,
    parse=map_parser("mcpServers", Dialect(NAME, exclude_key="disabledTools")),
    locations=locations,
    project_files=PROJECT_FILES,
    session=ClientSessionRule(
        precedence=(Scope.PROJECT, Scope.USER),
        documented=True,
        source="https://docs.roocode.com/features/mcp/using-mcp-in-roo",
        alternatives=True,
    ),
)
