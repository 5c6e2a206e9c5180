"""Values shared by discovery, the report, the diff and the Action: what a config declares, the
client that reads it (``ClientName``) and where the file sits (``Scope``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import NewType

from mcpcost.core.spec import DeclaredLaunch, ServerSpec

ClientName = NewType("ClientName", str)
"""A client's identifier, as its module in ``configs/clients/`` spells it (``Client.name``), or
``EXPLICIT`` for a ``--config`` file nobody said which client reads. An identifier, not a closed
set: the registry is the one list of the known ones."""

EXPLICIT = ClientName("explicit")


class Scope(StrEnum):
    """Where a config file (or one entry of it) sits, as its client ranks it: the config scope."""

    USER = "user"  # the user's own file, in the home directory
    PROJECT = "project"  # in the project's directory: it comes with a clone
    MANAGED = "managed"  # an administrator's file: outranks the others
    LOCAL = "local"  # one entry kept per project in a user file (a client's project block)
    EXPLICIT = "explicit"  # a file named on the command line (``--config``)


class ConfigState(StrEnum):
    """What reading one config file found."""

    OK = "ok"  # declares at least one live server
    DECLARES_NOTHING = "declares-nothing"  # parsed, no server block or an empty one
    ALL_DISABLED = "all-disabled"  # every declared server is switched off
    ERROR = "error"  # exists but cannot be read or parsed


class ReadFailure(StrEnum):
    """Why a config file (state ERROR) cannot be used."""

    UNREADABLE = "unreadable"  # its bytes cannot be read: permissions, a directory, not UTF-8...
    UNPARSABLE = "unparsable"  # read, but not valid in its format, or not shaped as a config


_LINE = re.compile(r"\bline (\d+)\b")


def error_line(message: str) -> int | None:
    """The 1-based line a parse error names (the parsers' messages say ``line N``), or None."""
    m = _LINE.search(message)
    return int(m.group(1)) if m else None


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfigEntry:
    """One server as one config file declares it."""

    name: str
    spec: ServerSpec | None  # None when it cannot be launched as written (see ``problem``)
    disabled: bool = False
    always_load: bool = (
        False  # the per-server "alwaysLoad": true, loaded even where the rest defers
    )
    unresolved: tuple[str, ...] = ()  # variable references left unresolved, e.g. "${input:token}"
    problem: str | None = None  # why spec is None (unresolved reference, missing command, ...)
    line: int | None = None  # 1-based line of the entry in the file, for annotations
    enabled_tools: tuple[str, ...] | None = None  # client-side allowlist, when the config has one
    disabled_tools: tuple[str, ...] = ()  # client-side denylist, when the config has one
    disabled_reason: str | None = None  # why it is switched off, when not by its own field
    notes: tuple[str, ...] = ()  # non-fatal facts about the launch (approval, envFile...)
    env_file: str | None = None  # the envFile path as resolved (its values are secrets)
    scope: Scope | None = None  # its own scope when not its file's (a client's ``local`` block)
    # the launch as written, secrets left out (None: the entry has no command or url to launch)
    declared: DeclaredLaunch | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfigFile:
    """One config file of one client and what it declares."""

    client: ClientName  # the client that reads it (registry.KNOWN_CLIENTS), or EXPLICIT
    source: str  # absolute path (or repo-relative path in the Action)
    state: ConfigState
    entries: tuple[ConfigEntry, ...] = ()
    error: str | None = None  # one line, when state is ERROR
    scope: Scope = Scope.USER
    problems: tuple[str, ...] = ()  # non-fatal oddities (wrong-typed fields...)
    failure: ReadFailure | None = None  # when state is ERROR: could not read, or could not parse

    @property
    def live_entries(self) -> tuple[ConfigEntry, ...]:
        return tuple(e for e in self.entries if not e.disabled)

    @property
    def disabled_names(self) -> tuple[str, ...]:
        return tuple(e.name for e in self.entries if e.disabled)
