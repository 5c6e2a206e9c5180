"""macOS and Windows process layers, tested here through the interface against recorded
behaviour of each system: the calls made, in order, with their arguments, and the answers the
system gives (a recorder stands in for the OS calls, which cannot run on this machine)."""

from __future__ import annotations

import ctypes
import io
import re
import subprocess
from collections.abc import Mapping, Sequence
from typing import IO, Any

import pytest

from mcpcost.runtime.processes import (
    LiveTrees,
    StartRefused,
    kill_every_tree,
    start_tree,
    windows,
)
from mcpcost.runtime.processes.macos import (
    GUI_APP_PATH,
    PS_ARGV,
    MacPlatform,
    group_states,
    strays_in,
)
from mcpcost.runtime.processes.platform_api import ProcessTree, ReadableEnd
from mcpcost.runtime.processes.posix import SIGKILL, SIGTERM
from mcpcost.runtime.processes.windows import (
    JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
    KILLED_EXIT_CODE,
    START_FLAGS,
    WindowsPlatform,
    cmd_line,
    quote_arg,
)

Call = tuple[Any, ...]


class RecordedProcess:
    """What ``subprocess.Popen`` returns, as far as the layer uses it."""

    def __init__(self, pid: int, exits_after_polls: int | None = 0) -> None:
        self.pid = pid
        self._handle = 0x500 + pid
        self.stdin: IO[bytes] = io.BytesIO()
        self.stdout: IO[bytes] = io.BytesIO()
        self.stderr: IO[bytes] = io.BytesIO()
        self.returncode: int | None = None
        self._polls_left = exits_after_polls
        self.calls: list[Call] = []

    def poll(self) -> int | None:
        if self.returncode is None and self._polls_left is not None:
            if self._polls_left == 0:
                self.returncode = 0
            self._polls_left -= 1
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        self.calls.append(("wait",))
        if self.returncode is None:
            self.returncode = -9
        return self.returncode

    def kill(self) -> None:
        self.calls.append(("kill",))
        self.returncode = -9


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


# -- macOS -----------------------------------------------------------------------------------


class RecordedMac:
    """The macOS calls: ``killpg`` answers from ``groups`` (pgid -> ps lines); ``ps`` lists them."""

    def __init__(self, process: RecordedProcess, *, ignores_term: bool = False) -> None:
        self.calls: list[Call] = []
        self.process = process
        self.clock = Clock()
        self.ignores_term = ignores_term
        self.groups: dict[int, list[str]] = {}
        self.paths: dict[str, set[str]] = {}  # PATH value -> commands found there
        self.detached: list[str] = []  # ps lines of descendants in groups of their own

    def popen(
        self, argv: Sequence[str], *, env: Mapping[str, str], cwd: str | None
    ) -> subprocess.Popen[bytes]:
        self.calls.append(("popen", tuple(argv), dict(env), cwd))
        pid = self.process.pid
        self.groups[pid] = [f"{pid} 1 {pid} Ss", f"{pid + 1} {pid} {pid} S"]
        return self.process  # type: ignore[return-value]

    def reader(self, file: IO[bytes]) -> ReadableEnd:
        return file  # type: ignore[return-value]

    def killpg(self, pgid: int, sig: int) -> None:
        self.calls.append(("killpg", pgid, sig))
        if pgid not in self.groups:
            raise ProcessLookupError
        if sig == SIGKILL or (sig == SIGTERM and not self.ignores_term):
            del self.groups[pgid]
            self.process.returncode = -sig

    def kill(self, pid: int, sig: int) -> None:
        self.calls.append(("kill", pid, sig))
        line = next((d for d in self.detached if d.split()[0] == str(pid)), None)
        if line is None:
            raise ProcessLookupError
        if sig == SIGKILL or (sig == SIGTERM and not self.ignores_term):
            self.detached.remove(line)

    def which(self, command: str, path: str | None) -> str | None:
        self.calls.append(("which", command, path))
        for directory in (path or "").split(":"):
            if command in self.paths.get(directory, set()):
                return f"{directory}/{command}"
        return None

    def run(self, argv: Sequence[str]) -> str:
        self.calls.append(("run", tuple(argv)))
        lines = [line for g in self.groups.values() for line in g]
        return "\n".join(["  1     0     1 Ss", *lines, *self.detached])

    def monotonic(self) -> float:
        return self.clock.monotonic()

    def sleep(self, seconds: float) -> None:
        self.clock.sleep(seconds)

    def wait_exit(self, pid: int, seconds: float) -> None:
        self.calls.append(("wait_exit", pid))
        self.clock.sleep(seconds)


def started_mac(**kw: bool) -> tuple[MacPlatform, RecordedMac, ProcessTree]:
    system = RecordedMac(RecordedProcess(4242, exits_after_polls=None), **kw)
    platform = MacPlatform(system)
    tree = platform.start(["npx", "-y", "pkg"], env={"PATH": "/usr/bin"}, cwd="/Users/me")
    return platform, system, tree


def test_macos_starts_the_server_in_a_new_group_named_by_its_pid() -> None:
    _, system, tree = started_mac()
    assert system.calls == [("popen", ("npx", "-y", "pkg"), {"PATH": "/usr/bin"}, "/Users/me")]
    assert tree.group == 4242 and tree.job is None


def test_macos_liveness_asks_the_group_then_reads_ps_without_proc() -> None:
    platform, system, tree = started_mac()
    system.calls.clear()
    assert platform.alive(tree)
    assert system.calls == [("killpg", 4242, 0), ("run", PS_ARGV)]
    system.groups[4242] = ["4242 1 4242 Z"]  # only a zombie awaiting its reaper
    assert not platform.alive(tree)
    del system.groups[4242]
    system.calls.clear()
    assert not platform.alive(tree)
    assert system.calls == [("killpg", 4242, 0)]  # no ps once the group is gone


def test_macos_ps_listing_is_read_per_group() -> None:
    listing = "  1   0     1 Ss\n 500   1   500 S+\n 501 500   500 Z\n 502 500   777 R\n"
    listing += " 503 502   777 S\n 504   1   504 S\n"
    assert group_states(listing, 500) == ["S", "Z"]
    assert group_states(listing, 9) == []
    assert strays_in(listing, 500, 500) == [502, 503]  # left the group, still descendants


def test_macos_stop_sends_sigterm_to_the_group_and_reaps() -> None:
    platform, system, tree = started_mac()
    system.calls.clear()
    system.detached = ["4300 4243 4300 Ss"]  # a grandchild in a session of its own
    platform.stop(tree, 2.0)
    # the strays are listed before anything is signalled, then signalled with the group
    assert system.calls[:3] == [
        ("run", PS_ARGV),
        ("kill", 4300, SIGTERM),
        ("killpg", 4242, SIGTERM),
    ]
    assert ("killpg", 4242, SIGKILL) not in system.calls
    assert ("kill", 4300, 0) in system.calls and ("kill", 4300, SIGKILL) not in system.calls
    assert system.detached == []
    assert system.calls[-1] == ("killpg", 4242, 0)
    assert tree.proc.returncode == -SIGTERM


def test_macos_stop_kills_a_group_that_ignores_sigterm_after_the_grace() -> None:
    platform, system, tree = started_mac(ignores_term=True)
    system.detached = ["4300 4243 4300 Ss"]  # a grandchild in a session of its own
    system.calls.clear()
    platform.stop(tree, 2.0)
    signals = [c[:3:2] for c in system.calls if c[0] in ("kill", "killpg") and c[2] != 0]
    assert signals == [
        ("kill", SIGTERM),
        ("killpg", SIGTERM),
        ("killpg", SIGKILL),
        ("kill", SIGKILL),
    ]
    assert system.detached == []
    assert system.clock.now >= 102.0  # the grace period passed before SIGKILL
    assert tree.proc.returncode == -SIGKILL


def test_a_stop_waits_on_the_running_server_and_lists_its_group_only_once_it_ended() -> None:
    platform, system, tree = started_mac(ignores_term=True)
    system.calls.clear()
    platform.stop(tree, 2.0)
    term = system.calls.index(("killpg", tree.group, SIGTERM))
    kill = system.calls.index(("killpg", tree.group, SIGKILL))
    waiting = system.calls[term + 1 : kill]
    # the whole grace period is spent waiting on the server, none of it listing processes
    assert waiting and {c[0] for c in waiting} == {"wait_exit"}
    assert all(c == ("wait_exit", tree.proc.pid) for c in waiting)
    assert system.clock.now >= 102.0
    # and a server that ends at SIGTERM is never waited on
    platform, system, tree = started_mac()
    system.calls.clear()
    platform.stop(tree, 2.0)
    assert not [c for c in system.calls if c[0] == "wait_exit"]


def test_macos_flags_a_command_found_only_through_the_shell_path() -> None:
    system = RecordedMac(RecordedProcess(1))
    system.paths = {"/opt/homebrew/bin": {"npx", "uvx"}, "/usr/bin": {"python3"}}
    platform = MacPlatform(system)
    shell = {"PATH": "/opt/homebrew/bin:/usr/bin:/bin"}
    npx = platform.resolve(["npx", "-y", "x"], shell)
    assert npx.found == "/opt/homebrew/bin/npx" and npx.shell_path_only
    assert system.calls == [("which", "npx", shell["PATH"]), ("which", "npx", GUI_APP_PATH)]
    assert not platform.resolve(["python3"], shell).shell_path_only
    assert not platform.resolve(["/opt/homebrew/bin/uvx"], shell).shell_path_only
    assert not platform.resolve(["missing"], shell).shell_path_only


# -- Windows ---------------------------------------------------------------------------------

NODE_DIR = "C:\\Program Files\\nodejs"
NPM_DIR = "C:\\Users\\Jo Smith\\AppData\\Roaming\\npm"
UV_DIR = "C:\\Users\\Jo Smith\\.local\\bin"
COMSPEC = "C:\\WINDOWS\\system32\\cmd.exe"
WIN_ENV = {
    "Path": ";".join([NODE_DIR, NPM_DIR, UV_DIR]),
    "PATHEXT": ".COM;.EXE;.BAT;.CMD;.VBS;.JS",
    "ComSpec": COMSPEC,
    "APPDATA": "C:\\Users\\Jo Smith\\AppData\\Roaming",
    "USERPROFILE": "C:\\Users\\Jo Smith",
}
WIN_FILES = {
    f"{NODE_DIR}\\node.exe",
    f"{NODE_DIR}\\npx.cmd",
    f"{NODE_DIR}\\npx",  # the sh script npm also installs: never what a client runs
    f"{NPM_DIR}\\server-tool.CMD",
    f"{UV_DIR}\\uvx.exe",
    f"{UV_DIR}\\start-server.ps1",
}


class RecordedWindows:
    """The Windows calls: files on disk, the job's active-process count as the system reports it."""

    def __init__(self, process: RecordedProcess, *, exits_on_eof: bool = True) -> None:
        self.calls: list[Call] = []
        self.process = process
        self.clock = Clock()
        self.exits_on_eof = exits_on_eof
        self.active = 0
        self.fail_assign = False

    def is_file(self, path: str) -> bool:
        self.calls.append(("is_file", path))
        return path.lower() in {f.lower() for f in WIN_FILES}  # NTFS names ignore case

    def popen(
        self, command_line: str, *, env: Mapping[str, str], cwd: str | None, creationflags: int
    ) -> subprocess.Popen[bytes]:
        self.calls.append(("popen", command_line, cwd, creationflags))
        return self.process  # type: ignore[return-value]

    def reader(self, file: IO[bytes]) -> ReadableEnd:
        return file  # type: ignore[return-value]

    def create_job(self) -> int:
        self.calls.append(("create_job",))
        return 0x77

    def kill_on_close(self, job: int) -> None:
        self.calls.append(("kill_on_close", job))

    def assign(self, job: int, process: int) -> None:
        self.calls.append(("assign", job, process))
        if self.fail_assign:
            raise PermissionError(5, "Access is denied")
        self.active = 3  # the launcher, node, and what node starts

    def resume(self, process: int) -> None:
        self.calls.append(("resume", process))

    def active_processes(self, job: int) -> int:
        self.calls.append(("active_processes", job))
        if self.exits_on_eof and self.process.returncode is not None:
            self.active = 0
        return self.active

    def terminate_job(self, job: int, exit_code: int) -> None:
        self.calls.append(("terminate_job", job, exit_code))
        self.active = 0
        self.process.returncode = exit_code

    def close_handle(self, handle: int) -> None:
        self.calls.append(("close_handle", handle))

    def monotonic(self) -> float:
        return self.clock.monotonic()

    def sleep(self, seconds: float) -> None:
        self.clock.sleep(seconds)


def without_lookups(calls: list[Call]) -> list[Call]:
    return [c for c in calls if c[0] not in ("is_file", "active_processes")]


def crt_split(line: str) -> list[str]:
    """How the C runtime splits a command line into argv (the post-2008 rules)."""
    args: list[str] = []
    cur: list[str] = []
    quoted = have = False
    i = 0
    while i < len(line):
        c = line[i]
        if c == "\\":
            j = i
            while j < len(line) and line[j] == "\\":
                j += 1
            count = j - i
            if j < len(line) and line[j] == '"':
                cur.append("\\" * (count // 2))
                if count % 2:
                    cur.append('"')
                    j += 1
            else:
                cur.append("\\" * count)
            have, i = True, j
            continue
        if c == '"':
            if quoted and line[i + 1 : i + 2] == '"':
                cur.append('"')
                i += 2
                continue
            quoted, have = not quoted, True
        elif c in " \t" and not quoted:
            if have:
                args.append("".join(cur))
            cur, have = [], False
        else:
            cur.append(c)
            have = True
        i += 1
    if have:
        args.append("".join(cur))
    return args


def through_cmd(line: str, env: Mapping[str, str]) -> list[str]:
    """What ``cmd.exe /d /s /c "..."`` hands the batch file: /s strips the outer quotes, %VAR%
    expands (unknown names stay as typed), carets escape outside quotes; an unescaped operator
    outside quotes would split the command."""
    _, sep, rest = line.partition(" /d /s /c ")
    assert sep and rest.startswith('"') and rest.endswith('"'), line
    inner = re.sub(r"%([^%]+)%", lambda m: env.get(m.group(1), m.group(0)), rest[1:-1])
    out: list[str] = []
    quoted = False
    i = 0
    while i < len(inner):
        ch = inner[i]
        if ch == "^" and not quoted:
            i += 1
            out.append(inner[i])
        else:
            assert quoted or ch not in "&|<>()", f"cmd would act on {ch!r} in {inner!r}"
            quoted = not quoted if ch == '"' else quoted
            out.append(ch)
        i += 1
    return crt_split("".join(out))


HARD_ARGS = [
    "-y",
    "@scope/pkg@1.2.3",
    "C:\\Users\\Jo Smith\\My Files\\",
    'say "hi" & exit',
    "a|b<c>d(e)",
    "100%",
    "%PATH%",
    "^caret^",
    "semi;colon,comma",
    "",
    "trailing\\\\",
    "!bang!",
]


def test_windows_cmd_line_survives_cmd_and_the_c_runtime() -> None:
    line = cmd_line(COMSPEC, f"{NODE_DIR}\\npx.cmd", HARD_ARGS)
    assert line.startswith(f'"{COMSPEC}" /d /s /c "')
    assert through_cmd(line, {"PATH": "C:\\Windows"}) == [f"{NODE_DIR}\\npx.cmd", *HARD_ARGS]
    for arg in HARD_ARGS:
        assert crt_split(quote_arg(arg)) == [arg]


def test_windows_resolves_npx_to_the_cmd_launcher_through_pathext() -> None:
    system = RecordedWindows(RecordedProcess(900))
    resolution = WindowsPlatform(system).resolve(["npx", "-y", "@scope/pkg"], WIN_ENV)
    assert resolution.found == f"{NODE_DIR}\\npx.CMD"
    # the bare name has no PATHEXT extension: only name+ext candidates, in PATHEXT order (the
    # extension-less sh script next to it is never a candidate)
    assert system.calls == [
        ("is_file", f"{NODE_DIR}\\npx.COM"),
        ("is_file", f"{NODE_DIR}\\npx.EXE"),
        ("is_file", f"{NODE_DIR}\\npx.BAT"),
        ("is_file", f"{NODE_DIR}\\npx.CMD"),
    ]
    assert resolution.command_line is not None
    assert through_cmd(resolution.command_line, WIN_ENV) == [
        f"{NODE_DIR}\\npx.CMD",
        "-y",
        "@scope/pkg",
    ]


def test_windows_resolution_of_exe_ps1_explicit_paths_and_missing_commands() -> None:
    platform = WindowsPlatform(RecordedWindows(RecordedProcess(1)))
    uvx = platform.resolve(["uvx", "mcp-server-time"], WIN_ENV)
    assert uvx.found == f"{UV_DIR}\\uvx.EXE"
    assert uvx.command_line == f'"{UV_DIR}\\uvx.EXE" mcp-server-time'
    tool = platform.resolve(["server-tool", "a b"], WIN_ENV)
    assert tool.found == f"{NPM_DIR}\\server-tool.CMD" and tool.argv[0] == COMSPEC
    ps1 = platform.resolve(["start-server.ps1", "--port", "1"], WIN_ENV)
    assert ps1.command_line is not None
    assert crt_split(ps1.command_line) == [
        *("powershell.exe", "-NoProfile", "-ExecutionPolicy", "Bypass", "-File"),
        f"{UV_DIR}\\start-server.ps1",
        *("--port", "1"),
    ]
    node = platform.resolve([f"{NODE_DIR}\\node.exe", "server.js"], WIN_ENV)
    assert node.found == f"{NODE_DIR}\\node.exe"
    assert crt_split(node.command_line or "") == [f"{NODE_DIR}\\node.exe", "server.js"]
    quoted = {**WIN_ENV, "Path": f'"{UV_DIR}";C:\\Windows'}  # PATH entries may be quoted
    assert platform.resolve(["uvx"], quoted).found == f"{UV_DIR}\\uvx.EXE"
    missing = platform.resolve(["mcp-nowhere", "x"], WIN_ENV)
    assert missing.found is None and missing.command_line == "mcp-nowhere x"


def test_windows_start_puts_the_suspended_child_in_a_kill_on_close_job_then_resumes() -> None:
    system = RecordedWindows(RecordedProcess(900, exits_after_polls=None))
    tree = WindowsPlatform(system).start(["npx", "-y", "pkg"], env=WIN_ENV, cwd="D:\\work dir")
    line = cmd_line(COMSPEC, f"{NODE_DIR}\\npx.CMD", ["-y", "pkg"])
    assert without_lookups(system.calls) == [
        ("create_job",),
        ("kill_on_close", 0x77),
        ("popen", line, "D:\\work dir", START_FLAGS),
        ("assign", 0x77, 0x500 + 900),
        ("resume", 0x500 + 900),
    ]
    assert START_FLAGS & 0x4  # CREATE_SUSPENDED: nothing runs before it is in the job
    assert JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE == 0x2000
    assert tree.job == 0x77 and tree.group == 900


def test_windows_start_that_cannot_join_the_job_kills_the_child_and_frees_the_job() -> None:
    process = RecordedProcess(900, exits_after_polls=None)
    system = RecordedWindows(process)
    system.fail_assign = True
    with pytest.raises(PermissionError):
        WindowsPlatform(system).start(["uvx", "x"], env=WIN_ENV, cwd=None)
    assert without_lookups(system.calls)[-2:] == [
        ("assign", 0x77, 0x500 + 900),
        ("close_handle", 0x77),
    ]
    assert process.calls == [("kill",), ("wait",)]
    assert ("resume", 0x500 + 900) not in system.calls


def test_windows_stop_of_a_server_that_exits_on_eof_does_not_terminate_the_job() -> None:
    system = RecordedWindows(RecordedProcess(900, exits_after_polls=2))
    platform = WindowsPlatform(system)
    tree = platform.start(["uvx", "x"], env=WIN_ENV, cwd=None)
    assert platform.alive(tree)
    system.calls.clear()
    platform.stop(tree, 2.0)
    assert without_lookups(system.calls) == [("close_handle", 0x77)]
    assert not platform.alive(tree) and tree.job is None


def test_windows_stop_terminates_the_job_after_the_grace_then_closes_it() -> None:
    system = RecordedWindows(RecordedProcess(900, exits_after_polls=None), exits_on_eof=False)
    platform = WindowsPlatform(system)
    tree = platform.start(["npx", "pkg"], env=WIN_ENV, cwd=None)
    system.calls.clear()
    platform.stop(tree, 2.0)
    assert without_lookups(system.calls) == [
        ("terminate_job", 0x77, KILLED_EXIT_CODE),
        ("close_handle", 0x77),
    ]
    assert system.clock.now >= 102.0  # the grace period passed before the job was terminated


def test_windows_kill_terminates_the_job_at_once() -> None:
    system = RecordedWindows(RecordedProcess(900, exits_after_polls=None), exits_on_eof=False)
    platform = WindowsPlatform(system)
    tree = platform.start(["npx", "pkg"], env=WIN_ENV, cwd=None)
    system.calls.clear()
    platform.kill(tree)
    assert system.calls == [("terminate_job", 0x77, KILLED_EXIT_CODE)]
    assert not platform.alive(tree)


# -- the registry, on any platform ---------------------------------------------------------


def test_registry_refuses_new_trees_once_interrupted_and_kills_the_live_ones() -> None:
    registry = LiveTrees()
    system = RecordedWindows(RecordedProcess(900, exits_after_polls=None), exits_on_eof=False)
    platform = WindowsPlatform(system)
    tree = start_tree(platform, ["npx", "pkg"], env=WIN_ENV, cwd=None, registry=registry)
    assert registry.snapshot() == [tree]
    assert kill_every_tree(registry) == 1
    assert ("terminate_job", 0x77, KILLED_EXIT_CODE) in system.calls
    calls_before = len(system.calls)
    with pytest.raises(StartRefused):
        start_tree(platform, ["npx", "pkg"], env=WIN_ENV, cwd=None, registry=registry)
    assert len(system.calls) == calls_before  # nothing was started


def test_a_start_racing_the_interrupt_is_stopped_before_it_is_handed_out() -> None:
    registry = LiveTrees()
    system = RecordedWindows(RecordedProcess(900, exits_after_polls=None), exits_on_eof=False)
    platform = WindowsPlatform(system)
    original = platform.start

    def start_then_interrupt(argv: Sequence[str], **kw: Any) -> ProcessTree:
        tree = original(argv, **kw)
        registry.close()
        return tree

    platform.start = start_then_interrupt  # type: ignore[method-assign]
    with pytest.raises(StartRefused):
        start_tree(platform, ["npx", "pkg"], env=WIN_ENV, cwd=None, registry=registry)
    assert ("terminate_job", 0x77, KILLED_EXIT_CODE) in system.calls
    assert system.calls[-1] == ("close_handle", 0x77)


@pytest.mark.skipif(ctypes.sizeof(ctypes.c_void_p) != 8, reason="64-bit layouts")
def test_windows_job_structures_have_the_x64_sizes_the_api_expects() -> None:
    # JOBOBJECT_BASIC_LIMIT_INFORMATION 64, IO_COUNTERS 48,
    # JOBOBJECT_EXTENDED_LIMIT_INFORMATION 144, JOBOBJECT_BASIC_ACCOUNTING_INFORMATION 48 bytes
    assert ctypes.sizeof(windows._BasicLimits) == 64
    assert ctypes.sizeof(windows._IoCounters) == 48
    assert ctypes.sizeof(windows._ExtendedLimits) == 144
    assert ctypes.sizeof(windows._Accounting) == 48
    assert windows._ExtendedLimits.IoInfo.offset == 64
