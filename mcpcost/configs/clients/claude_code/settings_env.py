"""The ``env`` block of Claude Code's settings files: Claude Code sets those variables in its own
environment at start, and the servers it starts (and the ``${VAR}`` references in its MCP
configs) see them. ``SETTINGS_ENV`` is the client's ``SettingsEnv`` rule."""

from __future__ import annotations

import re

from mcpcost.configs.clients.claude_code.approvals import project_state
from mcpcost.configs.clients.claude_code.claude_files import settings_object, settings_text
from mcpcost.configs.clients.client import SettingsEnv
from mcpcost.configs.clients.presentation import Confidence, Provenance
from mcpcost.configs.clients.raw_server import ParseContext
from mcpcost.configs.clients.settings_files import ClientSettings, ReadState, SettingsLayer

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# settings files that come with a clone: they count once the user trusted the folder
_IN_PROJECT = (SettingsLayer.PROJECT, SettingsLayer.PROJECT_LOCAL)


def settings_environment(settings: ClientSettings, ctx: ParseContext) -> dict[str, str]:
    """What the ``env`` blocks of the four settings files set, the highest-precedence file
    winning a name (managed, project-local, project, user). The project's own two files count
    only once the user accepted Claude Code's trust dialog for this folder (recorded in
    ``~/.claude.json``): until then a cloned repository could point a user's server, and the
    credentials in its headers, anywhere. Entries that are not a variable name with a string
    value are left out."""
    state_file = next(iter(settings.layer(SettingsLayer.CLIENT_STATE)), None)
    trusted = state_file is not None and project_state(state_file, ctx).trust_accepted
    out: dict[str, str] = {}
    for f in settings.without(SettingsLayer.CLIENT_STATE):  # highest precedence first
        if f.state is not ReadState.READ or (f.layer in _IN_PROJECT and not trusted):
            continue
        _, data = settings_object(settings_text(f))
        env = data.get("env")
        if not isinstance(env, dict):
            continue
        for name, value in env.items():
            if isinstance(name, str) and isinstance(value, str) and _NAME.fullmatch(name):
                out.setdefault(name, value)
    return out


SETTINGS_ENV = SettingsEnv(
    values=settings_environment,
    rule=(
        "the env block of its settings files (managed, .claude/settings.local.json, "
        ".claude/settings.json, ~/.claude/settings.json; the first that sets a name wins, over "
        "the shell) is set for the servers it starts, so a ${VAR} defined there resolves; "
        "mcpcost counts the project's own two files only once the folder's trust dialog was "
        "accepted"
    ),
    provenance=Provenance(
        source="https://code.claude.com/docs/en/settings (env: applied to every session)",
        date="2026-12-05",
        confidence=Confidence.DOCUMENTED,
    ),
)
