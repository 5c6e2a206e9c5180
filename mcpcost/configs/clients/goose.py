"""Goose: ``extensions`` in its ``config.yaml``. Built-in extension kinds launch nothing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcpcost.configs.clients.client import Claim, Client, Location, Parsed, Places, Scope
from mcpcost.configs.clients.dialect import own_entries
from mcpcost.configs.clients.formats import FileFormat
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


CLIENT = Client(
    name=NAME,
    label="Goose",
    syntax=NONE,
    parse=parse,
    locations=locations,
    file_format=lambda source: FileFormat.YAML,
    claims=(Claim("extensions", 50),),
)
