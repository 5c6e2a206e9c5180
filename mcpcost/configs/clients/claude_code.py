"""Claude Code: ``~/.claude.json`` (user and per-project blocks), a project's ``.mcp.json``, the
managed ``managed-mcp.json``; its four settings files, which decide tool search (the deferral
verdict) and whether ``.mcp.json`` servers are approved.
"""

from __future__ import annotations

import ntpath
import posixpath
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path, PurePath, PurePosixPath, PureWindowsPath
from typing import Any

from mcpcost.configs.clients.client import (
    Claim,
    Client,
    DeferralRule,
    Location,
    Parsed,
    Places,
    ProjectFile,
    Scope,
    SessionRule,
    env_value,
)
from mcpcost.configs.clients.dialect import Dialect, map_block
from mcpcost.configs.clients.formats import kind_of, object_of, server_block
from mcpcost.configs.clients.raw_server import ParseContext, RawServer
from mcpcost.configs.config_file import ConfigEntry, ConfigFile, ConfigState
from mcpcost.configs.jsonc import KeyPath
from mcpcost.configs.variables import VariableSyntax
from mcpcost.core.jsonvalue import parse_json
from mcpcost.core.record import Record, replace
from mcpcost.errors import JSONSyntaxError
from mcpcost.runtime.world_files import MAX_CONFIG_BYTES, read_world_file

NAME = "claude-code"
PROJECT_FILES = (ProjectFile(".mcp.json"),)
DIALECT = Dialect(NAME)
LOCAL = "local"  # the scope of a server in the project's block of ~/.claude.json


# ---------------------------------------------------------------- where its files live


def managed_dir(platform: str, root: PurePath, program_data: PurePath) -> PurePath:
    """The directory of Claude Code's managed (administrator) files."""
    if platform == "win32":
        return program_data / "ClaudeCode"
    if platform == "darwin":
        return root / "Library" / "Application Support" / "ClaudeCode"
    return root / "etc" / "claude-code"


def settings_paths(
    *,
    home: str,
    cwd: str,
    platform: str,
    environ: Mapping[str, str],
    system_root: Path | None = None,
) -> list[tuple[str, str]]:
    """(scope, path) of Claude Code's four settings files, highest precedence first.
    ``system_root`` stands in for ``/`` (and ``C:\\ProgramData``), as in ``Places``."""
    pure: type[PurePath] = PureWindowsPath if platform == "win32" else PurePosixPath
    if system_root is not None:
        root: PurePath = system_root
        program_data: PurePath = system_root / "ProgramData"
    else:
        root = pure("/")
        program_data = pure(env_value(environ, "PROGRAMDATA", platform) or "C:\\ProgramData")
    managed = managed_dir(platform, root, program_data) / "managed-settings.json"
    return [
        ("managed", str(managed)),
        ("project-local", str(pure(cwd) / ".claude" / "settings.local.json")),
        ("project", str(pure(cwd) / ".claude" / "settings.json")),
        ("user", str(pure(home) / ".claude" / "settings.json")),
    ]


def locations(at: Places) -> list[Location]:
    managed = Path(managed_dir(at.platform, at.root, at.programdata))
    return [
        Location(NAME, Scope.USER, claude_json_path(at.home, at.environ, at.platform)),
        *at.project(NAME, PROJECT_FILES),
        Location(NAME, Scope.MANAGED, managed / "managed-mcp.json"),
    ]


def settings_object(text: str | bytes | None) -> tuple[str, dict[str, Any]]:
    """How a Claude Code settings file reads: ``("absent" | "unreadable" | "read", object)``.

    Strict JSON, as Claude Code parses it; anything but a JSON object is unreadable. Both the
    deferral verdict and the project-server approval read the files through this one function.
    """
    if text is None:
        return "absent", {}
    try:
        data = parse_json(text)
    except JSONSyntaxError:
        return "unreadable", {}
    if not isinstance(data, dict):
        return "unreadable", {}
    return "read", data


# ---------------------------------------------------------------- parsing ~/.claude.json


def _norm_path(path: str, ctx: ParseContext) -> str:
    if ctx.realpath is not None:
        try:
            path = ctx.realpath(path)
        except (OSError, ValueError):
            pass
    if ctx.platform == "win32":
        path = ntpath.normpath(path.replace("/", "\\"))
        path = path.rstrip("\\") if len(path) > 3 else path
        return path.casefold()
    path = posixpath.normpath(path) if path else path
    path = path.rstrip("/") or "/"
    return path.casefold() if ctx.platform == "darwin" else path


def claude_project_key(projects: Mapping[str, Any], ctx: ParseContext) -> str | None:
    """The key of ``projects`` that names the current project: exact first, then normalised
    (trailing separators, case on macOS/Windows, symlinks when ``ctx.realpath`` is given)."""
    wanted = ctx.project_key if ctx.project_key is not None else ctx.cwd
    if wanted in projects:
        return wanted
    target = _norm_path(wanted, ctx)
    for key in projects:
        if _norm_path(key, ctx) == target:
            return key
    return None


def parse(
    data: Any, lines: Mapping[KeyPath, int], ctx: ParseContext, problems: list[str]
) -> Parsed:
    root = object_of(data, "the file")
    dialect = DIALECT
    raws: dict[str, RawServer] = {}
    block = server_block(root, "mcpServers", problems)
    for raw in map_block(block or {}, ("mcpServers",), dialect, problems, lines):
        raws[raw.name] = raw
    projects = root.get("projects")
    if isinstance(projects, dict):
        key = claude_project_key(projects, ctx)
        project = projects[key] if key is not None else None
        if key is not None and not isinstance(project, dict):
            problems.append(f"projects[<cwd>] is {kind_of(project)}, expected an object (ignored)")
        elif key is not None and project is not None:
            local = server_block(project, "mcpServers", problems, "projects[<cwd>].")
            path: KeyPath = ("projects", key, "mcpServers")
            for raw in map_block(local or {}, path, dialect, problems, lines):
                if raw.name in raws:
                    problems.append(
                        f"server {raw.name!r}: the project entry overrides the user entry"
                    )
                raw.scope = LOCAL
                raws[raw.name] = raw
    elif projects is not None:
        problems.append(f"projects is {kind_of(projects)}, expected an object (ignored)")
    return Parsed(list(raws.values()))


def _has_project_servers(data: Mapping[str, Any], text_format: object) -> bool:
    projects = data.get("projects")
    return isinstance(projects, dict) and any(
        isinstance(p, dict) and "mcpServers" in p for p in projects.values()
    )


# ---------------------------------------------------------------- approval of .mcp.json servers

ENABLED_KEY = "enabledMcpjsonServers"
DISABLED_KEY = "disabledMcpjsonServers"
ENABLE_ALL_KEY = "enableAllProjectMcpServers"
NOT_APPROVED = "not approved in any settings file: Claude Code asks before loading it"


class ApprovalSettings(Record, frozen=True, kw_only=True):
    """What one Claude Code settings file says about ``.mcp.json`` servers."""

    scope: str  # managed | project-local | project | user
    source: str
    state: str  # read | absent | unreadable
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


def parse_approval_settings(scope: str, source: str, text: str | bytes | None) -> ApprovalSettings:
    """A settings file's text (None: absent) -> its approval keys (read through
    ``settings_object``, as the deferral verdict reads the same file)."""
    state, data = settings_object(text)
    if state != "read":
        return ApprovalSettings(scope=scope, source=source, state=state)
    return approval_keys(scope, source, data)


def approval_keys(scope: str, source: str, data: Mapping[str, Any]) -> ApprovalSettings:
    """The three approval keys of one JSON object (wrong types are problems, ignored)."""
    problems: list[str] = []
    enable_all = data.get(ENABLE_ALL_KEY)
    if enable_all is not None and not isinstance(enable_all, bool):
        problems.append(f"{ENABLE_ALL_KEY} is not true or false (ignored)")
        enable_all = None
    return ApprovalSettings(
        scope=scope,
        source=source,
        state="read",
        enabled=_names(data, ENABLED_KEY, problems),
        disabled=_names(data, DISABLED_KEY, problems),
        enable_all=enable_all,
        problems=tuple(problems),
    )


def _read_if_exists(path: str) -> bytes | None:
    try:
        return read_world_file(path, max_bytes=MAX_CONFIG_BYTES)
    except FileNotFoundError:
        return None


def project_block_approval(
    source: str, text: str | bytes | None, ctx: ParseContext
) -> ApprovalSettings:
    """The approvals Claude Code records in the current project's block of ``~/.claude.json``
    (where it keeps the answer to its "use this project's servers?" question): the same three
    keys as the settings files, read the same way. Absent file or block: ``absent``."""
    state, data = settings_object(text)
    if state != "read":
        return ApprovalSettings(scope=LOCAL, source=source, state=state)
    projects = data.get("projects")
    key = claude_project_key(projects, ctx) if isinstance(projects, dict) else None
    block = projects.get(key) if isinstance(projects, dict) and key is not None else None
    if not isinstance(block, dict):
        return ApprovalSettings(scope=LOCAL, source=source, state="absent")
    return approval_keys(LOCAL, source, block)


def claude_json_path(home: Path, environ: Mapping[str, str], platform: str) -> Path:
    """``~/.claude.json``, or the one under ``CLAUDE_CONFIG_DIR`` when that is set."""
    config_dir = env_value(environ, "CLAUDE_CONFIG_DIR", platform)
    return (Path(config_dir) if config_dir else home) / ".claude.json"


def read_approval_settings(
    *,
    home: Path,
    cwd: Path,
    platform: str,
    environ: Mapping[str, str],
    system_root: Path | None = None,
    read: Callable[[str], bytes | None] = _read_if_exists,
    context: ParseContext | None = None,
) -> tuple[ApprovalSettings, ...]:
    """Claude Code's four settings files (``settings_paths``, highest precedence first) and, with
    a ``context`` naming the project, the project's block of ``~/.claude.json`` (after the
    project-local settings file), read for their approval keys. ``system_root`` stands in for
    ``/``, as in ``Places``."""
    out: list[ApprovalSettings] = []
    paths = settings_paths(
        home=str(home), cwd=str(cwd), platform=platform, environ=environ, system_root=system_root
    )
    for scope, path in paths:
        try:
            data = read(path)
        except (OSError, ValueError):
            out.append(ApprovalSettings(scope=scope, source=path, state="unreadable"))
            continue
        out.append(parse_approval_settings(scope, path, data))
        if scope == "project-local" and context is not None:
            state_path = str(claude_json_path(home, environ, platform))
            try:
                state_text = read(state_path)
            except (OSError, ValueError):
                out.append(ApprovalSettings(scope=LOCAL, source=state_path, state="unreadable"))
                continue
            out.append(project_block_approval(state_path, state_text, context))
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
        if s.state == "unreadable":
            problems.append(f"settings file {s.source} cannot be read: its approvals are unknown")
        problems.extend(f"settings file {s.source}: {p}" for p in s.problems)
    entries = tuple(_approval(e, settings) for e in cf.entries)
    state = ConfigState.ALL_DISABLED if all(e.disabled for e in entries) else ConfigState.OK
    return replace(cf, entries=entries, state=state, problems=tuple(problems))


TRUST_ACCEPTED_KEY = "hasTrustDialogAccepted"
PROJECT_BLOCK = "claude-json-project"  # the scope of the approvals kept in ~/.claude.json


class ProjectState(Record, frozen=True, kw_only=True):
    """What Claude Code recorded for this project in ``~/.claude.json``: the approvals the user
    gave in its dialog, and whether the user accepted the folder's trust dialog."""

    approval: ApprovalSettings
    trust_accepted: bool


def project_state(text: str | bytes | None, source: str, ctx: ParseContext) -> ProjectState:
    """The project block of ``~/.claude.json`` for ``ctx``'s project (absent: nothing approved)."""
    state, data = settings_object(text)
    projects = data.get("projects")
    block = None
    if isinstance(projects, dict):
        key = claude_project_key(projects, ctx)
        block = projects.get(key) if key is not None else None
    if not isinstance(block, dict):
        empty = ApprovalSettings(scope=PROJECT_BLOCK, source=source, state=state)
        return ProjectState(approval=empty, trust_accepted=False)
    problems: list[str] = []
    enable_all = block.get(ENABLE_ALL_KEY)
    approval = ApprovalSettings(
        scope=PROJECT_BLOCK,
        source=source,
        state="read",
        enabled=_names(block, ENABLED_KEY, problems),
        disabled=_names(block, DISABLED_KEY, problems),
        enable_all=enable_all if isinstance(enable_all, bool) else None,
        problems=tuple(problems),
    )
    return ProjectState(approval=approval, trust_accepted=block.get(TRUST_ACCEPTED_KEY) is True)


def consenting_settings(
    settings: Sequence[ApprovalSettings], state: ProjectState
) -> tuple[ApprovalSettings, ...]:
    """The approvals that stand for the user's own consent. Settings files inside the project
    (``.claude/settings.json``, ``.claude/settings.local.json``) arrive with the clone, so they
    count only once the user accepted Claude Code's trust dialog for this folder; the managed
    and user files and the approvals Claude Code recorded in ``~/.claude.json`` always count."""
    in_project = ("project", "project-local")
    kept = [s for s in settings if state.trust_accepted or s.scope not in in_project]
    managed = [s for s in kept if s.scope == "managed"]  # the administrator's word first
    return (*managed, state.approval, *(s for s in kept if s.scope != "managed"))


def client_would_run(entry: ConfigEntry, settings: Sequence[ApprovalSettings]) -> bool:
    """Whether Claude Code loads this ``.mcp.json`` server without asking, by ``settings``
    (highest precedence first): not disabled anywhere, and named in an enabled list or covered
    by ``enableAllProjectMcpServers: true``."""
    if entry.disabled or any(entry.name in s.disabled for s in settings):
        return False
    if any(entry.name in s.enabled for s in settings):
        return True
    return bool(next((s.enable_all for s in settings if s.enable_all is not None), None))


def is_project_mcp_json(loc: Location, path: Path) -> bool:
    """The project file whose servers Claude Code asks about before loading them."""
    return loc.client == NAME and loc.scope == Scope.PROJECT and path.name == ".mcp.json"


CLIENT = Client(
    name=NAME,
    label="Claude Code",
    syntax=VariableSyntax(braces=True, defaults=True),
    parse=parse,
    locations=locations,
    project_files=PROJECT_FILES,
    claims=(Claim("projects", 0, _has_project_servers),),
    deferral=DeferralRule.TOOL_SEARCH,
    session=SessionRule(
        precedence=("managed", "local", "project", "user"),
        documented=True,
        source="https://code.claude.com/docs/en/mcp#scope-hierarchy-and-precedence",
        managed_exclusive=True,
    ),
)
