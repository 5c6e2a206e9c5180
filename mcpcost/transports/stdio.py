"""Local stdio servers: spawn the exact argv (no shell) in its own process group.

The environment is a small safe base taken from ours (``safe_base_env``) plus the spec's env; the
working directory is the spec's ``cwd``. The process gets a new session, so on close the whole
tree (``npx`` and the node it starts, ``uvx`` and its python, anything they fork) receives SIGTERM,
then SIGKILL after a grace period, and the direct child is reaped. The line framing itself lives
in ``transports.framing`` so it can run over other byte streams too.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping

from mcpcost.core.spec import ServerSpec
from mcpcost.transports.failures import SpawnFailed
from mcpcost.transports.framing import LineTransport

TERM_GRACE_S = 2.0

_BASE_NAMES = (
    "PATH", "HOME", "USER", "LOGNAME", "LANG", "TZ", "TMPDIR", "TMP", "TEMP",
    "http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY",
)  # fmt: skip
_WINDOWS_NAMES = ("SYSTEMROOT", "SystemRoot", "APPDATA", "LOCALAPPDATA", "USERPROFILE", "PATHEXT",
                  "COMSPEC", "WINDIR")  # fmt: skip


def safe_base_env(environ: Mapping[str, str], *, windows: bool = False) -> dict[str, str]:
    """The variables a server may inherit from us: path, home, user, locale, TZ, temp, proxies."""
    names = _BASE_NAMES + (_WINDOWS_NAMES if windows else ())
    out = {k: environ[k] for k in names if k in environ}
    out.update({k: v for k, v in environ.items() if k.startswith("LC_")})
    return out


def server_env(spec: ServerSpec, environ: Mapping[str, str]) -> dict[str, str]:
    """The full environment for a spec: the safe base, then the spec's own variables."""
    env = safe_base_env(environ, windows=sys.platform == "win32")
    env.update(dict(spec.env))
    return env


def group_alive(pgid: int) -> bool:
    """True while any process of the group exists (zombies awaiting a reaper count as gone)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return any(_state(pid) not in ("Z", "X", None) for pid in _group_members(pgid))


def _group_members(pgid: int) -> list[int]:
    if not os.path.isdir("/proc"):
        return [pgid]
    members = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.getpgid(int(entry)) == pgid:
                    members.append(int(entry))
            except OSError:
                continue
    return members


def _state(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read().decode("ascii", "replace")
    except OSError:
        return "?" if not os.path.isdir("/proc") else None
    return stat.rsplit(")", 1)[-1].split()[0]


def end_process_group(proc: subprocess.Popen[bytes], grace_s: float = TERM_GRACE_S) -> None:
    """SIGTERM the process group, SIGKILL it after ``grace_s``, reap the direct child."""
    pgid = proc.pid
    try:
        os.killpg(pgid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        pass
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        proc.poll()
        if not group_alive(pgid):
            break
        time.sleep(0.01)
    else:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    try:
        proc.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL cannot be ignored
        proc.kill()
        proc.wait()
    stop = time.monotonic() + 1.0
    while group_alive(pgid) and time.monotonic() < stop:
        time.sleep(0.01)


def spawn_stdio(
    spec: ServerSpec,
    *,
    environ: Mapping[str, str] | None = None,
    grace_s: float = TERM_GRACE_S,
    max_line_bytes: int | None = None,
) -> LineTransport:
    """Start the spec's argv and return the line transport over its pipes."""
    if not spec.argv:
        raise SpawnFailed("spawn failed: no command to run")
    env = server_env(spec, os.environ if environ is None else environ)
    try:
        proc = subprocess.Popen(
            list(spec.argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=spec.cwd,
            start_new_session=True,
            close_fds=True,
        )
    except (OSError, ValueError) as exc:
        detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise SpawnFailed(f"spawn failed: {spec.argv[0]}: {detail}") from None
    assert proc.stdout is not None and proc.stdin is not None and proc.stderr is not None
    extra = {} if max_line_bytes is None else {"max_line_bytes": max_line_bytes}
    return LineTransport(
        proc.stdout,
        proc.stdin,
        proc.stderr,
        terminate=lambda: end_process_group(proc, grace_s),
        exit_code=proc.poll,
        pgid=proc.pid,
        kind="stdio",
        **extra,
    )
