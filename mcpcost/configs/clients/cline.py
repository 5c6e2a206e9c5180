"""Cline: the VS Code extension's global storage, and the Cline CLI's settings file."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from mcpcost.configs.clients.api_rules import CHECKED
from mcpcost.configs.clients.client import Client, ClientSessionRule, Location, Places, Scope
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


_NAME_TRANSFORM = Provenance(
    source=(
        "https://github.com/cline/cline/blob/21cb8d2525bcedf1f4b6890b27a74a14fe7451e4/"
        "sdk/packages/core/src/extensions/mcp/name-transform.ts"
    ),
    date=CHECKED,
    confidence=Confidence.SOURCE_CODE,
)
_INVALID_RUN = re.compile(r"[^a-zA-Z0-9_-]+")
_MAX = 64
_HASH = 8


def _hashed(sanitized: str, raw: str) -> str:
    digest = hashlib.sha1(raw.encode("utf-8"), usedforsecurity=False).hexdigest()[:_HASH]
    return f"{sanitized[: _MAX - 1 - _HASH] or 'mcp_tool'}_{digest}"


def model_name(server: str, tool: str) -> str:
    raw = f"{server}__{tool}"
    sanitized = _INVALID_RUN.sub("_", raw)
    return raw if sanitized == raw else _hashed(sanitized, raw)


def shorten(name: str) -> str:
    return _hashed(name, name)


PRESENTATION = Presentation(
    name=ModelName(
        template="{server}__{tool}",
        build=model_name,
        rewrite=(
            "each run of characters outside A-Z a-z 0-9 _ - becomes one '_', and the name then "
            "ends in '_' and 8 hex digits of its SHA-1"
        ),
        dedupes=True,
        provenance=_NAME_TRANSFORM,
    ),
    name_limits=(
        NameLimit(
            subject="model-name",
            max_length=_MAX,
            effect=Effect.RENAMES,
            shorten=shorten,
            rule="a name over 64 characters is cut to 55 and given '_' and 8 hex digits of a hash",
            fix="none needed; a shorter server name keeps the name readable to the model",
            provenance=_NAME_TRANSFORM,
        ),
    ),
)


CLIENT = Client(
    presentation=PRESENTATION,
    name=NAME,
    label="Cline",
    syntax=NONE,
    parse=map_parser("mcpServers", Dialect(NAME, exclude_key="disabledTools")),
    locations=locations,
    session=ClientSessionRule(alternatives=True),
)
