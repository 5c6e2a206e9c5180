"""Roo Code: the VS Code extension's global storage and a project's ``.roo/mcp.json``."""

from __future__ import annotations

import re

from mcpcost.configs.clients.api_rules import CHECKED
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
    Effect,
    ModelName,
    NameLimit,
    Presentation,
    Provenance,
)
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


_MCP_NAME = Provenance(
    source=(
        "https://github.com/RooCodeInc/Roo-Code/blob/cb836567180a3ff1da6d082f3178b90c3bd22a70/"
        "src/utils/mcp-name.ts"
    ),
    date=CHECKED,
    confidence=Confidence.SOURCE_CODE,
)
_SPACES = re.compile(r"\s+")
_NOT_ALLOWED = re.compile(r"[^a-zA-Z0-9_\-]")
_DASHES = re.compile(r"--+")


def sanitize(part: str) -> str:
    out = _DASHES.sub("-", _NOT_ALLOWED.sub("", _SPACES.sub("_", part)))
    if out and not (out[0].isascii() and (out[0].isalpha() or out[0] == "_")):
        out = "_" + out
    return out or "_unnamed"


def model_name(server: str, tool: str) -> str:
    return f"mcp--{sanitize(server)}--{sanitize(tool)}"


PRESENTATION = Presentation(
    name=ModelName(
        template="mcp--{server}--{tool}",
        build=model_name,
        rewrite=(
            "spaces become '_', other characters outside A-Z a-z 0-9 _ - are removed, '--' "
            "becomes '-', and a part not starting with a letter or '_' gets a leading '_'"
        ),
        provenance=_MCP_NAME,
    ),
    name_limits=(
        NameLimit(
            subject="model-name",
            max_length=64,
            effect=Effect.RENAMES,
            shorten=lambda name: name[:64],
            rule="the mcp--<server>--<tool> name is cut at 64 characters",
            fix="shorten the server's name in mcp.json so mcp--<server>--<tool> fits 64",
            provenance=_MCP_NAME,
        ),
    ),
)

CLIENT = Client(
    presentation=PRESENTATION,
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
