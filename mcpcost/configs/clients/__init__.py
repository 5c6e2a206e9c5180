"""MCP clients: one module per client, or one package for a large one (``claude_code/``), each
building one ``Client`` (where its files live, their format and shape, its variable syntax, its
settings files, consent, session rule and how it presents tools to its model), collected by
``registry``. The shared parts are ``client`` (the record and its hooks), ``settings_files``,
``presentation``, ``raw_server``, ``dialect`` and ``formats``.

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
