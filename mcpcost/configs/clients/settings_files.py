"""The settings files a client reads besides its MCP configs, as values.

Some clients decide what they do with the servers they find from files of their own: which
project servers the user approved, whether tool definitions are deferred. A client module names
those files (``Client.settings_files``: a ``SettingsFile`` per file, highest precedence first);
``read_settings`` reads them at the edge, once, into a ``ClientSettings`` value; the client's
hooks (consent, deferral) parse that value purely. Nothing here knows what a file means.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from mcpcost.errors import InputError


class SettingsLayer(StrEnum):
    """Where a value that decides a client's behaviour is read from, as the client ranks it.

    The settings layer is not the config scope (``Scope``): it names the client's settings files
    and the shell it starts in, not the files that declare servers."""

    SHELL = "shell"  # the environment of the shell the client starts in
    MANAGED = "managed"  # an administrator's settings file
    PROJECT_LOCAL = "project-local"  # the project's own, kept out of version control
    PROJECT = "project"  # the project's, committed with it
    USER = "user"  # the user's own, in the home directory
    CLIENT_STATE = "client-state"  # what the client recorded of the user's answers


class ReadState(StrEnum):
    """What reading one settings file found."""

    READ = "read"
    ABSENT = "absent"
    UNREADABLE = "unreadable"  # it exists and could not be read or parsed


@dataclass(frozen=True, slots=True, kw_only=True)
class SettingsFile:
    """One settings file a client reads, where it lives on this machine."""

    layer: SettingsLayer
    path: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SettingsText:
    """One settings file as read: its bytes, or why there are none."""

    layer: SettingsLayer
    path: str
    state: ReadState
    # a settings file may hold tokens in its env block
    text: bytes | None = field(default=None, repr=False)  # when ``state`` is READ


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientSettings:
    """Every settings file one client reads, as read in this run, highest precedence first."""

    files: tuple[SettingsText, ...]

    def layer(self, layer: SettingsLayer) -> tuple[SettingsText, ...]:
        return tuple(f for f in self.files if f.layer == layer)

    def without(self, layer: SettingsLayer) -> tuple[SettingsText, ...]:
        return tuple(f for f in self.files if f.layer != layer)


Reader = Callable[[str], bytes | None]  # None: absent; raises OSError or ValueError: unreadable


def read_settings(files: Sequence[SettingsFile], read: Reader) -> ClientSettings:
    """Each file read once with ``read`` (the edge passes a file-system reader)."""
    out: list[SettingsText] = []
    for f in files:
        try:
            data = read(f.path)
        except (OSError, ValueError, InputError):
            out.append(SettingsText(layer=f.layer, path=f.path, state=ReadState.UNREADABLE))
            continue
        if data is None:
            out.append(SettingsText(layer=f.layer, path=f.path, state=ReadState.ABSENT))
        else:
            out.append(SettingsText(layer=f.layer, path=f.path, state=ReadState.READ, text=data))
    return ClientSettings(files=tuple(out))
