"""What every platform's process layer offers: a started server tree and the four operations on it.

``ProcessPlatform`` is the interface (resolve a command, start a tree, stop all of it, tell
whether any of it is alive, and kill it at once for the interrupt path). ``ProcessTree`` is one
started server: its pipes, its direct child, and what names the rest of the tree on that system
(a process group on Linux and macOS, a Job Object on Windows).
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Protocol

from mcpcost.errors import McpcostError


class StartRefused(McpcostError):
    """No new server may start: the command is being interrupted and is reaping its trees."""


@dataclass(frozen=True, slots=True)
class CommandResolution:
    """How a command will be started on this system.

    ``argv`` is what the OS receives on POSIX; on Windows ``command_line`` is the exact line
    handed to CreateProcess (a ``cmd.exe /d /s /c "..."`` line for ``.cmd``/``.bat`` launchers).
    ``found`` is the file the command resolved to (``None`` when it was not found: starting it
    will fail the way the OS reports). ``shell_path_only`` is set on macOS when the command is
    found only through the shell's PATH, not through the PATH a GUI app starts with.
    """

    argv: tuple[str, ...]
    found: str | None = None
    command_line: str | None = None
    shell_path_only: bool = False


class ReadableEnd(Protocol):
    """Our reading end of a server's stdout or stderr."""

    def read1(self, size: int, /) -> bytes: ...

    def close(self) -> None: ...


class ProcessTree:
    """One started server: its pipes, its direct child and the name of its whole tree.

    ``group`` is the process-group id (POSIX) or the direct child's pid (Windows); ``job`` is the
    Job Object handle on Windows and ``None`` elsewhere.
    """

    def __init__(
        self,
        proc: subprocess.Popen[bytes],
        *,
        platform: ProcessPlatform,
        group: int,
        stdout: ReadableEnd,
        stderr: ReadableEnd,
        job: int | None = None,
    ) -> None:
        assert proc.stdin is not None
        self.proc = proc
        self.platform = platform
        self.group = group
        self.job = job
        self.stdin: IO[bytes] = proc.stdin
        self.stdout = stdout
        self.stderr = stderr

    @property
    def pid(self) -> int:
        return self.proc.pid

    def close_pipes(self) -> None:
        """Close our ends of the three pipes (``LineTransport.close`` does it for a server)."""
        for end in (self.stdin, self.stdout, self.stderr):
            try:
                end.close()
            except (OSError, ValueError):
                pass

    def exit_code(self) -> int | None:
        """The direct child's exit code once it has ended (reaping it), else ``None``."""
        return self.proc.poll()


class ProcessPlatform(Protocol):
    """The process operations of one operating system."""

    name: str

    def resolve(self, argv: Sequence[str], env: Mapping[str, str]) -> CommandResolution:
        """How ``argv`` would be started with ``env``, the way the MCP clients start it."""

    def start(self, argv: Sequence[str], *, env: Mapping[str, str], cwd: str | None) -> ProcessTree:
        """Start ``argv`` as a new tree with piped stdin/stdout/stderr; raises OSError."""

    def stop(self, tree: ProcessTree, grace_s: float) -> None:
        """Ask the whole tree to end, force it after ``grace_s``, reap the direct child."""

    def kill(self, tree: ProcessTree) -> None:
        """Force the whole tree to end now, without waiting (the interrupt path)."""

    def alive(self, tree: ProcessTree) -> bool:
        """True while any process of the tree exists (zombies awaiting a reaper count as gone)."""
