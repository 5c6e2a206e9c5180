"""Windows: a server's tree is a Job Object that kills every process in it when closed.

Start: create the job, set ``JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE``, start the child suspended, put
it in the job, resume it, so nothing it starts (``npx.cmd`` -> ``node`` -> ...) escapes the job.
Stop: our end of stdin is already closed (a well-behaved server exits on EOF); after the grace
period the job is terminated, which ends every process in it, and the handle is closed.
Liveness: the job's count of active processes.

Commands are resolved the way the clients resolve them: a bare name is looked up along PATH with
each PATHEXT extension in order; ``.cmd``/``.bat`` launchers run through ``cmd.exe /d /s /c`` with
every argument quoted for the C runtime and every cmd metacharacter escaped with ``^`` (so ``&``,
``|``, ``%VAR%`` and spaces in arguments arrive unchanged); ``.ps1`` scripts run through
``powershell.exe -NoProfile -ExecutionPolicy Bypass -File``. The calls are reached through
``WindowsSystem`` so tests elsewhere can record them; ``RealWindowsSystem`` makes them (ctypes).
"""

from __future__ import annotations

import ctypes
import os.path
import re
import subprocess
import time
from collections.abc import Mapping, Sequence
from typing import IO, Any, Protocol

from mcpcost.runtime.processes.platform_api import CommandResolution, ProcessTree, ReadableEnd

CREATE_SUSPENDED = 0x00000004
CREATE_NEW_PROCESS_GROUP = 0x00000200
CREATE_NO_WINDOW = 0x08000000
START_FLAGS = CREATE_SUSPENDED | CREATE_NEW_PROCESS_GROUP | CREATE_NO_WINDOW
JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE = 0x00002000
JOB_OBJECT_BASIC_ACCOUNTING_INFORMATION = 1
JOB_OBJECT_EXTENDED_LIMIT_INFORMATION = 9
KILLED_EXIT_CODE = 1
DEFAULT_PATHEXT = ".COM;.EXE;.BAT;.CMD"
REAP_WAIT_S = 1.0
_CMD_META = re.compile(r'([()\[\]%!^"`<>&|;, *?])')


def env_get(env: Mapping[str, str], name: str) -> str | None:
    """A variable looked up case-insensitively, as Windows does (``Path`` is ``PATH``)."""
    if name in env:
        return env[name]
    upper = name.upper()
    return next((v for k, v in env.items() if k.upper() == upper), None)


def quote_arg(arg: str) -> str:
    """``arg`` quoted so the C runtime's command-line parser gives it back unchanged."""
    out = ['"']
    backslashes = 0
    for ch in arg:
        if ch == "\\":
            backslashes += 1
            continue
        if ch == '"':
            out.append("\\" * (2 * backslashes + 1) + '"')
        else:
            out.append("\\" * backslashes + ch)
        backslashes = 0
    out.append("\\" * (2 * backslashes) + '"')
    return "".join(out)


def caret_escape(text: str) -> str:
    """Every cmd.exe metacharacter (quotes included) escaped with ``^``."""
    return _CMD_META.sub(r"^\1", text)


def cmd_line(comspec: str, launcher: str, args: Sequence[str]) -> str:
    """The ``cmd.exe /d /s /c "..."`` line that runs a batch ``launcher`` with ``args`` verbatim.

    Every quote inside is escaped, so cmd never enters a quoted region and consumes every caret;
    what reaches the batch file is the C-runtime-quoted command line.
    """
    inner = " ".join(caret_escape(quote_arg(a)) for a in (launcher, *args))
    return f'{quote_arg(comspec)} /d /s /c "{inner}"'


def plain_line(argv: Sequence[str]) -> str:
    """A command line for a real executable (C-runtime quoting)."""
    return subprocess.list2cmdline(list(argv))


def _has_dir(command: str) -> bool:
    return "\\" in command or "/" in command or (len(command) > 1 and command[1] == ":")


class WindowsSystem(Protocol):
    """The calls the Windows process layer makes."""

    def is_file(self, path: str) -> bool: ...

    def popen(
        self, command_line: str, *, env: Mapping[str, str], cwd: str | None, creationflags: int
    ) -> subprocess.Popen[bytes]: ...

    def reader(self, file: IO[bytes]) -> ReadableEnd: ...

    def create_job(self) -> int: ...

    def kill_on_close(self, job: int) -> None: ...

    def assign(self, job: int, process: int) -> None: ...

    def resume(self, process: int) -> None: ...

    def active_processes(self, job: int) -> int: ...

    def terminate_job(self, job: int, exit_code: int) -> None: ...

    def close_handle(self, handle: int) -> None: ...

    def monotonic(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...


class WindowsPlatform:
    name = "windows"

    def __init__(self, system: WindowsSystem | None = None) -> None:
        self.system: WindowsSystem = system or RealWindowsSystem()

    # -- resolving ------------------------------------------------------------------------
    def find(self, command: str, env: Mapping[str, str]) -> str | None:
        """The file ``command`` names: as given when it has a directory, else along PATH, each
        directory tried with the command as written (if it has a PATHEXT extension) and then
        with each PATHEXT extension in order."""
        exts = [e for e in (env_get(env, "PATHEXT") or DEFAULT_PATHEXT).split(";") if e]
        has_ext = any(command.lower().endswith(e.lower()) for e in (*exts, ".ps1"))
        path = env_get(env, "PATH") or ""
        dirs = [""] if _has_dir(command) else [d.strip().strip('"') for d in path.split(";")]
        for d in dirs:
            if _has_dir(command):
                base = command
            elif d:
                base = d.rstrip("\\/") + "\\" + command
            else:
                continue
            candidates = ([base] if has_ext else []) + [base + e for e in exts]
            for candidate in candidates:
                if self.system.is_file(candidate):
                    return candidate
        return None

    def resolve(self, argv: Sequence[str], env: Mapping[str, str]) -> CommandResolution:
        if not argv:
            return CommandResolution(())
        found = self.find(argv[0], env)
        args = tuple(argv[1:])
        if found is None:
            return CommandResolution(tuple(argv), None, plain_line(argv))
        ext = found.rsplit(".", 1)[-1].lower() if "." in found else ""
        if ext in ("cmd", "bat"):
            comspec = env_get(env, "COMSPEC") or "cmd.exe"
            return CommandResolution(
                (comspec, "/d", "/s", "/c", found, *args), found, cmd_line(comspec, found, args)
            )
        if ext == "ps1":
            run = ("powershell.exe", "-NoProfile", "-ExecutionPolicy", "Bypass", "-File", found)
            return CommandResolution((*run, *args), found, plain_line((*run, *args)))
        return CommandResolution((found, *args), found, plain_line((found, *args)))

    # -- the tree ---------------------------------------------------------------------------
    def start(self, argv: Sequence[str], *, env: Mapping[str, str], cwd: str | None) -> ProcessTree:
        line = self.resolve(argv, env).command_line or plain_line(argv)
        sys_ = self.system
        job = sys_.create_job()
        try:
            sys_.kill_on_close(job)
            proc = sys_.popen(line, env=env, cwd=cwd, creationflags=START_FLAGS)
        except BaseException:
            sys_.close_handle(job)
            raise
        handle = int(vars(proc)["_handle"])  # the process handle Popen keeps
        try:
            sys_.assign(job, handle)
            sys_.resume(handle)
        except OSError:
            proc.kill()
            proc.wait()
            sys_.close_handle(job)
            raise
        assert proc.stdout is not None and proc.stderr is not None
        return ProcessTree(
            proc,
            platform=self,
            group=proc.pid,
            job=job,
            stdout=sys_.reader(proc.stdout),
            stderr=sys_.reader(proc.stderr),
        )

    def alive(self, tree: ProcessTree) -> bool:
        if tree.job is None:
            return False
        return self.system.active_processes(tree.job) > 0

    def kill(self, tree: ProcessTree) -> None:
        if tree.job is not None:
            self.system.terminate_job(tree.job, KILLED_EXIT_CODE)

    def stop(self, tree: ProcessTree, grace_s: float) -> None:
        sys_ = self.system
        job = tree.job
        if job is None:
            return
        deadline = sys_.monotonic() + grace_s
        while sys_.monotonic() < deadline:
            if tree.proc.poll() is not None and sys_.active_processes(job) == 0:
                break
            sys_.sleep(0.01)
        else:
            sys_.terminate_job(job, KILLED_EXIT_CODE)
        stop = sys_.monotonic() + REAP_WAIT_S
        while sys_.active_processes(job) > 0 and sys_.monotonic() < stop:
            sys_.sleep(0.01)
        try:
            tree.proc.wait(timeout=REAP_WAIT_S)
        except subprocess.TimeoutExpired:  # pragma: no cover - the job was terminated
            tree.proc.kill()
        tree.job = None
        sys_.close_handle(job)


# -- the real calls (ctypes; only constructed on Windows) ----------------------------------


class _IoCounters(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_ulonglong)
        for name in (
            *("ReadOperationCount", "WriteOperationCount", "OtherOperationCount"),
            *("ReadTransferCount", "WriteTransferCount", "OtherTransferCount"),
        )
    ]


class _BasicLimits(ctypes.Structure):
    _fields_ = [
        ("PerProcessUserTimeLimit", ctypes.c_longlong),
        ("PerJobUserTimeLimit", ctypes.c_longlong),
        ("LimitFlags", ctypes.c_uint32),
        ("MinimumWorkingSetSize", ctypes.c_size_t),
        ("MaximumWorkingSetSize", ctypes.c_size_t),
        ("ActiveProcessLimit", ctypes.c_uint32),
        ("Affinity", ctypes.c_size_t),
        ("PriorityClass", ctypes.c_uint32),
        ("SchedulingClass", ctypes.c_uint32),
    ]


class _ExtendedLimits(ctypes.Structure):
    _fields_ = [
        ("BasicLimitInformation", _BasicLimits),
        ("IoInfo", _IoCounters),
        ("ProcessMemoryLimit", ctypes.c_size_t),
        ("JobMemoryLimit", ctypes.c_size_t),
        ("PeakProcessMemoryUsed", ctypes.c_size_t),
        ("PeakJobMemoryUsed", ctypes.c_size_t),
    ]


class _Accounting(ctypes.Structure):
    _fields_ = [
        ("TotalUserTime", ctypes.c_longlong),
        ("TotalKernelTime", ctypes.c_longlong),
        ("ThisPeriodTotalUserTime", ctypes.c_longlong),
        ("ThisPeriodTotalKernelTime", ctypes.c_longlong),
        ("TotalPageFaultCount", ctypes.c_uint32),
        ("TotalProcesses", ctypes.c_uint32),
        ("ActiveProcesses", ctypes.c_uint32),
        ("TotalTerminatedProcesses", ctypes.c_uint32),
    ]


_WINDOWS_CTYPES: Any = ctypes  # WinDLL, WinError, get_last_error exist only on Windows


def _dll(name: str) -> Any:
    return _WINDOWS_CTYPES.WinDLL(name, use_last_error=True)


def _check(ok: object, what: str) -> None:
    if not ok:
        code = _WINDOWS_CTYPES.get_last_error()
        raise _WINDOWS_CTYPES.WinError(code, what)  # an OSError


class RealWindowsSystem:
    """kernel32 Job Object calls through ctypes; ``NtResumeProcess`` resumes the suspended child."""

    def __init__(self) -> None:
        self._k32 = _dll("kernel32")
        self._ntdll = _dll("ntdll")
        self._k32.CreateJobObjectW.restype = ctypes.c_void_p
        self._k32.CreateJobObjectW.argtypes = [ctypes.c_void_p, ctypes.c_wchar_p]
        info_args = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_uint32]
        self._k32.SetInformationJobObject.argtypes = info_args
        self._k32.QueryInformationJobObject.argtypes = [*info_args, ctypes.c_void_p]
        self._k32.AssignProcessToJobObject.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        self._k32.TerminateJobObject.argtypes = [ctypes.c_void_p, ctypes.c_uint]
        self._k32.CloseHandle.argtypes = [ctypes.c_void_p]
        self._ntdll.NtResumeProcess.argtypes = [ctypes.c_void_p]

    def is_file(self, path: str) -> bool:

        return os.path.isfile(path)

    def popen(
        self, command_line: str, *, env: Mapping[str, str], cwd: str | None, creationflags: int
    ) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            command_line,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(env),
            cwd=cwd,
            creationflags=creationflags,
            close_fds=True,
        )

    def reader(self, file: IO[bytes]) -> ReadableEnd:
        return file  # type: ignore[return-value]  # BufferedReader has read1 and close

    def create_job(self) -> int:
        job = self._k32.CreateJobObjectW(None, None)
        _check(job, "CreateJobObjectW")
        return int(job)

    def kill_on_close(self, job: int) -> None:
        info = _ExtendedLimits()
        info.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
        ok = self._k32.SetInformationJobObject(
            job, JOB_OBJECT_EXTENDED_LIMIT_INFORMATION, ctypes.byref(info), ctypes.sizeof(info)
        )
        _check(ok, "SetInformationJobObject")

    def assign(self, job: int, process: int) -> None:
        _check(self._k32.AssignProcessToJobObject(job, process), "AssignProcessToJobObject")

    def resume(self, process: int) -> None:
        status = self._ntdll.NtResumeProcess(process)
        if status != 0:
            raise OSError(f"NtResumeProcess failed with status {status:#x}")

    def active_processes(self, job: int) -> int:
        info = _Accounting()
        ok = self._k32.QueryInformationJobObject(
            job,
            JOB_OBJECT_BASIC_ACCOUNTING_INFORMATION,
            ctypes.byref(info),
            ctypes.sizeof(info),
            None,
        )
        _check(ok, "QueryInformationJobObject")
        return int(info.ActiveProcesses)

    def terminate_job(self, job: int, exit_code: int) -> None:
        self._k32.TerminateJobObject(job, exit_code)

    def close_handle(self, handle: int) -> None:
        self._k32.CloseHandle(handle)

    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)
