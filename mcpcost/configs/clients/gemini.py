"""Gemini CLI: ``settings.json`` in ``~/.gemini``, a project's ``.gemini`` and the system directory.

``httpUrl`` means streamable HTTP and ``url`` SSE; a url beats a command. ``mcp.allowed`` and
``mcp.excluded`` switch servers off by name.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

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


CLIENT = Client(
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
