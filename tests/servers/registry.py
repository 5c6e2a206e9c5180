"""One place where tests and benches find the MCP servers they run against.

- ``fixture_argv(mode)``: our own stdio fixture server (``fixtures/stdio_server.py``).
- ``sdk_server_argv(era)``: servers built with the official ``mcp`` SDK (legacy / modern era).
- ``real_server(name)`` / ``real_server_argv(name)`` / ``real_server_missing(name)``: the pinned
  real servers installed by ``scripts/setup-test-env.sh`` (``None`` + a reason when absent, so a
  test can skip).
- ``serve_http_fixture(kind)``: loopback HTTP fixtures; yields the URL to measure.
- ``serve_everything(mode)``: ``server-everything`` in its ``sse`` / ``streamableHttp`` mode.
- ``serve_sdk_http(era)``: an SDK-built server over Streamable HTTP.

Nothing here reaches the internet; everything binds 127.0.0.1 on a free port.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.servers.fixtures.stdio_server import MODES
from tests.servers.http_fixtures import HTTP_FIXTURE_KINDS, HttpFixture, serve_http

SERVERS_DIR = Path(__file__).resolve().parent
FIXTURES_DIR = SERVERS_DIR / "fixtures"
FIXTURE_SCRIPT = FIXTURES_DIR / "stdio_server.py"
SDK_SERVER_SCRIPT = FIXTURES_DIR / "sdk_server.py"
LIMITS_SCRIPT = FIXTURES_DIR / "limits_server.py"
NPM_DIR = SERVERS_DIR / "npm"
NODE_MODULES = NPM_DIR / "node_modules"
LOOPBACK_PRELOAD = NPM_DIR / "loopback-preload.cjs"
NODE_REFERENCE = SERVERS_DIR / "node_reference.mjs"
PY_VENV = SERVERS_DIR / "python" / ".venv"

FIXTURE_MODES: tuple[str, ...] = MODES

SDK_ERAS: tuple[str, ...] = ("legacy", "modern", "dual")

# name -> (package directory under node_modules, extra args)
_NPM_SERVERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "memory": ("@modelcontextprotocol/server-memory", ()),
    "filesystem": ("@modelcontextprotocol/server-filesystem", (str(FIXTURES_DIR),)),
    "everything": ("@modelcontextprotocol/server-everything", ("stdio",)),
    "sequential-thinking": ("@modelcontextprotocol/server-sequential-thinking", ()),
}
_PY_SERVERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "time": ("mcp-server-time", ("--local-timezone", "UTC")),
    "fetch": ("mcp-server-fetch", ()),
}
REAL_STDIO_SERVERS: tuple[str, ...] = (*_NPM_SERVERS, *_PY_SERVERS)
EVERYTHING_HTTP_MODES: tuple[str, ...] = ("sse", "streamableHttp")

__all__ = [
    "EVERYTHING_HTTP_MODES",
    "FIXTURE_MODES",
    "HTTP_FIXTURE_KINDS",
    "REAL_STDIO_SERVERS",
    "SDK_ERAS",
    "HttpFixture",
    "RealServer",
    "fixture_argv",
    "node_binary",
    "real_server",
    "real_server_argv",
    "real_server_missing",
    "real_server_package",
    "sdk_server_argv",
    "serve_everything",
    "serve_http",
    "serve_http_fixture",
    "serve_loopback_registry",
    "serve_sdk_http",
]


def fixture_argv(mode: str, *extra: str) -> list[str]:
    """The argv of our own stdio fixture server in ``mode`` (see ``fixtures/stdio_server.py``)."""
    if mode not in FIXTURE_MODES:
        raise ValueError(f"unknown fixture mode {mode!r}; expected one of {FIXTURE_MODES}")
    return [sys.executable, str(FIXTURE_SCRIPT), "--mode", mode, *extra]


def limits_server_argv(which: str) -> list[str]:
    """The argv of the server whose tools cross client limits (``fixtures/limits_server.py``):
    ``edge`` (long and dotted names, long texts, schemas, an app-only tool) or ``many`` (140)."""
    return [sys.executable, str(LIMITS_SCRIPT), "--set", which]


def sdk_server_argv(era: str, *extra: str) -> list[str]:
    """The argv of the ``mcp``-SDK-built stdio server of ``era`` (``legacy``, ``modern`` or ``dual``)."""
    if era not in SDK_ERAS:
        raise ValueError(f"unknown era {era!r}; expected one of {SDK_ERAS}")
    return [sys.executable, str(SDK_SERVER_SCRIPT), "--era", era, "--transport", "stdio", *extra]


def node_binary() -> str | None:
    return shutil.which("node")


@dataclass(frozen=True)
class RealServer:
    """A pinned real server, ready to launch (``env`` is added to a minimal environment)."""

    name: str
    argv: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)


def real_server_missing(name: str) -> str | None:
    """Why ``name`` cannot be launched here, or ``None`` when it can."""
    if name in _NPM_SERVERS:
        if node_binary() is None:
            return "node is not installed"
        package, _ = _NPM_SERVERS[name]
        if not (NODE_MODULES / package / "package.json").is_file():
            return f"{package} not installed (run scripts/setup-test-env.sh)"
        return None
    if name in _PY_SERVERS:
        exe, _ = _PY_SERVERS[name]
        if not (PY_VENV / "bin" / exe).is_file():
            return f"{exe} not installed in {PY_VENV} (run scripts/setup-test-env.sh)"
        return None
    raise ValueError(f"unknown real server {name!r}; expected one of {REAL_STDIO_SERVERS}")


def _npm_entry(package: str) -> Path:
    """The JS file a package's single ``bin`` points at."""
    import json

    meta = json.loads((NODE_MODULES / package / "package.json").read_text(encoding="utf-8"))
    bin_field = meta["bin"]
    rel = bin_field if isinstance(bin_field, str) else next(iter(bin_field.values()))
    return NODE_MODULES / package / rel


def real_server(name: str) -> RealServer | None:
    """The launch spec of a pinned real stdio server, or ``None`` when it is not installed."""
    if real_server_missing(name) is not None:
        return None
    if name in _NPM_SERVERS:
        package, extra = _NPM_SERVERS[name]
        node = node_binary()
        assert node is not None
        return RealServer(name, (node, str(_npm_entry(package)), *extra))
    exe, extra = _PY_SERVERS[name]
    return RealServer(name, (str(PY_VENV / "bin" / exe), *extra))


def real_server_package(name: str) -> tuple[str, str, tuple[str, ...]]:
    """The registry type (``npm`` or ``pypi``), package name and arguments of a pinned real
    server: what a registry entry for it lists (``package_entries.pinned_entries``)."""
    if name in _NPM_SERVERS:
        return ("npm", *_NPM_SERVERS[name])
    if name in _PY_SERVERS:
        return ("pypi", *_PY_SERVERS[name])
    raise ValueError(f"unknown real server {name!r}; expected one of {REAL_STDIO_SERVERS}")


def real_server_argv(name: str) -> list[str] | None:
    server = real_server(name)
    return None if server is None else list(server.argv)


@contextlib.contextmanager
def serve_http_fixture(kind: str) -> Iterator[str]:
    """Run a loopback HTTP fixture of ``kind``; yields the URL a client should be given."""
    with serve_http(kind) as fixture:
        yield fixture.url


class _ListeningProcess:
    """A child process that reports ``MCPCOST_LISTENING <port>`` on stderr; its stderr is kept."""

    def __init__(self, argv: list[str], env: Mapping[str, str], cwd: Path | None) -> None:
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=dict(env),
            cwd=cwd,
            start_new_session=True,
        )
        self.stderr_lines: list[str] = []
        self._port: int | None = None
        self._ready = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            self.stderr_lines.append(line)
            if line.startswith("MCPCOST_LISTENING ") and self._port is None:
                self._port = int(line.split()[1])
                self._ready.set()
        self._ready.set()

    def wait_port(self, timeout: float) -> int:
        self._ready.wait(timeout)
        if self._port is None:
            self.stop()
            tail = "\n".join(self.stderr_lines[-20:])
            raise RuntimeError(f"server did not report a port within {timeout}s:\n{tail}")
        return self._port

    def stop(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=5)
        # Make sure nothing of the group survives even if the leader already exited.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self._reader.join(timeout=5)
        if self.proc.stderr is not None:
            self.proc.stderr.close()


def _base_env() -> dict[str, str]:
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")
    return {k: os.environ[k] for k in keep if k in os.environ}


@contextlib.contextmanager
def _serve_process(
    argv: list[str], env: Mapping[str, str], path: str, cwd: Path | None = None
) -> Iterator[str]:
    server = _ListeningProcess(argv, env, cwd)
    try:
        port = server.wait_port(timeout=30)
        yield f"http://127.0.0.1:{port}{path}"
    finally:
        server.stop()


@contextlib.contextmanager
def serve_everything(mode: str) -> Iterator[str]:
    """``server-everything`` in ``sse`` or ``streamableHttp`` mode on 127.0.0.1; yields its URL.

    Raises ``LookupError`` (with the reason) when node or the package is not installed.
    """
    if mode not in EVERYTHING_HTTP_MODES:
        raise ValueError(f"unknown mode {mode!r}; expected one of {EVERYTHING_HTTP_MODES}")
    missing = real_server_missing("everything")
    if missing is not None:
        raise LookupError(missing)
    node = node_binary()
    assert node is not None
    entry = _npm_entry(_NPM_SERVERS["everything"][0])
    env = {**_base_env(), "PORT": "0"}
    argv = [node, "--require", str(LOOPBACK_PRELOAD), str(entry), mode]
    path = "/sse" if mode == "sse" else "/mcp"
    with _serve_process(argv, env, path) as url:
        yield url


@contextlib.contextmanager
def serve_sdk_http(era: str) -> Iterator[str]:
    """The ``mcp``-SDK-built server of ``era`` over Streamable HTTP on 127.0.0.1; yields its URL."""
    if era not in SDK_ERAS:
        raise ValueError(f"unknown era {era!r}; expected one of {SDK_ERAS}")
    argv = [sys.executable, str(SDK_SERVER_SCRIPT), "--era", era, "--transport", "http"]
    with _serve_process(argv, _base_env(), "/mcp") as url:
        yield url


def wait_gone(pid: int, timeout: float) -> bool:
    """True once ``pid`` no longer exists (or is a zombie), polling up to ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        if not pid_alive(pid):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)


def pid_alive(pid: int) -> bool:
    """Whether ``pid`` is a live (non-zombie) process."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state not in ("Z", "X")


@contextlib.contextmanager
def serve_loopback_registry(
    remotes: int,
    *,
    auth_walls: int = 0,
    gone: int = 0,
    packages: Sequence[Mapping[str, Any]] = (),
    delay_ms: int = 0,
) -> Iterator[str]:
    """A loopback MCP registry of ``remotes`` entries whose endpoints the same process serves
    (``loopback_registry.py``), then the registry items ``packages`` as given (package entries:
    ``package_entries.pinned_entries``); yields the registry's base URL."""
    import json
    import tempfile

    from tests.helpers.paths import ROOT

    argv = [
        sys.executable,
        "-m",
        "tests.servers.loopback_registry",
        "--remotes",
        str(remotes),
        "--auth-walls",
        str(auth_walls),
        "--gone",
        str(gone),
        "--delay-ms",
        str(delay_ms),
    ]
    env = {**_base_env(), "PYTHONPATH": str(ROOT)}
    with tempfile.TemporaryDirectory(prefix="mcpcost-registry-") as tmp:
        if packages:
            listing = Path(tmp) / "packages.json"
            listing.write_text(json.dumps(list(packages)), encoding="utf-8")
            argv += ["--packages", str(listing)]
        with _serve_process(argv, env, "", cwd=ROOT) as url:
            yield url
