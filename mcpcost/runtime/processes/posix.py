"""What Linux and macOS share: a server starts in a new session (so its process group is its
tree), stops by SIGTERM to the group then SIGKILL after the grace period, and our reading ends of
its pipes never wait on a peer.

The system calls are reached through ``PosixSystem`` so tests can record which calls are made,
in which order, with which arguments; ``RealPosixSystem`` makes them. Only the member listing
differs between the systems (``/proc`` on Linux, ``ps`` on macOS): ``PosixPlatform.member_states``.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from typing import IO, Protocol

from mcpcost.runtime.processes.platform_api import CommandResolution, ProcessTree, ReadableEnd

SIGTERM = signal.SIGTERM
SIGKILL: int = getattr(signal, "SIGKILL", 9)  # absent from the signal module on Windows
# How often a blocked reader looks whether its pipe is being closed. A reader whose server has
# ended sees end-of-file at once; only a pipe still held by a process outside the tree waits for
# this, and such a pipe is closed off the caller's thread. So it is long: every reader of every
# live server wakes this often.
POLL_S = 0.25
FIRST_POLL_S = 0.001  # stop: the first wait for a signalled tree, doubled up to STOP_POLL_S
STOP_POLL_S = 0.01
GONE_STATES = frozenset({"Z", "X"})  # zombie / dead: nothing left to stop
REAP_WAIT_S = 1.0


def readable(fd: int, seconds: float) -> bool:
    """Whether ``fd`` becomes readable (data, end of file or a process's end) within ``seconds``.
    ``poll`` where the system has it: ``select`` takes no descriptor numbered past 1023."""
    if not hasattr(select, "poll"):
        return bool(select.select([fd], [], [], seconds)[0])
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(seconds * 1000))


class PollingReader:
    """Our end of a pipe, polled (``readable``) so ``close`` never waits on the process holding
    the other end (a server's background process in another session can keep a pipe open long
    after the server itself is gone).

    ``read1`` returns ``b""`` once ``close`` was called; the file is closed by whichever of the
    two runs last, so the descriptor is never closed under a reader still using it.
    """

    def __init__(self, file: IO[bytes]) -> None:
        self._file = file
        self._fd = file.fileno()
        self._closing = threading.Event()
        self._lock = threading.Lock()

    def read1(self, size: int, /) -> bytes:
        with self._lock:
            while not self._closing.is_set():
                if readable(self._fd, POLL_S):
                    return os.read(self._fd, size)
            return b""

    def close(self) -> None:
        self._closing.set()
        with self._lock:  # a reader leaves within POLL_S once closing is set
            self._file.close()


class PosixSystem(Protocol):
    """The calls the POSIX process layer makes (recorded in tests, real in ``RealPosixSystem``)."""

    def popen(
        self, argv: Sequence[str], *, env: Mapping[str, str], cwd: str | None
    ) -> subprocess.Popen[bytes]: ...

    def reader(self, file: IO[bytes]) -> ReadableEnd: ...

    def killpg(self, pgid: int, sig: int) -> None: ...

    def kill(self, pid: int, sig: int) -> None: ...

    def which(self, command: str, path: str | None) -> str | None: ...

    def monotonic(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...

    def wait_exit(self, pid: int, seconds: float) -> None:
        """Return when our child ``pid`` has ended or ``seconds`` have passed."""


def executable_on_path(command: str, path: str | None) -> str | None:
    """What exec would run for ``command``: itself when it names a directory part, else the
    first executable file of that name in ``path`` (``PATH``'s format; None: this process's
    ``PATH``, else the system default). ``shutil.which``'s rule on POSIX; shutil itself loads the
    compression modules, which would cost the first launch a few milliseconds."""
    if os.path.dirname(command):
        return command if _is_executable_file(command) else None
    if path is None:
        path = os.environ.get("PATH")
    if path is None:
        try:
            path = os.confstr("CS_PATH") or os.defpath
        except (AttributeError, ValueError):
            path = os.defpath
    seen: set[str] = set()
    for directory in path.split(os.pathsep) if path else ():
        if directory in seen:
            continue
        seen.add(directory)
        candidate = os.path.join(directory, command)
        if _is_executable_file(candidate):
            return candidate
    return None


def _is_executable_file(name: str) -> bool:
    return os.path.exists(name) and os.access(name, os.F_OK | os.X_OK) and not os.path.isdir(name)


class RealPosixSystem:
    """The real calls: a new session per server, pipes read by ``PollingReader``."""

    def popen(
        self, argv: Sequence[str], *, env: Mapping[str, str], cwd: str | None
    ) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(env),
            cwd=cwd,
            start_new_session=True,
            close_fds=True,
        )

    def reader(self, file: IO[bytes]) -> ReadableEnd:
        return PollingReader(file)

    def killpg(self, pgid: int, sig: int) -> None:
        os.killpg(pgid, sig)

    def kill(self, pid: int, sig: int) -> None:
        os.kill(pid, sig)

    def which(self, command: str, path: str | None) -> str | None:
        return executable_on_path(command, path)

    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    def wait_exit(self, pid: int, seconds: float) -> None:
        # A pidfd (Linux 5.3) becomes readable when the process ends, so a stop sees the end at
        # once instead of at its next poll; elsewhere this is the poll's sleep.
        pidfd_open = getattr(os, "pidfd_open", None)
        if pidfd_open is None:
            time.sleep(seconds)
            return
        try:
            fd = pidfd_open(pid)
        except ProcessLookupError:  # ended and reaped already
            return
        except OSError:  # a kernel without pidfds
            time.sleep(seconds)
            return
        try:
            readable(fd, seconds)
        finally:
            os.close(fd)


class PosixPlatform:
    """Process trees as process groups; subclasses say how to list a group's members."""

    name = "posix"

    def __init__(self, system: PosixSystem) -> None:
        self.system = system

    # -- what differs per system ----------------------------------------------------------
    def member_states(self, pgid: int) -> list[str] | None:
        """One-letter states of the group's processes, or ``None`` when they cannot be listed."""
        raise NotImplementedError

    def shell_path_only(self, command: str, found: str | None, env: Mapping[str, str]) -> bool:
        return False

    def strays(self, tree: ProcessTree) -> list[int]:
        """Descendants of the server that left its process group (a background process in a
        session of its own), while they are still its descendants; empty where they cannot be
        listed."""
        return []

    # -- the interface --------------------------------------------------------------------
    def resolve(self, argv: Sequence[str], env: Mapping[str, str]) -> CommandResolution:
        found = self.system.which(argv[0], env.get("PATH")) if argv else None
        only = self.shell_path_only(argv[0], found, env) if argv else False
        return CommandResolution(tuple(argv), found=found, shell_path_only=only)

    def start(self, argv: Sequence[str], *, env: Mapping[str, str], cwd: str | None) -> ProcessTree:
        proc = self.system.popen(argv, env=env, cwd=cwd)
        assert proc.stdout is not None and proc.stderr is not None
        return ProcessTree(
            proc,
            platform=self,
            group=proc.pid,  # the session leader's pid is its group id
            stdout=self.system.reader(proc.stdout),
            stderr=self.system.reader(proc.stderr),
        )

    def group_alive(self, pgid: int) -> bool:
        try:
            self.system.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        states = self.member_states(pgid)
        if states is None:  # the group exists and we cannot look closer
            return True
        return any(s not in GONE_STATES for s in states)

    def alive(self, tree: ProcessTree) -> bool:
        return self.group_alive(tree.group)

    def _signal_group(self, pgid: int, sig: int) -> None:
        try:
            self.system.killpg(pgid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def _signal_pids(self, pids: list[int], sig: int) -> None:
        for pid in pids:
            try:
                self.system.kill(pid, sig)
            except (ProcessLookupError, PermissionError):
                pass

    def process_alive(self, pid: int) -> bool:
        """True while ``pid`` exists (a zombie counts as alive where it cannot be told apart)."""
        try:
            self.system.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True

    def kill(self, tree: ProcessTree) -> None:
        self._signal_pids(self.strays(tree), SIGKILL)
        self._signal_group(tree.group, SIGKILL)

    def stop(self, tree: ProcessTree, grace_s: float) -> None:
        sys_ = self.system
        strays = self.strays(tree)  # before the server ends and they are handed to init
        self._signal_pids(strays, SIGTERM)
        self._signal_group(tree.group, SIGTERM)
        deadline = sys_.monotonic() + grace_s
        pause = FIRST_POLL_S  # most servers end within a few milliseconds of SIGTERM
        while sys_.monotonic() < deadline:
            # while the server itself runs its group is alive: the members are listed (a read of
            # every process on Linux) only once it has ended
            leader_running = tree.proc.poll() is None
            strays = [p for p in strays if self.process_alive(p)]
            if not leader_running and not strays and not self.group_alive(tree.group):
                break
            if leader_running:
                sys_.wait_exit(tree.proc.pid, pause)
            else:
                sys_.sleep(pause)
            pause = min(pause * 2, STOP_POLL_S)
        else:
            self._signal_group(tree.group, SIGKILL)
            self._signal_pids(strays, SIGKILL)
        try:
            tree.proc.wait(timeout=max(grace_s, REAP_WAIT_S))
        except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL cannot be ignored
            tree.proc.kill()
            tree.proc.wait()
        stop = sys_.monotonic() + REAP_WAIT_S
        while self.group_alive(tree.group) and sys_.monotonic() < stop:
            sys_.sleep(STOP_POLL_S)
