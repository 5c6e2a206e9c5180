"""Codex: ``[mcp_servers.NAME]`` tables in ``config.toml`` (``$CODEX_HOME``, else ``~/.codex``).

Codex expands no variables in values; it passes named variables through (``env_vars``), reads
header values and a bearer token from named variables, and speaks streamable HTTP to url entries.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mcpcost.configs.clients.api_rules import (
    CHECKED,
    openai_function_projection,
    underscore_all_but_word,
)
from mcpcost.configs.clients.client import (
    Claim,
    Client,
    ClientSessionRule,
    Location,
    Parsed,
    Places,
    ProjectFile,
    Scope,
)
from mcpcost.configs.clients.dialect import own_entries
from mcpcost.configs.clients.formats import FileFormat
from mcpcost.configs.clients.presentation import (
    Confidence,
    DeferralRegime,
    Effect,
    ModelName,
    NameLimit,
    Presentation,
    Provenance,
    ToolFilter,
    Trigger,
)
from mcpcost.configs.clients.raw_server import FieldReader, ParseContext
from mcpcost.configs.config_file import ClientName
from mcpcost.configs.jsonc import KeyPath
from mcpcost.configs.variables import NONE
from mcpcost.core.spec import TransportName

NAME = ClientName("codex")
PROJECT_FILES = (ProjectFile(".codex/config.toml", True),)


def parse(
    data: Any, lines: Mapping[KeyPath, int], ctx: ParseContext, problems: list[str]
) -> Parsed:
    reader = FieldReader(problems)
    vctx = ctx.variables()
    out, todo = own_entries(data, "mcp_servers", "a table", lines, reader)
    for raw, obj in todo:
        raw.command = reader.string(raw, obj, "command")
        raw.args = reader.string_list(raw, obj, "args") or []
        raw.env = reader.string_map(raw, obj, "env")
        reader.passed_env(raw, obj, "env_vars", vctx)
        raw.cwd = reader.string(raw, obj, "cwd")
        raw.url = reader.string(raw, obj, "url")
        raw.headers = reader.string_map(raw, obj, "http_headers")
        for header, var in reader.string_map(raw, obj, "env_http_headers").items():
            value = vctx.env(var)
            if value is None:
                raw.unresolved.append("${" + var + "}")
                raw.unresolved_fields.append("headers")
            else:
                raw.headers[header] = value
        bearer = reader.string(raw, obj, "bearer_token_env_var")
        if bearer is not None:
            value = vctx.env(bearer)
            if value is None:
                raw.unresolved.append("${" + bearer + "}")
                raw.unresolved_fields.append("headers")
            else:
                raw.headers["Authorization"] = f"Bearer {value}"
        raw.disabled = reader.flag(raw, obj, "enabled") is False
        enabled_tools = reader.string_list(raw, obj, "enabled_tools", fatal=False)
        raw.enabled_tools = tuple(enabled_tools) if enabled_tools is not None else None
        raw.disabled_tools = tuple(
            reader.string_list(raw, obj, "disabled_tools", fatal=False) or ()
        )
        if raw.command is not None:
            raw.transport = TransportName.STDIO
            raw.url = None
        elif raw.url is not None:
            raw.transport = TransportName.HTTP  # Codex speaks streamable HTTP to url entries
    return Parsed(out)


def locations(at: Places) -> list[Location]:
    home = at.env("CODEX_HOME")
    base = Path(home) if home else at.home / ".codex"
    return [
        Location(NAME, Scope.USER, base / "config.toml", True),
        *at.project(NAME, PROJECT_FILES),
    ]


CODEX = "https://github.com/openai/codex/blob/00a35b1bf7756fef83d5100d40804d2a9c4e6a04"
_TOOLS_RS = Provenance(
    source=f"{CODEX}/codex-rs/codex-mcp/src/tools.rs",
    date=CHECKED,
    confidence=Confidence.SOURCE_CODE,
)


def model_name(server: str, tool: str) -> str:
    return underscore_all_but_word(f"mcp__{server}__{tool}")


PRESENTATION = Presentation(
    name=ModelName(
        template="mcp__{server}__{tool}",
        build=model_name,
        rewrite=(
            "characters outside A-Z a-z 0-9 _ become '_'; names that collide get a hash suffix"
        ),
        dedupes=True,
        provenance=_TOOLS_RS,
    ),
    name_limits=(
        NameLimit(
            subject="model-name",
            max_length=64,
            effect=Effect.RENAMES,
            rule="a model-visible name over 64 bytes is cut and given a hash suffix",
            fix="none needed; a shorter server name keeps the name readable to the model",
            provenance=_TOOLS_RS,
        ),
    ),
    projection=openai_function_projection(
        Provenance(
            source=(
                f"{CODEX}/codex-rs/core/src/mcp_tool_exposure.rs (mcp_tool_to_responses_api_tool; "
                "ResponsesApiTool sends strict: false)"
            ),
            date=CHECKED,
            confidence=Confidence.SOURCE_CODE,
        ),
        strict=False,
    ),
    regime=DeferralRegime(
        mechanism="tool-search",
        trigger=Trigger.TOOL_COUNT,
        min_tools=100,
        keeps=(),
        note=(
            "only with a model that supports tool search; behind the token-budget feature flag "
            "the trigger is 2,000 tokens (x 4 bytes) of function JSON instead"
        ),
        provenance=Provenance(
            source=(
                "https://github.com/openai/codex/blob/143cb13f6418f1d81601ba71d3699cadf949fef9/"
                "codex-rs/core/src/mcp_tool_exposure.rs"
            ),
            date=CHECKED,
            confidence=Confidence.SOURCE_CODE,
        ),
    ),
    tool_filter=ToolFilter(
        how="disabled_tools (or enabled_tools) in the server's [mcp_servers.<name>] table",
        provenance=_TOOLS_RS,
    ),
)

CLIENT = Client(
    presentation=PRESENTATION,
    name=NAME,
    label="Codex",
    syntax=NONE,
    parse=parse,
    locations=locations,
    project_files=PROJECT_FILES,
    file_format=lambda source: FileFormat.TOML,
    claims=(Claim("mcp_servers", 40),),
    session=ClientSessionRule(
        precedence=(Scope.PROJECT, Scope.USER),
        documented=True,
        source="https://developers.openai.com/codex/config-basic",
    ),
)
