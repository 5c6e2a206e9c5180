"""The author's gate file: ``GATE_FILE`` in the repository, or the ``[tool.mcpcost]`` table of
``pyproject.toml``. Pure: TOML text in, a ``GateFile`` out; ``InputError`` names the first
unknown key or wrong value in one line (the command exits 2). docs/AUTHORS.md lists every key.

    snapshot = "cost/snapshot.json"        # where the snapshot lives (default DEFAULT_SNAPSHOT)
    floor = 10                             # moves smaller than this are counted, not listed

    [server]                               # how to start the repository's server
    name = "my-server"                     # as a client config names it (default: the folder)
    command = ["python", "server.py"]      # or url = "https://..."
    cwd = "."                              # relative to the gate file
    env = { MODE = "demo" }                # plain settings, never secrets
    timeout = 60

    [profiles.read-only]                   # optional: named variants, each measured
    args = ["--read-only"]                 # appended to server.command
    env = { TOOLSETS = "repos" }           # added to server.env

    [gates]
    max-total-tokens = 8000                # per profile
    max-tool-count = 40
    no-new-tools = true                    # against the committed snapshot
    no-removed-tools = true
    max-growth-tokens = 500                # total, per profile, against the snapshot
    max-growth-percent = 10
    max-tool-growth-tokens = 200           # any one tool
    limit-drops = false                    # true: the growth limits bound drops too
    clients = ["claude-code", "cursor"]    # fail when one would cut, drop or reject something

    [gates.tool-budgets]                   # glob (fnmatch, case-sensitive) -> max tokens
    "search_*" = 600
    "*" = 1500
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mcpcost.core.attribution import DEFAULT_FLOOR
from mcpcost.errors import InputError

GATE_FILE = "mcpcost.toml"
PYPROJECT = "pyproject.toml"


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerLaunch:
    """How the gate file starts the server: a command (with cwd and env) or a URL."""

    name: str | None = None  # the server's name as a client's config would write it
    command: tuple[str, ...] = ()
    url: str | None = None
    cwd: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    timeout: float = 60.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Profile:
    """A named variant: arguments appended to the command and env added to the server's."""

    name: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class Gates:
    """The rules (None or empty: not set)."""

    max_total_tokens: int | None = None
    max_tool_count: int | None = None
    no_new_tools: bool = False
    no_removed_tools: bool = False
    max_growth_tokens: int | None = None
    max_growth_percent: float | None = None
    max_tool_growth_tokens: int | None = None
    limit_drops: bool = False
    clients: tuple[str, ...] = ()
    tool_budgets: tuple[tuple[str, int], ...] = ()  # (glob, max tokens), in the file's order

    @property
    def needs_snapshot(self) -> bool:
        """True when a rule compares with the committed snapshot."""
        return (
            self.no_new_tools
            or self.no_removed_tools
            or self.max_growth_tokens is not None
            or self.max_growth_percent is not None
            or self.max_tool_growth_tokens is not None
        )

    @property
    def any(self) -> bool:
        return self != Gates()


@dataclass(frozen=True, slots=True, kw_only=True)
class GateFile:
    """The whole file (``source``: where it was read, for messages)."""

    source: str
    snapshot: str | None = None
    floor: int = DEFAULT_FLOOR
    server: ServerLaunch | None = None
    profiles: tuple[Profile, ...] = ()
    gates: Gates = field(default_factory=Gates)


def _unknown(where: str, table: Mapping[str, Any], known: tuple[str, ...]) -> None:
    for key in table:
        if key not in known:
            raise InputError(
                f"{where}: unknown key {key!r} (known: {', '.join(known)})"
                if known
                else f"{where}: unknown key {key!r}"
            )


def _table(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(f"{where}: must be a table")
    return value


def _whole(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(f"{where}: must be a whole number of 0 or more")
    return value


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise InputError(f"{where}: must be a number of 0 or more")
    return float(value)


def _flag(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise InputError(f"{where}: must be true or false")
    return value


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(f"{where}: must be an array of strings")
    return tuple(value)


def _env(value: Any, where: str) -> dict[str, str]:
    table = _table(value, where)
    for k, v in table.items():
        if not isinstance(v, str):
            raise InputError(f"{where}.{k}: must be a string")
    return dict(table)


_SERVER_KEYS = ("name", "command", "url", "cwd", "env", "timeout")
_PROFILE_KEYS = ("args", "env")
_GATE_KEYS = (
    "max-total-tokens",
    "max-tool-count",
    "no-new-tools",
    "no-removed-tools",
    "max-growth-tokens",
    "max-growth-percent",
    "max-tool-growth-tokens",
    "limit-drops",
    "clients",
    "tool-budgets",
)
_TOP_KEYS = ("snapshot", "floor", "server", "profiles", "gates")


def _server(raw: Any, where: str) -> ServerLaunch:
    t = _table(raw, where)
    _unknown(where, t, _SERVER_KEYS)
    command = _strings(t["command"], f"{where}.command") if "command" in t else ()
    url = t.get("url")
    if url is not None and not isinstance(url, str):
        raise InputError(f"{where}.url: must be a string")
    if bool(command) == (url is not None):
        raise InputError(f"{where}: give either command (a non-empty array) or url")
    cwd = t.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise InputError(f"{where}.cwd: must be a string")
    name = t.get("name")
    if name is not None and (not isinstance(name, str) or not name):
        raise InputError(f"{where}.name: must be a non-empty string")
    timeout = _number(t.get("timeout", 60), f"{where}.timeout")
    if timeout == 0:
        raise InputError(f"{where}.timeout: must be more than 0")
    return ServerLaunch(
        name=name,
        command=command,
        url=url,
        cwd=cwd,
        env=_env(t.get("env", {}), f"{where}.env"),
        timeout=timeout,
    )


def _gates(raw: Any, where: str) -> Gates:
    t = _table(raw, where)
    _unknown(where, t, _GATE_KEYS)

    def opt_whole(key: str) -> int | None:
        return _whole(t[key], f"{where}.{key}") if key in t else None

    budgets: list[tuple[str, int]] = []
    for glob, limit in _table(t.get("tool-budgets", {}), f"{where}.tool-budgets").items():
        budgets.append((glob, _whole(limit, f"{where}.tool-budgets.{glob!r}")))
    return Gates(
        max_total_tokens=opt_whole("max-total-tokens"),
        max_tool_count=opt_whole("max-tool-count"),
        no_new_tools=_flag(t.get("no-new-tools", False), f"{where}.no-new-tools"),
        no_removed_tools=_flag(t.get("no-removed-tools", False), f"{where}.no-removed-tools"),
        max_growth_tokens=opt_whole("max-growth-tokens"),
        max_growth_percent=(
            _number(t["max-growth-percent"], f"{where}.max-growth-percent")
            if "max-growth-percent" in t
            else None
        ),
        max_tool_growth_tokens=opt_whole("max-tool-growth-tokens"),
        limit_drops=_flag(t.get("limit-drops", False), f"{where}.limit-drops"),
        clients=_strings(t.get("clients", []), f"{where}.clients"),
        tool_budgets=tuple(budgets),
    )


def gate_file_from(table: Mapping[str, Any], source: str, prefix: str = "") -> GateFile:
    """The gate file from its parsed table; messages read ``SOURCE: PREFIXkey.path: ...``."""
    top = f"{source}: {prefix.rstrip('.')}" if prefix else source

    def at(path: str) -> str:
        return f"{source}: {prefix}{path}"

    _unknown(top, table, _TOP_KEYS)
    snapshot = table.get("snapshot")
    if snapshot is not None and (not isinstance(snapshot, str) or not snapshot):
        raise InputError(f"{at('snapshot')}: must be a file name")
    profiles: list[Profile] = []
    for name, raw in _table(table.get("profiles", {}), at("profiles")).items():
        pw = at(f"profiles.{name}")
        t = _table(raw, pw)
        _unknown(pw, t, _PROFILE_KEYS)
        profiles.append(
            Profile(
                name=name,
                args=_strings(t.get("args", []), f"{pw}.args"),
                env=_env(t.get("env", {}), f"{pw}.env"),
            )
        )
    return GateFile(
        source=source,
        snapshot=snapshot,
        floor=_whole(table.get("floor", DEFAULT_FLOOR), at("floor")),
        server=_server(table["server"], at("server")) if "server" in table else None,
        profiles=tuple(profiles),
        gates=_gates(table.get("gates", {}), at("gates")),
    )


def parse_gate_file(text: str, source: str, *, pyproject: bool = False) -> GateFile | None:
    """``mcpcost.toml``'s text (or ``pyproject.toml``'s, whose ``[tool.mcpcost]`` table is read;
    None when it has none)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{source}: not TOML ({exc})") from None
    if not pyproject:
        return gate_file_from(data, source)
    tool = data.get("tool")
    if not isinstance(tool, dict) or "mcpcost" not in tool:
        return None
    return gate_file_from(
        _table(tool["mcpcost"], f"{source}: tool.mcpcost"), source, "tool.mcpcost."
    )
