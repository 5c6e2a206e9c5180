"""Linux: a process group's members are read from ``/proc`` (pgid and state of every pid), and
so are the server's descendants that left its group (stopped with it while still its
descendants).

The descendants are found by walking ``/proc/<pid>/task/<tid>/children`` down from the server,
which reads a few files however many processes the machine runs; on a kernel without those files
every ``/proc/<pid>/stat`` is read instead."""

from __future__ import annotations

import os
from typing import Protocol

from mcpcost.runtime.processes.platform_api import ProcessTree
from mcpcost.runtime.processes.posix import (
    GONE_STATES,
    PosixPlatform,
    PosixSystem,
    RealPosixSystem,
)

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


def stat_fields(stat: bytes) -> list[str]:
    """The fields of a ``/proc/<pid>/stat`` line after the command: state, ppid, pgrp, ..."""
    return stat.decode("ascii", "replace").rsplit(")", 1)[-1].split()


def stat_state(stat: bytes) -> str:
    """The state letter of a ``/proc/<pid>/stat`` line."""
    return stat_fields(stat)[0]


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

    def process_alive(self, pid: int) -> bool:
        try:
            return stat_state(self.linux.read_bytes(f"{PROC}/{pid}/stat")) not in GONE_STATES
        except (OSError, IndexError):
            return False

    def strays(self, tree: ProcessTree) -> list[int]:
        try:
            descendants = self._descendants(tree.pid)
        except FileNotFoundError:  # no children files (or the server is already gone)
            return self._strays_by_scan(tree)
        out = []
        for pid in descendants:
            try:
                fields = stat_fields(self.linux.read_bytes(f"{PROC}/{pid}/stat"))
            except (OSError, IndexError):
                continue
            if fields[0] not in GONE_STATES and int(fields[2]) != tree.group:
                out.append(pid)
        return sorted(out)

    def _descendants(self, pid: int) -> list[int]:
        """Every live descendant of ``pid``, from each thread's ``children`` file."""
        out: list[int] = []
        todo = [pid]
        while todo:
            parent = todo.pop()
            try:
                threads = self.linux.listdir(f"{PROC}/{parent}/task")
            except OSError:
                if parent == pid:
                    raise FileNotFoundError(parent) from None
                continue  # a descendant that ended while we looked
            for tid in threads:
                try:
                    text = self.linux.read_bytes(f"{PROC}/{parent}/task/{tid}/children")
                except FileNotFoundError:
                    if parent == pid:
                        raise
                    continue
                except OSError:
                    continue
                kids = [int(k) for k in text.split()]
                out += kids
                todo += kids
        return out

    def _strays_by_scan(self, tree: ProcessTree) -> list[int]:
        parents: dict[int, list[int]] = {}
        groups: dict[int, int] = {}
        try:
            entries = self.linux.listdir(PROC)
        except OSError:
            return []
        for entry in entries:
            if not entry.isdigit():
                continue
            try:
                fields = stat_fields(self.linux.read_bytes(f"{PROC}/{entry}/stat"))
            except (OSError, IndexError, ValueError):
                continue
            if fields[0] in GONE_STATES:
                continue
            parents.setdefault(int(fields[1]), []).append(int(entry))
            groups[int(entry)] = int(fields[2])
        out, todo = [], list(parents.get(tree.pid, []))
        while todo:
            pid = todo.pop()
            if groups.get(pid) != tree.group:
                out.append(pid)
            todo.extend(parents.get(pid, []))
        return sorted(out)

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
