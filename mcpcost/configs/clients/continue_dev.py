"""Continue: ``~/.continue/config.yaml`` and a project's ``.continue/mcpServers/`` block files.

``mcpServers`` is a list of named entries (YAML, or JSON carrying a block file's name, version or
schema); a JSON block file may also hold a Claude-style map. Hub secrets are never resolved.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from mcpcost.configs.clients.api_rules import CHECKED
from mcpcost.configs.clients.client import (
    Claim,
    Client,
    Location,
    Parsed,
    Places,
    ProjectFile,
    Scope,
)
from mcpcost.configs.clients.dialect import Dialect, entry_from_map, map_block
from mcpcost.configs.clients.formats import FileFormat, kind_of, object_of
from mcpcost.configs.clients.presentation import Confidence, ModelName, Presentation, Provenance
from mcpcost.configs.clients.raw_server import FieldReader, ParseContext, RawServer
from mcpcost.configs.config_file import ClientName
from mcpcost.configs.jsonc import KeyPath
from mcpcost.configs.variables import VariableSyntax

NAME = ClientName("continue")
PROJECT_FILES = tuple(
    ProjectFile(f".continue/mcpServers/*.{ext}") for ext in ("yaml", "yml", "json")
)
DIALECT = Dialect(NAME)
_MARKERS = ("name", "version", "schema")


def parse(
    data: Any, lines: Mapping[KeyPath, int], ctx: ParseContext, problems: list[str]
) -> Parsed:
    root = object_of(data, "the file")
    servers = root.get("mcpServers")
    if servers is None:
        return Parsed([])
    if isinstance(servers, dict):  # a Claude/Cursor-style JSON block file
        return Parsed(map_block(servers, ("mcpServers",), DIALECT, problems, lines))
    if not isinstance(servers, list):
        problems.append(f"mcpServers is {kind_of(servers)}, expected a list (ignored)")
        return Parsed([])
    reader = FieldReader(problems)
    out: list[RawServer] = []
    for i, item in enumerate(servers):
        line = lines.get(("mcpServers", i))
        if not isinstance(item, dict):
            raw = RawServer(name=f"#{i + 1}", line=line)
            reader.note(raw, f"entry is {kind_of(item)}, expected a mapping", fatal=True)
            out.append(raw)
            continue
        name = item.get("name")
        if not isinstance(name, str) or not name:
            name = f"#{i + 1}"
            problems.append(f"mcpServers[{i}] has no name")
        obj = dict(item)
        options = item.get("requestOptions")
        if "headers" not in obj and isinstance(options, dict) and "headers" in options:
            obj["headers"] = options["headers"]
        if any(r.name == name for r in out):
            problems.append(f"mcpServers[{i}]: a second server named {name!r} (left out)")
            continue
        out.append(entry_from_map(name, obj, DIALECT, reader, line))
    return Parsed(out)


def is_continue_list(data: Mapping[str, Any], text_format: FileFormat | None) -> bool:
    """A list ``mcpServers`` is Continue's form in YAML, or in JSON that carries a Continue block
    file's ``name``/``version``/``schema``; elsewhere it is a wrong-typed server block."""
    if not isinstance(data.get("mcpServers"), list):
        return False
    return text_format != FileFormat.JSON or any(k in data for k in _MARKERS)


def file_format(source: str) -> FileFormat:
    return FileFormat.JSON if source.lower().endswith(".json") else FileFormat.YAML


def locations(at: Places) -> list[Location]:
    return [
        Location(NAME, Scope.USER, at.home / ".continue" / "config.yaml", True),
        *at.project(NAME, PROJECT_FILES),
    ]


_NOT_ALNUM = re.compile(r"[^a-z0-9]+")


def model_name(server: str, tool: str) -> str:
    prefix = _NOT_ALNUM.sub("_", server.lower()).strip("_")
    return tool if tool.startswith(prefix) else f"{prefix}_{tool}"


PRESENTATION = Presentation(
    name=ModelName(
        template="{server}_{tool}",
        build=model_name,
        rewrite=(
            "the server's name is lower-cased, each run of other characters than a-z 0-9 "
            "becomes one '_' (none at either end); a tool name that already starts with that "
            "prefix is used alone"
        ),
        provenance=Provenance(
            source=(
                "https://github.com/continuedev/continue/blob/"
                "d0a3c0b626b5bebc3bef4742eec05a0242be0bab/core/tools/mcpToolName.ts"
            ),
            date=CHECKED,
            confidence=Confidence.SOURCE_CODE,
        ),
    ),
)


CLIENT = Client(
    presentation=PRESENTATION,
    name=NAME,
    label="Continue",
    syntax=VariableSyntax(hub_secrets=True),
    parse=parse,
    locations=locations,
    project_files=PROJECT_FILES,
    file_format=file_format,
    claims=(Claim("mcpServers", 10, is_continue_list),),
)
