"""Which servers an administrator lets Claude Code start: ``deniedMcpServers``,
``allowedMcpServers`` and ``allowManagedMcpServersOnly`` in its settings files. ``SERVER_POLICY``
is the client's ``ServerPolicy`` rule; it applies to every Claude Code config, the managed
``managed-mcp.json`` included."""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from mcpcost.configs.clients.claude_code.approvals import project_state
from mcpcost.configs.clients.claude_code.claude_files import settings_object, settings_text
from mcpcost.configs.clients.client import ServerPolicy
from mcpcost.configs.clients.presentation import Confidence, Provenance
from mcpcost.configs.clients.raw_server import ParseContext
from mcpcost.configs.clients.settings_files import ClientSettings, ReadState, SettingsLayer
from mcpcost.configs.config_file import ConfigEntry, ConfigFile, ConfigState

DENIED_KEY = "deniedMcpServers"
ALLOWED_KEY = "allowedMcpServers"
MANAGED_ONLY_KEY = "allowManagedMcpServersOnly"
_IN_PROJECT = (SettingsLayer.PROJECT, SettingsLayer.PROJECT_LOCAL)


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerMatch:
    """One entry of an allow or deny list: a server's name, its exact command line, or a URL
    pattern (``*`` matches anything); ``source`` is the settings file it is in."""

    source: str
    name: str | None = None
    command: tuple[str, ...] | None = None
    url: str | None = None

    def matches(self, entry: ConfigEntry) -> bool:
        spec = entry.spec
        if self.name is not None:
            return entry.name == self.name
        if self.command is not None:
            return spec is not None and tuple(spec.argv) == self.command
        if self.url is not None:
            return spec is not None and spec.url is not None and _url_matches(self.url, spec.url)
        return False


def _url_matches(pattern: str, url: str) -> bool:
    """``*`` stands for any run of characters; everything else is literal."""
    return fnmatch.fnmatchcase(url, pattern.replace("[", "[[]").replace("?", "[?]"))


def _entries(value: Any, source: str, problems: list[str], key: str) -> tuple[ServerMatch, ...]:
    if not isinstance(value, list):
        problems.append(f"settings file {source}: {key} is not a list (ignored)")
        return ()
    out: list[ServerMatch] = []
    for item in value:
        if isinstance(item, dict) and isinstance(item.get("serverName"), str):
            out.append(ServerMatch(source=source, name=item["serverName"]))
        elif (
            isinstance(item, dict)
            and isinstance(item.get("serverCommand"), list)
            and all(isinstance(a, str) for a in item["serverCommand"])
        ):
            out.append(ServerMatch(source=source, command=tuple(item["serverCommand"])))
        elif isinstance(item, dict) and isinstance(item.get("serverUrl"), str):
            out.append(ServerMatch(source=source, url=item["serverUrl"]))
        else:
            problems.append(
                f"settings file {source}: an entry of {key} is not understood (ignored)"
            )
    return tuple(out)


@dataclass(frozen=True, slots=True, kw_only=True)
class Policy:
    """The policy the settings files add up to. ``allowed`` None: no allow list anywhere (every
    server may start); an empty tuple: an allow list that allows nothing."""

    denied: tuple[ServerMatch, ...] = ()
    allowed: tuple[ServerMatch, ...] | None = None
    allow_sources: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()


def read_policy(settings: ClientSettings, ctx: ParseContext) -> Policy:
    """Deny lists from every settings file add up; allow lists add up too, unless the managed
    file sets ``allowManagedMcpServersOnly: true``, when only its own allow list counts. The
    project's own settings files count once the folder's trust dialog was accepted."""
    state_file = next(iter(settings.layer(SettingsLayer.CLIENT_STATE)), None)
    trusted = state_file is not None and project_state(state_file, ctx).trust_accepted
    problems: list[str] = []
    files: list[tuple[SettingsLayer, str, Mapping[str, Any]]] = []
    for f in settings.without(SettingsLayer.CLIENT_STATE):
        if f.state is not ReadState.READ or (f.layer in _IN_PROJECT and not trusted):
            continue
        files.append((f.layer, f.path, settings_object(settings_text(f))[1]))
    managed_only = any(
        layer is SettingsLayer.MANAGED and data.get(MANAGED_ONLY_KEY) is True
        for layer, _, data in files
    )
    denied: list[ServerMatch] = []
    allowed: list[ServerMatch] | None = None
    allow_sources: list[str] = []
    for layer, path, keys in files:
        if DENIED_KEY in keys:
            denied.extend(_entries(keys[DENIED_KEY], path, problems, DENIED_KEY))
        if ALLOWED_KEY in keys and (layer is SettingsLayer.MANAGED or not managed_only):
            allowed = [*(allowed or []), *_entries(keys[ALLOWED_KEY], path, problems, ALLOWED_KEY)]
            allow_sources.append(path)
    return Policy(
        denied=tuple(denied),
        allowed=tuple(allowed) if allowed is not None else None,
        allow_sources=tuple(allow_sources),
        problems=tuple(problems),
    )


def _judged(entry: ConfigEntry, policy: Policy) -> ConfigEntry:
    if entry.disabled:
        return entry
    deny = next((d for d in policy.denied if d.matches(entry)), None)
    if deny is not None:
        return replace(entry, disabled=True, disabled_reason=f"{DENIED_KEY} in {deny.source}")
    if policy.allowed is not None and not any(a.matches(entry) for a in policy.allowed):
        where = ", ".join(policy.allow_sources)
        return replace(entry, disabled=True, disabled_reason=f"not in {ALLOWED_KEY} ({where})")
    return entry


def apply_policy(cf: ConfigFile, policy: Policy) -> ConfigFile:
    """``cf`` with the servers ``policy`` forbids switched off, each naming its rule and file."""
    if cf.state is ConfigState.ERROR or not cf.entries:
        return cf
    entries = tuple(_judged(e, policy) for e in cf.entries)
    problems: Sequence[str] = (*cf.problems, *policy.problems)
    state = ConfigState.ALL_DISABLED if all(e.disabled for e in entries) else cf.state
    return replace(cf, entries=entries, state=state, problems=tuple(problems))


def server_policy(cf: ConfigFile, settings: ClientSettings, ctx: ParseContext) -> ConfigFile:
    return apply_policy(cf, read_policy(settings, ctx))


SERVER_POLICY = ServerPolicy(
    apply=server_policy,
    rule=(
        "a server named in any deniedMcpServers (by serverName, serverCommand or a serverUrl "
        "pattern) is not started; where an allowedMcpServers list exists, only the servers it "
        "names are; with allowManagedMcpServersOnly: true only the managed file's allow list "
        "counts"
    ),
    provenance=Provenance(
        source="https://code.claude.com/docs/en/managed-mcp (allowlists and denylists)",
        date="2026-12-05",
        confidence=Confidence.DOCUMENTED,
    ),
)
