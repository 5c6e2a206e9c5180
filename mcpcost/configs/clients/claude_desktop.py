"""Claude Desktop: ``claude_desktop_config.json`` in the app's settings directory."""

from __future__ import annotations

from mcpcost.configs.clients.api_rules import (
    ANTHROPIC_TOOL_DOCS,
    anthropic_projection,
    app_only_hidden,
)
from mcpcost.configs.clients.broken_files import BrokenFileRule
from mcpcost.configs.clients.client import Client, ClientSessionRule, Location, Places, Scope
from mcpcost.configs.clients.dialect import Dialect, map_parser
from mcpcost.configs.clients.formats import FileFormat
from mcpcost.configs.clients.presentation import (
    Confidence,
    Effect,
    NamePattern,
    Presentation,
    Provenance,
)
from mcpcost.configs.config_file import ClientName
from mcpcost.configs.variables import NONE

NAME = ClientName("claude-desktop")
# url entries are not loaded from this file (remote servers are added in the app)
DIALECT = Dialect(NAME, url_keys=("url", "serverUrl"), remote_allowed=False)
_FILE = "claude_desktop_config.json"


def locations(at: Places) -> list[Location]:
    out = [Location(NAME, Scope.USER, at.app_dir / "Claude" / _FILE)]
    if at.platform == "win32":  # the Microsoft Store package keeps its own copy
        msix = at.localappdata / "Packages" / "Claude_pzs8sxrjxfjjc" / "LocalCache" / "Roaming"
        out.append(Location(NAME, Scope.USER, msix / "Claude" / _FILE))
    return out


PRESENTATION = Presentation(
    name_pattern=NamePattern(
        pattern=r"[a-zA-Z0-9_-]{1,64}",
        effect=Effect.REJECTS,
        rule=(
            "Claude Desktop validates each tool name against ^[a-zA-Z0-9_-]{1,64}$ "
            "(FrontendRemoteMcpToolDefinition.name) and loads none of the server's tools, or "
            "fails to start a chat, when one does not match"
        ),
        fix="ask the server's author to rename the tool: at most 64 of letters, digits, '_', '-'",
        provenance=Provenance(
            source="https://github.com/hostinger/api-mcp-server/issues/48 (and barryw/ImmichMCP#3)",
            date="2026-07-08",
            confidence=Confidence.REPORTED,
        ),
    ),
    projection=anthropic_projection(
        Provenance(source=ANTHROPIC_TOOL_DOCS, date="2026-12", confidence=Confidence.REPORTED)
    ),
    hidden=app_only_hidden(),
)

CLIENT = Client(
    presentation=PRESENTATION,
    name=NAME,
    label="Claude Desktop",
    syntax=NONE,
    parse=map_parser("mcpServers", DIALECT),
    locations=locations,
    file_format=lambda source: FileFormat.STRICT_JSON,  # the app reads it with JSON.parse
    launchd_path_on_macos=True,
    session=ClientSessionRule(alternatives=True),
    broken_files=(
        BrokenFileRule(
            scopes=frozenset({Scope.USER}),
            says="Claude Desktop will not load this file either: at start it reports an error "
            "reading or parsing it",
            provenance=Provenance(
                source="https://github.com/TonybotNi/ZotLink/issues/2",
                date="2026-12",
                confidence=Confidence.REPORTED,
            ),
        ),
    ),
)
