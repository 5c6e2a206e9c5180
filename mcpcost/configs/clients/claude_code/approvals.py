"""Which ``.mcp.json`` servers Claude Code runs without asking: the approvals its settings
files and the project's block of ``~/.claude.json`` record (``enabledMcpjsonServers``,
``disabledMcpjsonServers``, ``enableAllProjectMcpServers``), and its trust dialog, which decides
whether the project's own settings files count. ``consent`` is the client's consent hook."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import PurePath
from typing import Any

from mcpcost.configs.clients.claude_code.claude_files import (
    claude_project_key,
    settings_object,
    settings_text,
)
from mcpcost.configs.clients.client import Approval, Scope
from mcpcost.configs.clients.raw_server import ParseContext
from mcpcost.configs.clients.settings_files import (
    ClientSettings,
    ReadState,
    SettingsLayer,
    SettingsText,
)
from mcpcost.configs.config_file import ConfigEntry, ConfigFile, ConfigState

ENABLED_KEY = "enabledMcpjsonServers"
DISABLED_KEY = "disabledMcpjsonServers"
ENABLE_ALL_KEY = "enableAllProjectMcpServers"
TRUST_ACCEPTED_KEY = "hasTrustDialogAccepted"
NOT_APPROVED = "not approved in any settings file: Claude Code asks before loading it"


@dataclass(frozen=True, slots=True, kw_only=True)
class ApprovalSettings:
    """What one Claude Code settings file (or its project block) says about ``.mcp.json`` servers."""

    layer: SettingsLayer
    source: str
    state: ReadState
    enabled: tuple[str, ...] = ()
    disabled: tuple[str, ...] = ()
    enable_all: bool | None = None
    problems: tuple[str, ...] = ()  # wrong-typed keys (ignored), named, never quoted


def _names(data: Mapping[str, Any], key: str, problems: list[str]) -> tuple[str, ...]:
    value = data.get(key)
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        problems.append(f"{key} is not a list of server names (ignored)")
        return ()
    return tuple(value)


def parse_approval_settings(
    layer: SettingsLayer, source: str, text: str | bytes | None
) -> ApprovalSettings:
    """A settings file's text (None: absent) -> its approval keys (read through
    ``settings_object``, as the deferral posture reads the same file)."""
    state, data = settings_object(text)
    if state is not ReadState.READ:
        return ApprovalSettings(layer=layer, source=source, state=state)
    return approval_keys(layer, source, data)


def approval_keys(layer: SettingsLayer, source: str, data: Mapping[str, Any]) -> ApprovalSettings:
    """The three approval keys of one JSON object (wrong types are problems, ignored)."""
    problems: list[str] = []
    enable_all = data.get(ENABLE_ALL_KEY)
    if enable_all is not None and not isinstance(enable_all, bool):
        problems.append(f"{ENABLE_ALL_KEY} is not true or false (ignored)")
        enable_all = None
    return ApprovalSettings(
        layer=layer,
        source=source,
        state=ReadState.READ,
        enabled=_names(data, ENABLED_KEY, problems),
        disabled=_names(data, DISABLED_KEY, problems),
        enable_all=enable_all,
        problems=tuple(problems),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class ProjectState:
    """What Claude Code recorded for this project in ``~/.claude.json``: the approvals the user
    gave in its dialog, and whether the user accepted the folder's trust dialog."""

    approval: ApprovalSettings
    trust_accepted: bool


def project_state(f: SettingsText, ctx: ParseContext) -> ProjectState:
    """The current project's block of ``~/.claude.json`` (absent file or block: nothing
    approved; an unreadable file approves nothing either, and says so)."""
    if f.state is ReadState.UNREADABLE:
        empty = ApprovalSettings(layer=f.layer, source=f.path, state=ReadState.UNREADABLE)
        return ProjectState(approval=empty, trust_accepted=False)
    state, data = settings_object(settings_text(f))
    projects = data.get("projects")
    key = claude_project_key(projects, ctx) if isinstance(projects, dict) else None
    block = projects.get(key) if isinstance(projects, dict) and key is not None else None
    if not isinstance(block, dict):
        absent = ReadState.ABSENT if state is ReadState.READ else state
        empty = ApprovalSettings(layer=f.layer, source=f.path, state=absent)
        return ProjectState(approval=empty, trust_accepted=False)
    return ProjectState(
        approval=approval_keys(f.layer, f.path, block),
        trust_accepted=block.get(TRUST_ACCEPTED_KEY) is True,
    )


def approval_files(settings: ClientSettings) -> tuple[ApprovalSettings, ...]:
    """The four settings files' approval keys, highest precedence first."""
    out: list[ApprovalSettings] = []
    for f in settings.without(SettingsLayer.CLIENT_STATE):
        if f.state is ReadState.UNREADABLE:
            out.append(ApprovalSettings(layer=f.layer, source=f.path, state=ReadState.UNREADABLE))
        else:
            out.append(parse_approval_settings(f.layer, f.path, settings_text(f)))
    return tuple(out)


def _approval(entry: ConfigEntry, settings: Sequence[ApprovalSettings]) -> ConfigEntry:
    if entry.disabled:
        return entry
    for s in settings:  # highest precedence first; a name in a disabled list always wins
        if entry.name in s.disabled:
            return replace(entry, disabled=True, disabled_reason=f"disabled in {s.source}")
    if any(entry.name in s.enabled for s in settings):
        return entry
    enable_all = next((s.enable_all for s in settings if s.enable_all is not None), None)
    if enable_all:
        return entry
    return replace(entry, notes=(*entry.notes, NOT_APPROVED))


def apply_project_approval(cf: ConfigFile, settings: Sequence[ApprovalSettings]) -> ConfigFile:
    """Claude Code's ``.mcp.json`` servers as its settings approve them (pure): a name in any
    ``disabledMcpjsonServers`` is switched off (naming the file); a name in no
    ``enabledMcpjsonServers`` without ``enableAllProjectMcpServers: true`` (the highest-precedence
    file that sets it decides) stays measured with a note. Unreadable settings files and
    wrong-typed keys are problem lines on the config."""
    if cf.state is ConfigState.ERROR or not cf.entries:
        return cf
    problems = list(cf.problems)
    for s in settings:
        if s.state is ReadState.UNREADABLE:
            problems.append(f"settings file {s.source} cannot be read: its approvals are unknown")
        problems.extend(f"settings file {s.source}: {p}" for p in s.problems)
    entries = tuple(_approval(e, settings) for e in cf.entries)
    state = ConfigState.ALL_DISABLED if all(e.disabled for e in entries) else ConfigState.OK
    return replace(cf, entries=entries, state=state, problems=tuple(problems))


def consenting_settings(
    settings: Sequence[ApprovalSettings], state: ProjectState
) -> tuple[ApprovalSettings, ...]:
    """The approvals that stand for the user's own consent. Settings files inside the project
    (``.claude/settings.json``, ``.claude/settings.local.json``) arrive with the clone, so they
    count only once the user accepted Claude Code's trust dialog for this folder; the managed
    and user files and the approvals Claude Code recorded in ``~/.claude.json`` always count."""
    in_project = (SettingsLayer.PROJECT, SettingsLayer.PROJECT_LOCAL)
    kept = [s for s in settings if state.trust_accepted or s.layer not in in_project]
    managed = [s for s in kept if s.layer == SettingsLayer.MANAGED]  # the administrator first
    return (*managed, state.approval, *(s for s in kept if s.layer != SettingsLayer.MANAGED))


def client_would_run(entry: ConfigEntry, settings: Sequence[ApprovalSettings]) -> bool:
    """Whether Claude Code loads this ``.mcp.json`` server without asking, by ``settings``
    (highest precedence first): not disabled anywhere, and named in an enabled list or covered
    by ``enableAllProjectMcpServers: true``."""
    if entry.disabled or any(entry.name in s.disabled for s in settings):
        return False
    if any(entry.name in s.enabled for s in settings):
        return True
    return bool(next((s.enable_all for s in settings if s.enable_all is not None), None))


def is_project_mcp_json(cf: ConfigFile) -> bool:
    """The project file whose servers Claude Code asks about before loading them."""
    return cf.scope is Scope.PROJECT and PurePath(cf.source).name == ".mcp.json"


def consent(cf: ConfigFile, settings: ClientSettings, ctx: ParseContext) -> Approval | None:
    """The consent hook: a project's ``.mcp.json`` as Claude Code's recorded approvals leave it
    (``apply_project_approval``, the project block of ``~/.claude.json`` first), and the servers
    it would load without asking, by the approvals that stand for the user's consent
    (``consenting_settings``). Any other file: None (nothing of it runs without the user)."""
    if not is_project_mcp_json(cf):
        return None
    files = approval_files(settings)
    state_file = next(iter(settings.layer(SettingsLayer.CLIENT_STATE)), None)
    if state_file is None:
        empty = ApprovalSettings(
            layer=SettingsLayer.CLIENT_STATE, source="~/.claude.json", state=ReadState.ABSENT
        )
        state = ProjectState(approval=empty, trust_accepted=False)
    else:
        state = project_state(state_file, ctx)
    approved = apply_project_approval(cf, (state.approval, *files))
    consenting = consenting_settings(files, state)
    runs = frozenset(e.name for e in approved.entries if client_would_run(e, consenting))
    return Approval(config=approved, runs=runs)
