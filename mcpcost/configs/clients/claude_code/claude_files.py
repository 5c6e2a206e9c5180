"""Claude Code's files: where its MCP configs and settings files live on each platform, how it
reads a settings file, and its ``~/.claude.json`` (user servers, and a block per project whose
servers have the ``local`` scope)."""

from __future__ import annotations

import ntpath
import posixpath
from collections.abc import Mapping
from pathlib import Path, PurePath, PurePosixPath, PureWindowsPath
from typing import Any

from mcpcost.configs.clients.broken_files import BrokenFileRule
from mcpcost.configs.clients.client import (
    Location,
    Parsed,
    Places,
    ProjectFile,
    Scope,
    env_value,
)
from mcpcost.configs.clients.dialect import Dialect, map_block
from mcpcost.configs.clients.formats import kind_of, object_of, server_block
from mcpcost.configs.clients.presentation import Confidence, Provenance
from mcpcost.configs.clients.raw_server import ParseContext, RawServer
from mcpcost.configs.clients.settings_files import (
    ReadState,
    SettingsFile,
    SettingsLayer,
    SettingsText,
)
from mcpcost.configs.config_file import ClientName
from mcpcost.configs.jsonc import KeyPath
from mcpcost.core.jsonvalue import parse_json
from mcpcost.errors import JSONSyntaxError

NAME = ClientName("claude-code")
LABEL = "Claude Code"
PROJECT_FILES = (ProjectFile(".mcp.json"),)
DIALECT = Dialect(NAME)
LOCAL = Scope.LOCAL  # the scope of a server in the project's block of ~/.claude.json

# What Claude Code does with one of its MCP files it cannot parse (``Client.broken_files``).
BROKEN_FILES = (
    BrokenFileRule(
        scopes=frozenset({Scope.PROJECT}),
        says="Claude Code will not load this file either: `claude mcp list` and /doctor report "
        "it as a configuration error",
        provenance=Provenance(
            source="https://code.claude.com/docs/en/changelog (2.1.144: `claude mcp list` shows "
            "configuration errors when .mcp.json can't be parsed)",
            date="2026-12",
            confidence=Confidence.DOCUMENTED,
        ),
    ),
    BrokenFileRule(
        scopes=frozenset({Scope.USER}),
        says="Claude Code will not start with this file either: it reports invalid JSON and "
        "offers to exit or to reset the file to defaults",
        provenance=Provenance(
            source="https://github.com/anthropics/claude-code/issues/18543",
            date="2026-12",
            confidence=Confidence.REPORTED,
        ),
    ),
)


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
) -> list[tuple[SettingsLayer, str]]:
    """(layer, path) of Claude Code's four settings files, highest precedence first.
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
        (SettingsLayer.MANAGED, str(managed)),
        (SettingsLayer.PROJECT_LOCAL, str(pure(cwd) / ".claude" / "settings.local.json")),
        (SettingsLayer.PROJECT, str(pure(cwd) / ".claude" / "settings.json")),
        (SettingsLayer.USER, str(pure(home) / ".claude" / "settings.json")),
    ]


def claude_json_path(home: Path, environ: Mapping[str, str], platform: str) -> Path:
    """``~/.claude.json``, or the one under ``CLAUDE_CONFIG_DIR`` when that is set."""
    config_dir = env_value(environ, "CLAUDE_CONFIG_DIR", platform)
    return (Path(config_dir) if config_dir else home) / ".claude.json"


def settings_files(at: Places) -> tuple[SettingsFile, ...]:
    """The four settings files, then ``~/.claude.json`` (where Claude Code records the answers
    the user gave its dialogs for each project)."""
    paths = settings_paths(
        home=str(at.home),
        cwd=str(at.cwd),
        platform=at.platform,
        environ=at.environ,
        system_root=at.system_root,
    )
    state = claude_json_path(at.home, at.environ, at.platform)
    return (
        *(SettingsFile(layer=layer, path=path) for layer, path in paths),
        SettingsFile(layer=SettingsLayer.CLIENT_STATE, path=str(state)),
    )


def locations(at: Places) -> list[Location]:
    managed = Path(managed_dir(at.platform, at.root, at.programdata))
    return [
        Location(NAME, Scope.USER, claude_json_path(at.home, at.environ, at.platform)),
        *at.project(NAME, PROJECT_FILES),
        Location(NAME, Scope.MANAGED, managed / "managed-mcp.json"),
    ]


def settings_object(text: str | bytes | None) -> tuple[ReadState, dict[str, Any]]:
    """How a Claude Code settings file reads: its state, and the object when it was read.

    Strict JSON, as Claude Code parses it; anything but a JSON object is unreadable. Both the
    deferral posture and the project-server approval read the files through this one function.
    """
    if text is None:
        return ReadState.ABSENT, {}
    try:
        data = parse_json(text)
    except JSONSyntaxError:
        return ReadState.UNREADABLE, {}
    if not isinstance(data, dict):
        return ReadState.UNREADABLE, {}
    return ReadState.READ, data


def settings_text(f: SettingsText) -> bytes | None:
    """A settings file's bytes as read (None: absent or unreadable)."""
    return f.text if f.state is ReadState.READ else None


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


def has_project_servers(data: Mapping[str, Any], text_format: object) -> bool:
    projects = data.get("projects")
    return isinstance(projects, dict) and any(
        isinstance(p, dict) and "mcpServers" in p for p in projects.values()
    )
