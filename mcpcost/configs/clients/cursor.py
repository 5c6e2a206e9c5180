"""Cursor: ``~/.cursor/mcp.json`` and a project's ``.cursor/mcp.json``."""

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
from mcpcost.configs.variables import VariableSyntax

NAME = ClientName("cursor")
PROJECT_FILES = (ProjectFile(".cursor/mcp.json"),)


def locations(at: Places) -> list[Location]:
    return [
        Location(NAME, Scope.USER, at.home / ".cursor" / "mcp.json"),
        *at.project(NAME, PROJECT_FILES),
    ]


CLIENT = Client(
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
