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
from mcpcost.configs.clients.presentation import (
    Confidence,
    Effect,
    ModelName,
    NameLimit,
    NotedRule,
    Presentation,
    Provenance,
)
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


ZED = "zed-industries/zed"
# read in the index's copies on 2026-12-05 (the repository is too large to fetch whole)
_NAMES = Provenance(
    source=(
        f"{ZED} crates/agent/src/tests/mod.rs @40cca6cbe4e5 (the MCP tool-name test: names as "
        "written, a clash prefixed with the server's id, 64 characters at most)"
    ),
    date="2026-12-05",
    confidence=Confidence.SOURCE_CODE,
)
_REGISTRY = Provenance(
    source=f"{ZED} crates/agent/src/tools/context_server_registry.rs @f29879deca5a",
    date="2026-12-05",
    confidence=Confidence.SOURCE_CODE,
)
MAX_NAME = 64


def model_name(server: str, tool: str) -> str:
    return tool


def shorten(name: str) -> str:
    return name[:MAX_NAME]


PRESENTATION = Presentation(
    name=ModelName(
        template="{tool}",
        build=model_name,
        rewrite=(
            "the tool's name as the server writes it; a name another tool already has gets the "
            "server's id and '_' in front (the id shortened to fit 64)"
        ),
        dedupes=True,
        provenance=_NAMES,
    ),
    name_limits=(
        NameLimit(
            subject="model-name",
            max_length=MAX_NAME,
            effect=Effect.RENAMES,
            shorten=shorten,
            rule="a name over 64 characters is cut to its first 64",
            fix="ask the server's author for a tool name of at most 64 characters",
            provenance=_NAMES,
        ),
    ),
    noted=(
        NotedRule(
            topic="descriptions, counts, deferral",
            says=(
                "a tool's description is sent as the server writes it (none: empty), every tool "
                "of a running server is offered, and this code has no tool-count limit and no "
                "deferral"
            ),
            then="sends everything",
            provenance=_REGISTRY,
        ),
    ),
)

CLIENT = Client(
    presentation=PRESENTATION,
    name=NAME,
    label="Zed",
    syntax=NONE,
    parse=parse,
    locations=locations,
    project_files=PROJECT_FILES,
    claims=(Claim("context_servers", 30),),
)
