"""Reading the MCP configs, and the settings files that decide what clients do with them, on
this machine.

Where each client keeps them is the client registry's (``clients.locations`` and each client's
``settings_files``, pure); ``discover``, ``load_explicit`` and ``read_client_settings`` do the
file-system reads, at the edge, and parsing is ``clients.parse_config``. A project-level config
then passes its client's consent hook (its recorded approvals) and ``consent`` (pure). Nothing
here launches anything.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from mcpcost.configs.clients import (
    CLIENTS,
    EXPLICIT,
    KNOWN_CLIENTS,
    PROJECT_CONFIG_PATHS,
    Location,
    ParseContext,
    Places,
    client_named,
    launchd_path_clients,
    locations,
    parse_config,
    parse_detected,
    project_client,
)
from mcpcost.configs.clients.client import Scope
from mcpcost.configs.clients.raw_server import error_file
from mcpcost.configs.clients.settings_files import ClientSettings, read_settings
from mcpcost.configs.config_file import ClientName, ConfigFile, ConfigState, ReadFailure
from mcpcost.runtime.world_files import MAX_CONFIG_BYTES, MAX_ENV_FILE_BYTES, read_world_file

__all__ = [
    "KNOWN_CLIENTS",
    "PROJECT_CONFIG_PATHS",
    "TRUST_FLAG",
    "UNTRUSTED_PROJECT",
    "ConfigListing",
    "Location",
    "ServerLine",
    "config_listing",
    "consent",
    "discover",
    "load_explicit",
    "locations",
    "parse_project_config",
    "project_client",
    "read_client_settings",
    "read_if_exists",
    "withheld",
]


def parse_project_config(relative_path: str, text: str, context: ParseContext) -> ConfigFile:
    """One repository config read from a git blob (the Action): client from its path."""
    client = project_client(relative_path)
    if client is None:
        return parse_detected(
            relative_path, text, context=context, client=EXPLICIT, scope=Scope.PROJECT
        )
    return parse_config(client, relative_path, text, context=context, scope=Scope.PROJECT)


# ---------------------------------------------------------------- consent (pure)

TRUST_FLAG = "--trust-project"
# mcpcost's own rule, not a client's: a config that came with a repository runs only as far as
# its client would run it unasked (its consent hook), or with the user's flag
UNTRUSTED_PROJECT = (
    "held back by mcpcost: a project config's servers start only where its client would "
    f"start them unasked; {TRUST_FLAG} starts them"
)


def consent(cf: ConfigFile, *, trusted: bool, runs: Collection[str] = ()) -> ConfigFile:
    """A project-level config as far as the user consented to run it (pure).

    ``trusted`` (the user said so): unchanged. Otherwise every live server is kept from launching
    (its spec dropped, the reason and the flag in its problem), except the ones named in ``runs``:
    those the client itself would load without asking (its consent hook's answer). A config in
    the user's home, managed or named explicitly is not a project config: unchanged.
    """
    if trusted or cf.scope is not Scope.PROJECT or cf.state is ConfigState.ERROR:
        return cf
    entries = tuple(
        e
        if e.disabled or e.spec is None or e.name in runs
        else replace(e, spec=None, problem=UNTRUSTED_PROJECT)
        for e in cf.entries
    )
    return replace(cf, entries=entries)


def client_approval(
    cf: ConfigFile, settings: Mapping[ClientName, ClientSettings], context: ParseContext
) -> tuple[ConfigFile, frozenset[str]]:
    """A project-level config as its client's consent hook leaves it (its recorded approvals
    applied), and the servers the client would run from it unasked (pure: the settings files
    were read before). Any other config: unchanged, and nothing is approved."""
    if cf.scope is not Scope.PROJECT or cf.client not in KNOWN_CLIENTS:
        return cf, frozenset()
    hook = client_named(cf.client).consent
    answer = None
    if hook is not None:
        answer = hook(cf, settings.get(cf.client) or ClientSettings(files=()), context)
    if answer is None:
        return cf, frozenset()
    return answer.config, answer.runs


def client_context(
    client: ClientName, context: ParseContext, settings: Mapping[ClientName, ClientSettings]
) -> ParseContext:
    """The parse context of ``client``'s configs: the shell's environment with what the
    client's settings files set for the servers it starts laid over it (``SettingsEnv``), so
    a reference to such a variable resolves as the client resolves it (pure)."""
    rule = client_named(client).settings_env if client in KNOWN_CLIENTS else None
    if rule is None:
        return context
    values = rule.values(settings.get(client) or ClientSettings(files=()), context)
    if not values:
        return context
    environ = dict(context.environ)
    if context.platform == "win32":  # names are case-insensitive there: the setting replaces
        wanted = {name.upper() for name in values}
        environ = {k: v for k, v in environ.items() if k.upper() not in wanted}
    return replace(context, environ={**environ, **values})


def apply_server_policy(
    cf: ConfigFile, settings: Mapping[ClientName, ClientSettings], context: ParseContext
) -> ConfigFile:
    """``cf`` with the servers its client's administrator policy forbids switched off (pure);
    a client with no such policy on record, or an explicit file: unchanged."""
    if cf.client not in KNOWN_CLIENTS or cf.state is ConfigState.ERROR:
        return cf
    policy = client_named(cf.client).server_policy
    if policy is None:
        return cf
    return policy.apply(cf, settings.get(cf.client) or ClientSettings(files=()), context)


def withheld(files: Sequence[ConfigFile]) -> list[tuple[ConfigFile, str]]:
    """(config, server name) of every server ``consent`` kept from launching."""
    return [(f, e.name) for f in files for e in f.entries if e.problem == UNTRUSTED_PROJECT]


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


def read_if_exists(path: str) -> bytes | None:
    """A file's bytes, or None when it does not exist (other failures raise OSError); read as a
    file from the world (``runtime.world_files``: regular files only, within the config cap)."""
    try:
        return read_world_file(path, max_bytes=MAX_CONFIG_BYTES)
    except FileNotFoundError:
        return None


def read_client_settings(
    *,
    home: Path,
    cwd: Path,
    platform: str,
    environ: Mapping[str, str],
    clients: Collection[str] | None = None,
    system_root: Path | None = None,
) -> dict[ClientName, ClientSettings]:
    """Each client's settings files (``Client.settings_files``), each read once: the values its
    consent and deferral hooks parse. ``clients`` narrows it to those clients."""
    at = Places.build(
        home=home, cwd=cwd, platform=platform, environ=environ, system_root=system_root
    )
    out: dict[ClientName, ClientSettings] = {}
    for c in CLIENTS:
        if clients is not None and c.name not in clients:
            continue
        files = c.settings_files(at)
        if files:
            out[c.name] = read_settings(files, read_if_exists)
    return out


def read_text(path: Path) -> tuple[str | None, str | None]:
    """(text, None) or (None, reason) for a path that exists (or is a broken symlink)."""
    try:
        if path.is_symlink() and not path.exists():
            return None, "cannot read: broken symbolic link"
        if path.is_dir():
            return None, "cannot read: is a directory"
        data = read_world_file(path, max_bytes=MAX_CONFIG_BYTES)  # no FIFO, device or giant
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
    return read_world_file(path, max_bytes=MAX_ENV_FILE_BYTES).decode("utf-8-sig")


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


def note_shell_path_only(cf: ConfigFile, environ: Mapping[str, str]) -> ConfigFile:
    """On macOS, note each server of a GUI client whose command is found only through the
    shell's PATH: it works from a terminal (and in this audit) and may fail in the app."""
    if cf.client not in launchd_path_clients() or not cf.entries:
        return cf
    from mcpcost.runtime.processes.macos import MacPlatform, shell_path_note  # macOS only

    mac = MacPlatform()
    path = {"PATH": environ.get("PATH", "")}
    entries = []
    for e in cf.entries:
        spec = e.spec
        if spec is not None and spec.argv and mac.resolve(spec.argv[:1], path).shell_path_only:
            e = replace(e, notes=(*e.notes, shell_path_note(spec.argv[0])))
        entries.append(e)
    return replace(cf, entries=tuple(entries))


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
    settings: Mapping[ClientName, ClientSettings] | None = None,
    trust_project: bool = False,
) -> list[ConfigFile]:
    """Every known client config that exists here, parsed; unreadable ones as ERROR.

    A project-level file (one that comes with a clone) passes through its client's consent hook,
    with the client's settings files (``settings``; read here with ``read_client_settings`` when
    None), then ``consent``: without ``trust_project`` only the servers the client itself would
    run keep their launch.

    General settings files (VS Code/Zed/Gemini settings.json, Codex config.toml, Goose and
    Continue config.yaml, opencode.json) are left out when they declare no MCP servers at all.
    """
    if clients is not None:
        unknown = sorted(set(clients) - set(KNOWN_CLIENTS))
        if unknown:
            raise ValueError(f"unknown client {unknown[0]!r}")
    if settings is None:
        settings = read_client_settings(
            home=home,
            cwd=cwd,
            platform=platform,
            environ=environ,
            clients=clients,
            system_root=system_root,
        )
    context = _context(home, cwd, platform, environ)
    contexts: dict[ClientName, ParseContext] = {}
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
                        failure=ReadFailure.UNREADABLE,
                    )
                )
                continue
            if loc.client not in contexts:
                contexts[loc.client] = client_context(loc.client, context, settings)
            ctx = contexts[loc.client]
            cf = _parse_guarded(loc.client, str(path), text, ctx, loc.scope)
            if loc.optional_section and not _has_section(cf):
                continue
            cf = apply_server_policy(cf, settings, ctx)
            cf, runs = client_approval(cf, settings, ctx)
            if platform == "darwin":
                cf = note_shell_path_only(cf, environ)
            out.append(consent(cf, trusted=trust_project, runs=runs))
    return out


def _parse_guarded(
    client: ClientName, source: str, text: str, context: ParseContext, scope: Scope
) -> ConfigFile:
    """``parse_config``, but a file that breaks a parser in a way it does not foresee becomes an
    ERROR config of its own: one hostile file never stops discovery of the others."""
    try:
        return parse_config(client, source, text, context=context, scope=scope)
    except RecursionError:
        reason = "nested too deeply to read"
    except (ValueError, TypeError, MemoryError) as exc:
        reason = f"cannot be parsed ({type(exc).__name__})"
    return error_file(client, source, scope, reason)


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
                    scope=Scope.EXPLICIT,
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
                    scope=Scope.EXPLICIT,
                    failure=ReadFailure.UNREADABLE,
                )
            )
            continue
        out.append(_parse_guarded(EXPLICIT, source, text, context, Scope.EXPLICIT))
    return out


# ---------------------------------------------------------------- --list-configs data (pure)


@dataclass(frozen=True, slots=True)
class ServerLine:
    name: str
    disabled: bool
    launchable: bool
    note: str | None  # the entry's problem (unresolved references, missing command...), else
    # why a setting switched it off, else its notes (not approved, envFile not loaded)
    line: int | None


@dataclass(frozen=True, slots=True)
class ConfigListing:
    client: ClientName
    source: str
    scope: Scope
    state: ConfigState
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
            state=cf.state,
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
