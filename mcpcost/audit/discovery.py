"""Where each client keeps its MCP config, and reading the ones that exist.

``locations`` is pure (home, cwd, platform, environment in; paths out). ``discover`` and
``load_explicit`` do the file-system reads, at the edge; parsing is ``clients.parse_config``.
Nothing here launches anything.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Any

from mcpcost.audit.clients import (
    EXPLICIT,
    KNOWN_CLIENTS,
    ParseContext,
    parse_config,
    parse_detected,
)
from mcpcost.audit.deferral import settings_object, settings_paths
from mcpcost.audit.model import ConfigEntry, ConfigFile, ConfigState
from mcpcost.transports.processes.macos import MacPlatform, shell_path_note

__all__ = [
    "KNOWN_CLIENTS",
    "PROJECT_CONFIG_PATHS",
    "ApprovalSettings",
    "ConfigListing",
    "Location",
    "ServerLine",
    "apply_project_approval",
    "config_listing",
    "discover",
    "load_explicit",
    "locations",
    "parse_approval_settings",
    "parse_project_config",
    "project_client",
    "read_approval_settings",
]


@dataclass(frozen=True)
class Location:
    """One place a client may keep a config. ``pattern`` may hold a ``*`` in its last part.
    ``optional_section``: a general settings file, skipped by discovery when it has no MCP block."""

    client: str
    scope: str  # user | project | managed
    pattern: Path
    optional_section: bool = False


# Repository-level configs of every client, relative to the repo root: the Action reads these
# from git, and ``locations`` looks for them under the working directory.
# (path, client, optional_section)
_PROJECT_FILES: tuple[tuple[str, str, bool], ...] = (
    (".mcp.json", "claude-code", False),
    (".cursor/mcp.json", "cursor", False),
    (".vscode/mcp.json", "vscode", False),
    (".gemini/settings.json", "gemini", True),
    (".codex/config.toml", "codex", True),
    (".zed/settings.json", "zed", True),
    (".roo/mcp.json", "roo", False),
    *((f".continue/mcpServers/*.{ext}", "continue", False) for ext in ("yaml", "yml", "json")),
    *((f"opencode.{ext}", "opencode", True) for ext in ("json", "jsonc")),
)
PROJECT_CONFIG_PATHS: tuple[str, ...] = tuple(p for p, _, _ in _PROJECT_FILES)


def project_client(relative_path: str) -> str | None:
    """The client whose project config lives at ``relative_path`` (None: not a known one)."""
    path = str(PurePosixPath(relative_path.replace("\\", "/"))).removeprefix("./")
    for pattern, client, _ in _PROJECT_FILES:
        if fnmatch.fnmatchcase(path, pattern) and path.count("/") == pattern.count("/"):
            return client
    return None


def parse_project_config(relative_path: str, text: str, context: ParseContext) -> ConfigFile:
    """One repository config read from a git blob (the Action): client from its path."""
    client = project_client(relative_path)
    if client is None:
        return parse_detected(
            relative_path, text, context=context, client=EXPLICIT, scope="project"
        )
    return parse_config(client, relative_path, text, context=context, scope="project")


# ---------------------------------------------------------------- locations (pure)


def _env(environ: Mapping[str, str], name: str, platform: str) -> str | None:
    if platform == "win32":
        for key, value in environ.items():
            if key.upper() == name.upper():
                return value or None
        return None
    return environ.get(name) or None


def locations(
    *,
    home: Path,
    cwd: Path,
    platform: str,
    environ: Mapping[str, str],
    system_root: Path | None = None,
) -> list[Location]:
    """Every place any known client may keep an MCP config, for this OS (pure).

    ``system_root`` stands in for ``/`` (and ``C:\\ProgramData`` on Windows) so tests can hold
    managed/system files in a temporary directory.
    """
    if platform not in ("linux", "darwin", "win32"):
        raise ValueError(f"unknown platform {platform!r}")
    root = system_root if system_root is not None else Path("/")

    def env_path(name: str, fallback: Path) -> Path:
        value = _env(environ, name, platform)
        return Path(value) if value else fallback

    appdata = env_path("APPDATA", home / "AppData" / "Roaming")
    localappdata = env_path("LOCALAPPDATA", home / "AppData" / "Local")
    if system_root is not None:
        programdata = system_root / "ProgramData"
    else:
        programdata = env_path("PROGRAMDATA", Path("C:/ProgramData"))
    xdg = env_path("XDG_CONFIG_HOME", home / ".config")
    support = home / "Library" / "Application Support"
    # per-OS base for "config dir" style apps (VS Code, Claude Desktop...)
    app_dir = {"linux": xdg, "darwin": support, "win32": appdata}[platform]

    out: list[Location] = []

    def add(client: str, scope: str, path: Path, optional: bool = False) -> None:
        out.append(Location(client, scope, path, optional))

    def add_project(client: str) -> None:
        for relative, owner, optional in _PROJECT_FILES:
            if owner == client:
                add(client, "project", cwd / relative, optional)

    # Claude Desktop
    add("claude-desktop", "user", app_dir / "Claude" / "claude_desktop_config.json")
    if platform == "win32":
        msix = localappdata / "Packages" / "Claude_pzs8sxrjxfjjc" / "LocalCache" / "Roaming"
        add("claude-desktop", "user", msix / "Claude" / "claude_desktop_config.json")
    # Claude Code
    claude_dir = _env(environ, "CLAUDE_CONFIG_DIR", platform)
    add(
        "claude-code",
        "user",
        Path(claude_dir) / ".claude.json" if claude_dir else home / ".claude.json",
    )
    add_project("claude-code")
    managed = {
        "linux": root / "etc" / "claude-code",
        "darwin": root / "Library" / "Application Support" / "ClaudeCode",
        "win32": programdata / "ClaudeCode",
    }[platform]
    add("claude-code", "managed", managed / "managed-mcp.json")
    # Cursor
    add("cursor", "user", home / ".cursor" / "mcp.json")
    add_project("cursor")
    # VS Code (stable and Insiders; profiles), legacy settings.json "mcp" block
    for product in ("Code", "Code - Insiders"):
        user = app_dir / product / "User"
        add("vscode", "user", user / "mcp.json")
        add("vscode", "user", user / "profiles" / "*" / "mcp.json")
        add("vscode", "user", user / "settings.json", True)
    add_project("vscode")
    add("vscode", "project", cwd / ".vscode" / "settings.json", True)
    # Windsurf
    add("windsurf", "user", home / ".codeium" / "windsurf" / "mcp_config.json")
    # Codex
    codex_home = _env(environ, "CODEX_HOME", platform)
    add(
        "codex", "user", (Path(codex_home) if codex_home else home / ".codex") / "config.toml", True
    )
    add_project("codex")
    # Gemini CLI
    add("gemini", "user", home / ".gemini" / "settings.json", True)
    add_project("gemini")
    gemini_system = {
        "linux": root / "etc" / "gemini-cli",
        "darwin": root / "Library" / "Application Support" / "GeminiCli",
        "win32": programdata / "gemini-cli",
    }[platform]
    add("gemini", "managed", gemini_system / "settings.json", True)
    # Zed
    zed_user = appdata / "Zed" if platform == "win32" else xdg / "zed"
    add("zed", "user", zed_user / "settings.json", True)
    add_project("zed")
    # Cline and Roo (VS Code extension global storage), Cline CLI, Roo project file
    for product in ("Code", "Code - Insiders"):
        storage = app_dir / product / "User" / "globalStorage"
        add(
            "cline",
            "user",
            storage / "saoudrizwan.claude-dev" / "settings" / "cline_mcp_settings.json",
        )
        add(
            "roo", "user", storage / "rooveterinaryinc.roo-cline" / "settings" / "mcp_settings.json"
        )
    cline_cli = _env(environ, "CLINE_MCP_SETTINGS_PATH", platform)
    add(
        "cline",
        "user",
        Path(cline_cli)
        if cline_cli
        else home / ".cline" / "data" / "settings" / "cline_mcp_settings.json",
    )
    add_project("roo")
    # Continue
    add("continue", "user", home / ".continue" / "config.yaml", True)
    add_project("continue")
    # Goose
    goose = (
        appdata / "Block" / "goose" / "config" if platform == "win32" else xdg / "goose"
    ) / "config.yaml"
    add("goose", "user", goose, True)
    # GitHub Copilot CLI
    copilot_home = _env(environ, "COPILOT_HOME", platform)
    add(
        "copilot",
        "user",
        (Path(copilot_home) if copilot_home else home / ".copilot") / "mcp-config.json",
    )
    # OpenCode
    for name in ("opencode.json", "opencode.jsonc"):
        add("opencode", "user", xdg / "opencode" / name, True)
    add_project("opencode")
    return out


# ---------------------------------------------------------------- reading (IO at the edge)


def _expand(pattern: Path) -> list[Path]:
    if "*" not in str(pattern):
        return [pattern]
    parent = pattern.parent
    while "*" in str(parent):  # one wildcard directory level (VS Code profiles)
        parent = parent.parent
    rel = pattern.relative_to(parent)
    try:
        return sorted(parent.glob(str(rel)))
    except OSError:
        return []


def _present(path: Path) -> bool | str:
    """True/False, or the reason we cannot even tell (a parent directory we may not enter)."""
    try:
        return path.exists() or path.is_symlink()
    except OSError as exc:
        return f"cannot read: {exc.strerror or type(exc).__name__}"


def read_text(path: Path) -> tuple[str | None, str | None]:
    """(text, None) or (None, reason) for a path that exists (or is a broken symlink)."""
    try:
        if path.is_symlink() and not path.exists():
            return None, "cannot read: broken symbolic link"
        if path.is_dir():
            return None, "cannot read: is a directory"
        data = path.read_bytes()
    except OSError as exc:
        return None, f"cannot read: {exc.strerror or type(exc).__name__}"
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError as exc:
        return None, f"cannot read: not UTF-8 text (byte {exc.start})"


def read_env_file(path: str) -> str:
    """An ``envFile``'s text (raises OSError, or ValueError when it is not UTF-8 text)."""
    if os.path.isdir(path):
        raise IsADirectoryError(21, "is a directory", path)
    return Path(path).read_bytes().decode("utf-8-sig")


def _context(home: Path, cwd: Path, platform: str, environ: Mapping[str, str]) -> ParseContext:
    return ParseContext(
        environ=dict(environ),
        home=str(home),
        cwd=str(cwd),
        platform=platform,
        project_key=str(cwd),
        realpath=os.path.realpath,
        read_text=read_env_file,
    )


# ---------------------------------------------------------------- Claude Code project approval

ENABLED_KEY = "enabledMcpjsonServers"
DISABLED_KEY = "disabledMcpjsonServers"
ENABLE_ALL_KEY = "enableAllProjectMcpServers"
NOT_APPROVED = "not approved in any settings file: Claude Code asks before loading it"


@dataclass(frozen=True, kw_only=True)
class ApprovalSettings:
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
    """A settings file's text (None: absent) -> its approval keys. Parsed as the deferral verdict
    parses the same file (strict JSON); a file that is not a JSON object is ``unreadable``."""
    state, data = settings_object(text)
    if state != "read":
        return ApprovalSettings(scope=scope, source=source, state=state)
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
        return Path(path).read_bytes()
    except FileNotFoundError:
        return None


def read_approval_settings(
    *,
    home: Path,
    cwd: Path,
    platform: str,
    environ: Mapping[str, str],
    system_root: Path | None = None,
    read: Callable[[str], bytes | None] = _read_if_exists,
) -> tuple[ApprovalSettings, ...]:
    """Claude Code's four settings files (``deferral.settings_paths``, highest precedence first),
    read for their approval keys. ``system_root`` re-roots the managed file, as in ``locations``."""
    out: list[ApprovalSettings] = []
    for scope, path in settings_paths(
        home=str(home), cwd=str(cwd), platform=platform, environ=environ
    ):
        if scope == "managed" and system_root is not None:
            path = str(system_root / path.lstrip("/\\"))
        try:
            data = read(path)
        except (OSError, ValueError):
            out.append(ApprovalSettings(scope=scope, source=path, state="unreadable"))
            continue
        out.append(parse_approval_settings(scope, path, data))
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


# macOS apps that start servers with launchd's PATH rather than the login shell's.
GUI_PATH_CLIENTS = frozenset({"claude-desktop"})


def note_shell_path_only(cf: ConfigFile, environ: Mapping[str, str]) -> ConfigFile:
    """On macOS, note each server of a GUI client whose command is found only through the
    shell's PATH: it works from a terminal (and in this audit) and may fail in the app."""
    if cf.client not in GUI_PATH_CLIENTS or not cf.entries:
        return cf
    mac = MacPlatform()
    path = {"PATH": environ.get("PATH", "")}
    entries = []
    for e in cf.entries:
        spec = e.spec
        if spec is not None and spec.argv and mac.resolve(spec.argv[:1], path).shell_path_only:
            e = replace(e, notes=(*e.notes, shell_path_note(spec.argv[0])))
        entries.append(e)
    return replace(cf, entries=tuple(entries))


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


def _is_project_mcp_json(loc: Location, path: Path) -> bool:
    return loc.client == "claude-code" and loc.scope == "project" and path.name == ".mcp.json"


def _has_section(cf: ConfigFile) -> bool:
    return cf.state is not ConfigState.DECLARES_NOTHING or bool(cf.problems)


def discover(
    *,
    home: Path,
    cwd: Path,
    platform: str,
    environ: Mapping[str, str],
    clients: Collection[str] | None = None,
    system_root: Path | None = None,
    approval: Sequence[ApprovalSettings] | None = None,
) -> list[ConfigFile]:
    """Every known client config that exists here, parsed; unreadable ones as ERROR.

    ``<cwd>/.mcp.json`` is filtered through Claude Code's approval settings (``approval``; read
    from the four settings files when None): see ``apply_project_approval``.

    General settings files (VS Code/Zed/Gemini settings.json, Codex config.toml, Goose and
    Continue config.yaml, opencode.json) are left out when they declare no MCP servers at all.
    """
    if clients is not None:
        unknown = sorted(set(clients) - set(KNOWN_CLIENTS))
        if unknown:
            raise ValueError(f"unknown client {unknown[0]!r}")
    context = _context(home, cwd, platform, environ)
    seen: set[tuple[str, Path]] = set()
    out: list[ConfigFile] = []
    for loc in locations(
        home=home, cwd=cwd, platform=platform, environ=environ, system_root=system_root
    ):
        if clients is not None and loc.client not in clients:
            continue
        for path in _expand(loc.pattern):
            present = _present(path)
            if present is False:
                continue
            key = (loc.client, Path(os.path.abspath(path)))
            if key in seen:
                continue
            seen.add(key)
            text, reason = (None, present) if isinstance(present, str) else read_text(path)
            if text is None:
                out.append(
                    ConfigFile(
                        client=loc.client,
                        source=str(path),
                        state=ConfigState.ERROR,
                        error=reason,
                        scope=loc.scope,
                    )
                )
                continue
            cf = parse_config(loc.client, str(path), text, context=context, scope=loc.scope)
            if loc.optional_section and not _has_section(cf):
                continue
            if _is_project_mcp_json(loc, path):
                if approval is None:
                    approval = read_approval_settings(
                        home=home,
                        cwd=cwd,
                        platform=platform,
                        environ=environ,
                        system_root=system_root,
                    )
                cf = apply_project_approval(cf, approval)
            if platform == "darwin":
                cf = note_shell_path_only(cf, environ)
            out.append(cf)
    return out


def load_explicit(paths: Sequence[Path], *, context: ParseContext) -> list[ConfigFile]:
    """Each ``--config PATH``: format and shape detected from the content, client ``explicit``.
    An ``envFile`` is read from disk unless ``context`` brings its own reader."""
    if context.read_text is None:
        context = replace(context, read_text=read_env_file)
    out: list[ConfigFile] = []
    for path in paths:
        source = str(path)
        present = _present(path)
        if present is False:
            out.append(
                ConfigFile(
                    client=EXPLICIT,
                    source=source,
                    state=ConfigState.ERROR,
                    error=f"no such file: {source}",
                    scope="explicit",
                )
            )
            continue
        text, reason = (None, present) if isinstance(present, str) else read_text(path)
        if text is None:
            out.append(
                ConfigFile(
                    client=EXPLICIT,
                    source=source,
                    state=ConfigState.ERROR,
                    error=reason,
                    scope="explicit",
                )
            )
            continue
        out.append(parse_detected(source, text, context=context, client=EXPLICIT))
    return out


# ---------------------------------------------------------------- --list-configs data (pure)


@dataclass(frozen=True)
class ServerLine:
    name: str
    disabled: bool
    launchable: bool
    note: str | None  # the entry's problem (unresolved references, missing command...), else
    # why a setting switched it off, else its notes (not approved, envFile not loaded)
    line: int | None


@dataclass(frozen=True)
class ConfigListing:
    client: str
    source: str
    scope: str
    state: str
    servers: tuple[ServerLine, ...]
    error: str | None
    problems: tuple[str, ...]


def config_listing(files: Sequence[ConfigFile]) -> list[ConfigListing]:
    """What ``--list-configs`` shows per file: nothing launched, no values (names only)."""
    return [
        ConfigListing(
            client=cf.client,
            source=cf.source,
            scope=cf.scope,
            state=cf.state.value,
            servers=tuple(
                ServerLine(
                    name=e.name,
                    disabled=e.disabled,
                    launchable=e.spec is not None,
                    note=e.problem or e.disabled_reason or ("; ".join(e.notes) or None),
                    line=e.line,
                )
                for e in cf.entries
            ),
            error=cf.error,
            problems=cf.problems,
        )
        for cf in files
    ]
