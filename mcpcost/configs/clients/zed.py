"""Zed: ``context_servers`` in its ``settings.json`` (user and project)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcpcost.configs.clients.client import (
    Claim,
    Client,
    Location,
    Parsed,
    Places,
    ProjectFile,
    Scope,
)
from mcpcost.configs.clients.dialect import Dialect, top_block
from mcpcost.configs.clients.raw_server import ParseContext
from mcpcost.configs.config_file import ClientName
from mcpcost.configs.jsonc import KeyPath
from mcpcost.configs.variables import NONE

NAME = ClientName("zed")
PROJECT_FILES = (ProjectFile(".zed/settings.json", True),)
DIALECT = Dialect(NAME)


def parse(
    data: Any, lines: Mapping[KeyPath, int], ctx: ParseContext, problems: list[str]
) -> Parsed:
    _, block, raws = top_block(data, "context_servers", DIALECT, lines, problems)
    for raw in raws:
        obj = block.get(raw.name)
        extension = isinstance(obj, dict) and obj.get("source") == "extension"
        if extension and raw.fatal is None and raw.command is None and raw.url is None:
            raw.fatal = "provided by a Zed extension: its launch is not in this file"
    return Parsed(raws)


def locations(at: Places) -> list[Location]:
    user = at.appdata / "Zed" if at.platform == "win32" else at.xdg / "zed"
    return [
        Location(NAME, Scope.USER, user / "settings.json", True),
        *at.project(NAME, PROJECT_FILES),
    ]


CLIENT = Client(
    name=NAME,
    label="Zed",
    syntax=NONE,
    parse=parse,
    locations=locations,
    project_files=PROJECT_FILES,
    claims=(Claim("context_servers", 30),),
)
