"""OpenCode: ``opencode.json(c)`` under the XDG config directory and at a project's root.

Servers sit under ``mcp``; ``command`` may be the whole argv and the environment is
``environment``. A file of unknown origin with an ``mcp`` block that is not VS Code's is OpenCode's.
"""

from __future__ import annotations

import hashlib

from mcpcost.configs.clients.api_rules import underscore_all_but_word_or_dash
from mcpcost.configs.clients.client import Claim, Client, Location, Places, ProjectFile, Scope
from mcpcost.configs.clients.dialect import Dialect, map_parser
from mcpcost.configs.clients.presentation import (
    Confidence,
    Effect,
    ModelName,
    NameLimit,
    NotedRule,
    Presentation,
    Provenance,
)
from mcpcost.configs.config_file import ClientName
from mcpcost.configs.variables import VariableSyntax

NAME = ClientName("opencode")
PROJECT_FILES = tuple(ProjectFile(f"opencode.{ext}", True) for ext in ("json", "jsonc"))


def locations(at: Places) -> list[Location]:
    return [
        *(
            Location(NAME, Scope.USER, at.xdg / "opencode" / name, True)
            for name in ("opencode.json", "opencode.jsonc")
        ),
        *at.project(NAME, PROJECT_FILES),
    ]


OPENCODE = "anomalyco/opencode packages/opencode/src/mcp"
_CATALOG = Provenance(
    source=f"{OPENCODE}/catalog.ts @974bbbba26da (sanitize, toolName, buildToolName)",
    date="2026-12-05",
    confidence=Confidence.SOURCE_CODE,
)
MAX_NAME = 64
_KEPT = 55  # characters of the joined name kept before '_' and an 8-character hash


def model_name(server: str, tool: str) -> str:
    return f"{underscore_all_but_word_or_dash(server)}_{underscore_all_but_word_or_dash(tool)}"


def shorten(name: str) -> str:
    """The first 55 characters, '_' and 8 hex characters of a hash of the name. OpenCode's
    hash function is its own; a SHA-256 prefix of the same length stands in for it."""
    return f"{name[:_KEPT]}_{hashlib.sha256(name.encode()).hexdigest()[:8]}"


PRESENTATION = Presentation(
    name=ModelName(
        template="{server}_{tool}",
        build=model_name,
        rewrite="characters outside A-Z a-z 0-9 _ - in both names become '_'",
        provenance=_CATALOG,
    ),
    name_limits=(
        NameLimit(
            subject="model-name",
            max_length=MAX_NAME,
            effect=Effect.RENAMES,
            shorten=shorten,
            rule=(
                "a name over 64 characters keeps its first 55, then '_' and 8 characters of a "
                "hash of the whole (the OpenAI API refuses longer names)"
            ),
            fix="shorten the server's key in opencode.json so <server>_<tool> fits 64",
            provenance=_CATALOG,
        ),
    ),
    noted=(
        NotedRule(
            topic="deferral",
            says=(
                "tool search is off unless mcp_tool_search (or a server's tool_search) says "
                "auto (from 8 visible MCP tools) or always; off, every definition is sent; the "
                "audit does not read these keys and counts everything up front"
            ),
            then="sends everything by default",
            provenance=Provenance(
                source=f"{OPENCODE}/tool-search.ts @d80ed98c5a9e (enabledFor, AUTO_MIN_TOOLS)",
                date="2026-12-05",
                confidence=Confidence.SOURCE_CODE,
            ),
        ),
    ),
)

CLIENT = Client(
    presentation=PRESENTATION,
    name=NAME,
    label="OpenCode",
    syntax=VariableSyntax(opencode=True),
    parse=map_parser("mcp", Dialect(NAME, command_list=True)),
    locations=locations,
    project_files=PROJECT_FILES,
    claims=(Claim("mcp", 61),),
)
