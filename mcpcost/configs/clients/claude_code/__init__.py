"""Claude Code: where its files live, how it reads them, what it does with what they declare.

Its MCP configs: ``~/.claude.json`` (user servers, and a block per project whose servers have the
``local`` scope), a project's ``.mcp.json``, the managed ``managed-mcp.json`` (``layout``). Its four
settings files (managed, project-local, project, user) and the project's block of
``~/.claude.json`` are its settings files (``settings_files``): read once at the edge, they decide
which ``.mcp.json`` servers it runs without asking (``approvals``: its consent hook), whether
it defers tool definitions (``tool_search``: its deferral model), the variables the servers it
starts see (``settings_env``) and which servers an administrator lets it start
(``server_policy``).
"""

from __future__ import annotations

from mcpcost.configs.clients.claude_code.approvals import (
    ApprovalSettings,
    apply_project_approval,
    client_would_run,
    consent,
    parse_approval_settings,
)
from mcpcost.configs.clients.claude_code.claude_files import (
    BROKEN_FILES,
    LABEL,
    LOCAL,
    NAME,
    PROJECT_FILES,
    claude_json_path,
    has_project_servers,
    locations,
    parse,
    settings_files,
    settings_paths,
)
from mcpcost.configs.clients.claude_code.lens_rules import PRESENTATION
from mcpcost.configs.clients.claude_code.server_policy import SERVER_POLICY
from mcpcost.configs.clients.claude_code.settings_env import SETTINGS_ENV, settings_environment
from mcpcost.configs.clients.claude_code.tool_search import (
    BASE_URL,
    BETAS,
    DEFERRAL,
    TOOL_SEARCH,
    deferral_sources,
    parse_settings,
    resolve_posture,
)
from mcpcost.configs.clients.client import Claim, Client, ClientSessionRule, Scope
from mcpcost.configs.variables import VariableSyntax

__all__ = [
    "BASE_URL",
    "BETAS",
    "CLIENT",
    "DEFERRAL",
    "LOCAL",
    "NAME",
    "TOOL_SEARCH",
    "ApprovalSettings",
    "apply_project_approval",
    "claude_json_path",
    "client_would_run",
    "consent",
    "deferral_sources",
    "parse_approval_settings",
    "parse_settings",
    "resolve_posture",
    "settings_environment",
    "settings_files",
    "settings_paths",
]

CLIENT = Client(
    name=NAME,
    label=LABEL,
    syntax=VariableSyntax(braces=True, defaults=True),
    parse=parse,
    locations=locations,
    project_files=PROJECT_FILES,
    claims=(Claim("projects", 0, has_project_servers),),
    settings_files=settings_files,
    consent=consent,
    presentation=PRESENTATION,
    session=ClientSessionRule(
        precedence=(Scope.MANAGED, Scope.LOCAL, Scope.PROJECT, Scope.USER),
        documented=True,
        source="https://code.claude.com/docs/en/mcp#scope-hierarchy-and-precedence",
        managed_exclusive=True,
        scope_phrases={Scope.LOCAL: "local (this project's block of ~/.claude.json)"},
    ),
    broken_files=BROKEN_FILES,
    settings_env=SETTINGS_ENV,
    server_policy=SERVER_POLICY,
)
