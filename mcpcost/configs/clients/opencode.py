"""OpenCode: ``opencode.json(c)`` under the XDG config directory and at a project's root.

Servers sit under ``mcp``; ``command`` may be the whole argv and the environment is
``environment``. A file of unknown origin with an ``mcp`` block that is not VS Code's is OpenCode's.
"""

from __future__ import annotations

from mcpcost.configs.clients.client import Claim, Client, Location, Places, ProjectFile, Scope
from mcpcost.configs.clients.dialect import Dialect, map_parser
from mcpcost.configs.config_file import ClientName
from mcpcost.configs.variables import VariableSyntax

NAME = ClientName("opencode")
PROJECT_FILES = tuple(ProjectFile(f"opencode.{ext}", True) for ext in ("json", "jsonc"))


def locations(at: Places) -> list[Location]:
    return [
        *(
            Location(NAME, Scope.USER, at.xdg / "opencode" / name, True)
            for name in ("opencode.json", "opencode.jsonc")
        ),
        *at.project(NAME, PROJECT_FILES),
    ]


CLIENT = Client(
    name=NAME,
    label="OpenCode",
    syntax=VariableSyntax(opencode=True),
    parse=map_parser("mcp", Dialect(NAME, command_list=True)),
    locations=locations,
    project_files=PROJECT_FILES,
    claims=(Claim("mcp", 61),),
)
