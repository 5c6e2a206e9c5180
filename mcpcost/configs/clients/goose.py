"""Goose: ``extensions`` in its ``config.yaml``. Built-in extension kinds launch nothing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcpcost.configs.clients.api_rules import CHECKED, app_only_hidden
from mcpcost.configs.clients.client import Claim, Client, Location, Parsed, Places, Scope
from mcpcost.configs.clients.dialect import own_entries
from mcpcost.configs.clients.formats import FileFormat
from mcpcost.configs.clients.presentation import (
    Confidence,
    ModelName,
    NotedRule,
    Presentation,
    Provenance,
)
from mcpcost.configs.clients.raw_server import FieldReader, ParseContext, set_transport
from mcpcost.configs.config_file import ClientName
from mcpcost.configs.jsonc import KeyPath
from mcpcost.configs.variables import NONE
from mcpcost.core.spec import TransportName

NAME = ClientName("goose")
_GOOSE_INTERNAL = frozenset({"builtin", "platform", "frontend", "inline_python"})


def parse(
    data: Any, lines: Mapping[KeyPath, int], ctx: ParseContext, problems: list[str]
) -> Parsed:
    reader = FieldReader(problems)
    vctx = ctx.variables()
    out, todo = own_entries(data, "extensions", "a mapping", lines, reader)
    for raw, obj in todo:
        raw.disabled = reader.flag(raw, obj, "enabled") is False
        kind = obj.get("type")
        if kind in _GOOSE_INTERNAL:
            raw.fatal = f"{kind} extension: runs inside Goose, nothing to launch"
            continue
        raw.command = reader.string(raw, obj, "cmd")
        raw.args = reader.string_list(raw, obj, "args") or []
        raw.env = reader.string_map(raw, obj, "envs")
        reader.passed_env(raw, obj, "env_keys", vctx, " (keyring not read)")
        raw.cwd = reader.string(raw, obj, "cwd")
        raw.url = reader.string(raw, obj, "uri")
        raw.headers = reader.string_map(raw, obj, "headers")
        set_transport(raw, kind, reader)
        if raw.transport is not None and raw.transport is not TransportName.STDIO:
            raw.command = None
    return Parsed(out)


def locations(at: Places) -> list[Location]:
    base = at.appdata / "Block" / "goose" / "config" if at.platform == "win32" else at.xdg / "goose"
    return [Location(NAME, Scope.USER, base / "config.yaml", True)]


def _normalize(name: str) -> str:
    kept = (
        c if (c.isascii() and c.isalnum()) or c in "_-" else "_" for c in name if not c.isspace()
    )
    return "".join(kept).lower()


def model_name(server: str, tool: str) -> str:
    return f"{_normalize(server)}__{tool}"


PRESENTATION = Presentation(
    name=ModelName(
        template="{server}__{tool}",
        build=model_name,
        rewrite=(
            "the extension's name loses its whitespace, other characters outside A-Z a-z 0-9 _ - "
            "become '_', and it is lower-cased"
        ),
        provenance=Provenance(
            source=(
                "https://github.com/block/goose/blob/005a5658f3909f6994c9821d4319ff2a8141c5a1/"
                "crates/goose/src/agents/extension_manager.rs (normalize, dispatch_tool_call)"
            ),
            date=CHECKED,
            confidence=Confidence.SOURCE_CODE,
        ),
    ),
    hidden=app_only_hidden(),
    noted=(
        NotedRule(
            topic="tool-count nudge",
            says=(
                "from 5 enabled extensions or 50 tools it adds a suggestion to disable "
                "extensions to its system prompt (a few sentences; it drops nothing); its "
                "removal was agreed in 2026-08 (issue #10841, PR #10869), so a current version "
                "may not have it; not counted here"
            ),
            then="nudges",
            provenance=Provenance(
                source=(
                    "https://github.com/aaif-goose/goose/pull/2319 "
                    "(crates/goose/src/agents/extension_manager.rs: MIN_EXTENSIONS 5, "
                    "MIN_TOOLS 50); removal: issue #10841"
                ),
                date="2026-08-10",
                confidence=Confidence.SOURCE_CODE,
            ),
        ),
    ),
)


CLIENT = Client(
    presentation=PRESENTATION,
    name=NAME,
    label="Goose",
    syntax=NONE,
    parse=parse,
    locations=locations,
    file_format=lambda source: FileFormat.YAML,
    claims=(Claim("extensions", 50),),
)
