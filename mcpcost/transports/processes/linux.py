"""Linux: a process group's members are read from ``/proc`` (pgid and state of every pid)."""

from __future__ import annotations

import os
from typing import Protocol

from mcpcost.transports.processes.posix import PosixPlatform, PosixSystem, RealPosixSystem

PROC = "/proc"


class LinuxSystem(PosixSystem, Protocol):
    """The POSIX calls plus the ``/proc`` reads."""

    def listdir(self, path: str) -> list[str]: ...

    def getpgid(self, pid: int) -> int: ...

    def read_bytes(self, path: str) -> bytes: ...


class RealLinuxSystem(RealPosixSystem):
    def listdir(self, path: str) -> list[str]:
        return os.listdir(path)

    def getpgid(self, pid: int) -> int:
        return os.getpgid(pid)

    def read_bytes(self, path: str) -> bytes:
        with open(path, "rb") as fh:
            return fh.read()


def stat_state(stat: bytes) -> str:
    """The state letter of a ``/proc/<pid>/stat`` line (the field after the command's ``)``)."""
    return stat.decode("ascii", "replace").rsplit(")", 1)[-1].split()[0]


class LinuxPlatform(PosixPlatform):
    name = "linux"

    def __init__(self, system: LinuxSystem | None = None) -> None:
        self.linux: LinuxSystem = system or RealLinuxSystem()
        super().__init__(self.linux)

    def member_states(self, pgid: int) -> list[str] | None:
        try:
            entries = self.linux.listdir(PROC)
        except OSError:
            return None
        states = []
        for entry in entries:
            if not entry.isdigit():
                continue
            pid = int(entry)
            try:
                if self.linux.getpgid(pid) != pgid:
                    continue
                states.append(stat_state(self.linux.read_bytes(f"{PROC}/{pid}/stat")))
            except OSError:  # it ended between the listing and the read
                continue
        return states

    def processes(self) -> list[tuple[int, int, str]]:
        """(pid, ppid, command line) of every process we can see, for leak checks."""
        out = []
        for entry in self.linux.listdir(PROC):
            if not entry.isdigit():
                continue
            try:
                stat = self.linux.read_bytes(f"{PROC}/{entry}/stat").decode("ascii", "replace")
                cmdline = self.linux.read_bytes(f"{PROC}/{entry}/cmdline")
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[-1].split()
            if fields and fields[0] in ("Z", "X"):
                continue
            text = cmdline.replace(b"\0", b" ").decode("utf-8", "replace").strip()
            out.append((int(entry), int(fields[1]), text))
        return out
