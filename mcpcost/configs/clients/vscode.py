"""VS Code (stable and Insiders, with profiles): ``mcp.json``, or the ``mcp`` block of an older
``settings.json``. ``${input:id}`` resolves to a readable default; password inputs never do."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcpcost.configs.clients.api_rules import CHECKED, app_only_hidden
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
from mcpcost.configs.clients.dialect import Dialect, map_block
from mcpcost.configs.clients.formats import FileFormat, kind_of, object_of, server_block
from mcpcost.configs.clients.presentation import (
    Confidence,
    DeferralRegime,
    Effect,
    Kept,
    Presentation,
    Provenance,
    ToolCountLimit,
    ToolFilter,
    Trigger,
)
from mcpcost.configs.clients.raw_server import ParseContext
from mcpcost.configs.config_file import ClientName
from mcpcost.configs.jsonc import KeyPath
from mcpcost.configs.variables import VariableSyntax

NAME = ClientName("vscode")
PROJECT_FILES = (ProjectFile(".vscode/mcp.json"),)
DIALECT = Dialect(NAME, env_file=True)


def _servers(root: Mapping[str, Any], problems: list[str]) -> tuple[dict[str, Any], KeyPath, Any]:
    if "servers" in root or "inputs" in root:
        return server_block(root, "servers", problems) or {}, ("servers",), root.get("inputs")
    # legacy settings.json: "mcp": {"servers": ..., "inputs": ...}
    mcp = server_block(root, "mcp", problems)
    if mcp is None:
        return {}, ("servers",), None
    servers = server_block(mcp, "servers", problems, "mcp.") or {}
    return servers, ("mcp", "servers"), mcp.get("inputs")


def parse(
    data: Any, lines: Mapping[KeyPath, int], ctx: ParseContext, problems: list[str]
) -> Parsed:
    """VS Code's servers and the readable defaults of its ``inputs``."""
    block, path, inputs = _servers(object_of(data, "the file"), problems)
    input_values = vscode_inputs(inputs, problems)
    return Parsed(map_block(block, path, DIALECT, problems, lines), input_values)


def vscode_inputs(inputs: Any, problems: list[str]) -> dict[str, str | None]:
    """Input id -> its readable default; None for a password input or one without a default."""
    out: dict[str, str | None] = {}
    if inputs is None:
        return out
    if not isinstance(inputs, list):
        problems.append(f"inputs is {kind_of(inputs)}, expected a list (ignored)")
        return out
    for i, item in enumerate(inputs):
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            problems.append(f"inputs[{i}] has no string id (ignored)")
            continue
        default = item.get("default")
        secret = item.get("password") is True
        out[item["id"]] = default if isinstance(default, str) and not secret else None
    return out


def _has_vscode_block(data: Mapping[str, Any], text_format: FileFormat | None) -> bool:
    value = data.get("mcp")
    return isinstance(value, dict) and ("servers" in value or "inputs" in value)


def locations(at: Places) -> list[Location]:
    out: list[Location] = []
    for product in ("Code", "Code - Insiders"):
        user = at.app_dir / product / "User"
        out.append(Location(NAME, Scope.USER, user / "mcp.json"))
        out.append(Location(NAME, Scope.USER, user / "profiles" / "*" / "mcp.json"))
        out.append(Location(NAME, Scope.USER, user / "settings.json", True))
    out.extend(at.project(NAME, PROJECT_FILES))
    # the workspace settings.json is read here but is not among the repository files the
    # Action reads
    out.append(Location(NAME, Scope.PROJECT, at.cwd / ".vscode" / "settings.json", True))
    return out


PRESENTATION = Presentation(
    tool_limits=(
        ToolCountLimit(
            max_tools=128,
            scope="request",
            effect=Effect.REJECTS,
            rule='Copilot Chat refuses the request: "Cannot have more than 128 tools per request"',
            fix="switch servers off for this workspace, or drop one from mcp.json",
            provenance=Provenance(
                source="https://github.com/microsoft/vscode-copilot-release/issues/11653",
                date="2025-07",
                confidence=Confidence.REPORTED,
            ),
        ),
    ),
    hidden=app_only_hidden(),
    regime=DeferralRegime(
        mechanism="core-set",
        trigger=Trigger.MODEL_DEPENDENT,
        keeps=(Kept.NAMES,),
        note=(
            "about 30 core tools stay, the rest deferred, with models that support tool "
            "search; counted up front here (the worst case)"
        ),
        provenance=Provenance(
            source="https://github.com/microsoft/vscode-docs/pull/9695 (draft)",
            date="2026-04-24",
            confidence=Confidence.REPORTED,
        ),
    ),
    tool_filter=ToolFilter(
        how="untick the tool in the chat view's tools picker (Configure Tools)",
        provenance=Provenance(
            source="https://code.visualstudio.com/docs/copilot/chat/mcp-servers",
            date=CHECKED,
            confidence=Confidence.REPORTED,
        ),
    ),
)

CLIENT = Client(
    presentation=PRESENTATION,
    name=NAME,
    label="VS Code",
    syntax=VariableSyntax(env_prefix=True, editor=True, inputs=True),
    parse=parse,
    locations=locations,
    project_files=PROJECT_FILES,
    claims=(Claim("servers", 20), Claim("mcp", 60, _has_vscode_block)),
    session=ClientSessionRule(alternatives=True),
)
