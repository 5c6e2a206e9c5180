"""MCP clients: one module per client (where its files live, their format and shape, its
variable syntax, how it treats what they declare), collected by ``registry``.

Adding a client is one new module here plus its entry in ``registry.CLIENTS`` and its fixture;
CONTRIBUTING.md walks through it.
"""

from mcpcost.configs.clients.client import Client, Location, Places, ProjectFile
from mcpcost.configs.clients.raw_server import ParseContext
from mcpcost.configs.clients.registry import (
    CLIENT_SYNTAX,
    CLIENTS,
    KNOWN_CLIENTS,
    PROJECT_CONFIG_PATHS,
    client_named,
    detect_dialect,
    launchd_path_clients,
    locations,
    parse_config,
    parse_detected,
    presentation_of,
    project_client,
    syntax_for,
)
from mcpcost.configs.config_file import EXPLICIT, ClientName, Scope

__all__ = [
    "CLIENTS",
    "CLIENT_SYNTAX",
    "EXPLICIT",
    "KNOWN_CLIENTS",
    "PROJECT_CONFIG_PATHS",
    "Client",
    "ClientName",
    "Location",
    "ParseContext",
    "Places",
    "ProjectFile",
    "Scope",
    "client_named",
    "detect_dialect",
    "launchd_path_clients",
    "locations",
    "parse_config",
    "parse_detected",
    "presentation_of",
    "project_client",
    "syntax_for",
]
