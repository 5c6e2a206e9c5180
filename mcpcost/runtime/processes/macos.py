"""macOS: no ``/proc``. A group's existence comes from ``killpg(pgid, 0)``; its members' states,
and the server's descendants that left its group, from one ``ps`` listing (``pid ppid pgid
stat`` of every process).

GUI apps (Claude Desktop, Cursor, VS Code started from the Dock) start with launchd's PATH, not
the login shell's, so a command found only through the shell's PATH is flagged: it works from a
terminal and may fail in the app.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from typing import Protocol

from mcpcost.runtime.processes.platform_api import ProcessTree
from mcpcost.runtime.processes.posix import (
    GONE_STATES,
    PosixPlatform,
    PosixSystem,
    RealPosixSystem,
)

PS_ARGV = ("ps", "-A", "-o", "pid=,ppid=,pgid=,stat=")
GUI_APP_PATH = "/usr/bin:/bin:/usr/sbin:/sbin"  # launchd's default PATH for apps
PS_TIMEOUT_S = 5.0


class MacSystem(PosixSystem, Protocol):
    """The POSIX calls plus running ``ps``."""

    def run(self, argv: Sequence[str]) -> str: ...


class RealMacSystem(RealPosixSystem):
    def run(self, argv: Sequence[str]) -> str:
        done = subprocess.run(list(argv), capture_output=True, timeout=PS_TIMEOUT_S, check=False)
        return done.stdout.decode("utf-8", "replace")


def shell_path_note(command: str) -> str:
    """The report note for a command a GUI app may not find (names the command, not the PATH)."""
    return (
        f"{command} is found only through your shell's PATH: the app, started from the Dock or "
        "Finder, gets launchd's PATH and may not find it (use the full path in the config)"
    )


def ps_rows(ps_output: str) -> list[tuple[int, int, int, str]]:
    """(pid, ppid, pgid, first state letter) of each line of ``ps -o pid=,ppid=,pgid=,stat=``."""
    rows = []
    for line in ps_output.splitlines():
        fields = line.split()
        if len(fields) >= 4 and all(f.isdigit() for f in fields[:3]):
            rows.append((int(fields[0]), int(fields[1]), int(fields[2]), fields[3][0]))
    return rows


def group_states(ps_output: str, pgid: int) -> list[str]:
    """The state letter of every process of group ``pgid`` in a ``PS_ARGV`` listing."""
    return [state for _, _, group, state in ps_rows(ps_output) if group == pgid]


def strays_in(ps_output: str, root: int, pgid: int) -> list[int]:
    """Live descendants of ``root`` outside group ``pgid`` in a ``PS_ARGV`` listing."""
    children: dict[int, list[tuple[int, int]]] = {}
    for pid, ppid, group, state in ps_rows(ps_output):
        if state not in GONE_STATES:
            children.setdefault(ppid, []).append((pid, group))
    out, todo = [], list(children.get(root, []))
    while todo:
        pid, group = todo.pop()
        if group != pgid:
            out.append(pid)
        todo.extend(children.get(pid, []))
    return sorted(out)


class MacPlatform(PosixPlatform):
    name = "macos"

    def __init__(self, system: MacSystem | None = None) -> None:
        self.mac: MacSystem = system or RealMacSystem()
        super().__init__(self.mac)

    def member_states(self, pgid: int) -> list[str] | None:
        try:
            listing = self.mac.run(PS_ARGV)
        except (OSError, subprocess.SubprocessError):
            return None
        return group_states(listing, pgid)

    def strays(self, tree: ProcessTree) -> list[int]:
        try:
            return strays_in(self.mac.run(PS_ARGV), tree.pid, tree.group)
        except (OSError, subprocess.SubprocessError):
            return []

    def shell_path_only(self, command: str, found: str | None, env: Mapping[str, str]) -> bool:
        if found is None or os.sep in command:
            return False
        return self.mac.which(command, GUI_APP_PATH) is None
