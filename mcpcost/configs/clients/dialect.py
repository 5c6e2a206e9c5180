"""The common entry shape: a ``name -> {command, args, env, url, headers...}`` map.

Most clients keep their servers in such a map and differ only in a few spellings (which url keys,
which tool allow/deny lists, whether an ``envFile`` is read): a ``Dialect`` names those.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mcpcost.configs.clients.client import Parsed, Parser
from mcpcost.configs.clients.formats import kind_of, object_of, server_block
from mcpcost.configs.clients.raw_server import FieldReader, ParseContext, RawServer, set_transport
from mcpcost.configs.config_file import ClientName
from mcpcost.configs.jsonc import KeyPath
from mcpcost.core.spec import TransportName
from mcpcost.core.suggest import slip_among


@dataclass(frozen=True, slots=True)
class Dialect:
    """How one client spells an entry in a ``name -> {...}`` map."""

    client: ClientName
    url_keys: tuple[str, ...] = ("url",)  # in precedence order
    sse_url_keys: frozenset[str] = frozenset()  # url keys that mean SSE when no type is given
    http_url_keys: frozenset[str] = frozenset()  # url keys that mean streamable HTTP
    url_first: bool = False  # a url beats a command when both are present (Gemini)
    remote_allowed: bool = True
    include_key: str | None = None  # per-server tool allowlist field
    exclude_key: str | None = None  # per-server tool denylist field
    env_file: bool = False  # reads a stdio server's ``envFile`` (a dotenv file)
    command_list: bool = False  # ``command`` may be the whole argv, env under ``environment``


def _tool_list(
    reader: FieldReader, raw: RawServer, obj: Mapping[str, Any], key: str | None
) -> list[str] | None:
    if key is None:
        return None
    return reader.string_list(raw, obj, key, fatal=False)


def entry_from_map(
    name: str, obj: Mapping[str, Any], dialect: Dialect, reader: FieldReader, line: int | None
) -> RawServer:
    """The common ``{command, args, env, cwd, type, url, headers, disabled...}`` object."""
    raw = RawServer(name=name, line=line)
    command_value = obj.get("command")
    if isinstance(command_value, dict):  # Zed's older nested shape {path, args, env}
        raw.command = reader.string(raw, command_value, "path")
        raw.args = reader.string_list(raw, command_value, "args") or []
        raw.env = reader.string_map(raw, command_value, "env")
    elif isinstance(command_value, list) and dialect.command_list:
        argv = reader.string_list(raw, obj, "command") or []
        raw.command, raw.args = (argv[0], argv[1:]) if argv else ("", [])
        raw.env = reader.string_map(raw, obj, "environment")
    else:
        raw.command = reader.string(raw, obj, "command")
        args = reader.string_list(raw, obj, "args")
        raw.args = args or []
        raw.env = reader.string_map(raw, obj, "env")
    raw.cwd = reader.string(raw, obj, "cwd")
    if dialect.env_file:
        raw.env_file = reader.string(raw, obj, "envFile", fatal=False)
    elif "envFile" in obj:
        reader.note(
            raw, f"envFile is not read ({dialect.client} does not document it)", fatal=False
        )
    url_key = None
    for key in dialect.url_keys:
        value = reader.string(raw, obj, key)
        if value is not None:
            raw.url, url_key = value, key
            break
    raw.headers = reader.string_map(raw, obj, "headers")
    disabled = reader.flag(raw, obj, "disabled")
    enabled = reader.flag(raw, obj, "enabled")
    raw.disabled = disabled is True or enabled is False
    raw.always_load = reader.flag(raw, obj, "alwaysLoad") is True
    include = _tool_list(reader, raw, obj, dialect.include_key)
    if include is not None and include != ["*"]:
        raw.enabled_tools = tuple(include)
    exclude = _tool_list(reader, raw, obj, dialect.exclude_key)
    raw.disabled_tools = tuple(exclude or ())

    type_value = obj.get("type", obj.get("transport"))
    use_url = raw.url is not None and (raw.command is None or dialect.url_first)
    if type_value is None and use_url:
        if url_key in dialect.http_url_keys:
            raw.transport = TransportName.HTTP
        elif url_key in dialect.sse_url_keys:
            raw.transport = TransportName.SSE
        raw.command = None
    set_transport(raw, type_value, reader)
    if raw.transport is not None and raw.transport is not TransportName.STDIO:
        raw.command = None
        if not dialect.remote_allowed and raw.fatal is None:
            raw.fatal = f"remote entry: {dialect.client} does not load url entries from this file"
    return raw


def map_block(
    block: Mapping[str, Any],
    path: KeyPath,
    dialect: Dialect,
    problems: list[str],
    lines: Mapping[KeyPath, int],
) -> list[RawServer]:
    reader = FieldReader(problems)
    out: list[RawServer] = []
    for name, obj in block.items():
        line = lines.get((*path, name))
        if not isinstance(obj, dict):
            raw = RawServer(name=str(name), line=line)
            reader.note(raw, f"entry is {kind_of(obj)}, expected an object", fatal=True)
            out.append(raw)
            continue
        raw = entry_from_map(str(name), obj, dialect, reader, line)
        if raw.fatal is None and raw.command is None and raw.url is None:
            present = (k for k in obj if isinstance(k, str))
            slip = slip_among(("command", *dialect.url_keys), present)
            if slip is not None:
                raw.fatal = f"no command or url; did you mean {slip[1]!r} for {slip[0]!r}?"
        out.append(raw)
    return out


def top_block(
    data: Any, key: str, dialect: Dialect, lines: Mapping[KeyPath, int], problems: list[str]
) -> tuple[dict[str, Any], dict[str, Any], list[RawServer]]:
    """(root, block, entries) for a client whose servers are a ``name -> {...}`` map at ``key``."""
    root = object_of(data, "the file")
    block = server_block(root, key, problems) or {}
    return root, block, map_block(block, (key,), dialect, problems, lines)


def map_parser(key: str, dialect: Dialect) -> Parser:
    """The parser of a client whose whole file is one ``key: {name: {...}}`` map."""

    def parse(
        data: Any, lines: Mapping[KeyPath, int], ctx: ParseContext, problems: list[str]
    ) -> Parsed:
        return Parsed(top_block(data, key, dialect, lines, problems)[2])

    return parse


def own_entries(
    data: Any, key: str, shape: str, lines: Mapping[KeyPath, int], reader: FieldReader
) -> tuple[list[RawServer], list[tuple[RawServer, dict[str, Any]]]]:
    """For clients with their own entry fields (Codex, Goose): every entry of the ``key`` block
    as a RawServer (non-objects already marked), and the (raw, object) pairs still to be read."""
    block = server_block(object_of(data, "the file"), key, reader.problems) or {}
    raws: list[RawServer] = []
    todo: list[tuple[RawServer, dict[str, Any]]] = []
    for name, obj in block.items():
        raw = RawServer(name=str(name), line=lines.get((key, str(name))))
        raws.append(raw)
        if isinstance(obj, dict):
            todo.append((raw, obj))
        else:
            reader.note(raw, f"entry is {kind_of(obj)}, expected {shape}", fatal=True)
    return raws, todo
