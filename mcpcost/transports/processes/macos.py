"""macOS: no ``/proc``. A group's existence comes from ``killpg(pgid, 0)``; its members' states
from one ``ps`` listing (``pid pgid stat`` of every process).

GUI apps (Claude Desktop, Cursor, VS Code started from the Dock) start with launchd's PATH, not
the login shell's, so a command found only through the shell's PATH is flagged: it works from a
terminal and may fail in the app.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from typing import Protocol

from mcpcost.transports.processes.posix import PosixPlatform, PosixSystem, RealPosixSystem

PS_ARGV = ("ps", "-A", "-o", "pid=,pgid=,stat=")
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


def group_states(ps_output: str, pgid: int) -> list[str]:
    """The first state letter of every process of group ``pgid`` in ``ps -o pid=,pgid=,stat=``."""
    out = []
    for line in ps_output.splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[1] == str(pgid):
            out.append(fields[2][0])
    return out


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

    def shell_path_only(self, command: str, found: str | None, env: Mapping[str, str]) -> bool:
        if found is None or os.sep in command:
            return False
        return self.mac.which(command, GUI_APP_PATH) is None
