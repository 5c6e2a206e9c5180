"""The one seam between the Action and the audit/measuring engine.

Config parsing is the audit engine's ``parse_project_config``; measuring one server is the
measuring layer's ``measure_server``. Until ``mcpcost.measuring`` is installed, a minimal stdio
fallback (initialize, tools/list pages, then ``core.measure.measure_tools``) stands in so the
Action still produces real numbers for local stdio servers; remote servers then come back
``not-yet-run`` with a note saying why.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

from mcpcost.audit.model import ConfigEntry, ConfigFile, ConfigState
from mcpcost.core.measure import measure_tools
from mcpcost.core.model import Measurement
from mcpcost.core.spec import ServerSpec
from mcpcost.core.status import Status

MeasureServer = Callable[[ServerSpec, float], Measurement]

_FALLBACK_PATHS = (".mcp.json", ".cursor/mcp.json", ".vscode/mcp.json", ".roo/mcp.json")


def project_config_paths() -> tuple[str, ...]:
    """The repository-level config paths of every supported client (globs allowed)."""
    try:
        from mcpcost.audit.discovery import PROJECT_CONFIG_PATHS
    except ImportError:  # the audit engine is not installed in this build
        return _FALLBACK_PATHS
    return tuple(PROJECT_CONFIG_PATHS)


def parse_config(
    relative_path: str, text: str, *, environ: Mapping[str, str], workspace: str
) -> ConfigFile:
    """One config read from a git blob, parsed by the audit engine."""
    try:
        from mcpcost.audit.clients import ParseContext
        from mcpcost.audit.discovery import parse_project_config
    except ImportError:
        return _fallback_parse(relative_path, text)
    context = ParseContext(
        environ=dict(environ),
        home=environ.get("HOME", "/github/home"),
        cwd=workspace,
        project_key=workspace,
    )
    return parse_project_config(relative_path, text, context)


def default_measure_server() -> MeasureServer:
    try:
        from mcpcost.measuring import measure_server
    except ImportError:
        return _fallback_measure

    def run(spec: ServerSpec, timeout_s: float) -> Measurement:
        measured: Measurement = measure_server(spec, timeout_s=timeout_s)
        return measured

    return run


def launchable(configs: Iterable[ConfigFile]) -> list[ConfigEntry]:
    return [
        e
        for c in configs
        if c.state is ConfigState.OK
        for e in c.live_entries
        if e.spec is not None
    ]


def measure_entries(
    entries: Iterable[ConfigEntry], measure: MeasureServer, *, timeout_s: float, concurrency: int
) -> dict[str, Measurement]:
    """Every distinct launch measured once, keyed by ``ServerSpec.launch_key()``."""
    specs: dict[str, ServerSpec] = {}
    for e in entries:
        if e.spec is not None:
            specs.setdefault(e.spec.launch_key(), e.spec)

    def one(item: tuple[str, ServerSpec]) -> tuple[str, Measurement]:
        key, spec = item
        try:
            return key, measure(spec, timeout_s)
        except Exception as exc:  # one broken server must not sink the run
            return key, _failed(
                spec, Status.STARTUP_FAILURE, f"{type(exc).__name__}: {exc}", timeout_s
            )

    with ThreadPoolExecutor(max_workers=max(1, min(concurrency, len(specs) or 1))) as pool:
        return dict(pool.map(one, specs.items()))


def _failed(spec: ServerSpec, status: Status, note: str, timeout_s: float) -> Measurement:
    return Measurement(
        status=status,
        server_name=spec.name,
        launch_command=spec.display(),
        measured_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z"),
        timeout_ms=int(timeout_s * 1000),
        notes=note,
        env_var_names=spec.env_names,
    )


# --- interim fallbacks (used only while the engine modules are absent) ----------------------


def _fallback_parse(relative_path: str, text: str) -> ConfigFile:
    try:
        data = json.loads(text)
    except ValueError as exc:
        return ConfigFile(
            client="explicit",
            source=relative_path,
            state=ConfigState.ERROR,
            error=f"not valid JSON: {exc}",
            scope="project",
        )
    block = data.get("mcpServers") or data.get("servers") if isinstance(data, dict) else None
    if not isinstance(block, dict) or not block:
        return ConfigFile(
            client="explicit",
            source=relative_path,
            state=ConfigState.DECLARES_NOTHING,
            scope="project",
        )
    lines = text.splitlines()
    entries = []
    for name, raw in block.items():
        line = next((i + 1 for i, ln in enumerate(lines) if f'"{name}"' in ln), None)
        spec: ServerSpec | None = None
        if isinstance(raw, dict) and isinstance(raw.get("command"), str):
            args = [a for a in raw.get("args", []) if isinstance(a, str)]
            env = {k: v for k, v in (raw.get("env") or {}).items() if isinstance(v, str)}
            spec = ServerSpec.stdio(name, [raw["command"], *args], env=env)
        elif isinstance(raw, dict) and isinstance(raw.get("url"), str):
            spec = ServerSpec.remote(name, raw["url"])
        entries.append(
            ConfigEntry(
                name=name,
                spec=spec,
                line=line,
                disabled=bool(isinstance(raw, dict) and raw.get("disabled")),
                problem=None if spec else "no command or url",
            )
        )
    return ConfigFile(
        client="explicit",
        source=relative_path,
        state=ConfigState.OK,
        entries=tuple(entries),
        scope="project",
    )


def _fallback_measure(spec: ServerSpec, timeout_s: float) -> Measurement:
    if spec.is_remote:
        return _failed(spec, Status.NOT_YET_RUN, "remote servers need mcpcost.measuring", timeout_s)
    env = {**os.environ, **dict(spec.env)}
    deadline = time.monotonic() + timeout_s
    try:
        proc = subprocess.Popen(
            list(spec.argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=spec.cwd,
        )
    except OSError as exc:
        return _failed(spec, Status.STARTUP_FAILURE, f"cannot start: {exc.strerror}", timeout_s)
    try:
        tools = _list_tools(proc, deadline)
    except TimeoutError:
        return _failed(spec, Status.TIMEOUT, f"no answer within {timeout_s:g} s", timeout_s)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return _failed(spec, Status.STARTUP_FAILURE, f"{type(exc).__name__}: {exc}", timeout_s)
    finally:
        proc.kill()
        proc.wait()
    m = measure_tools(tools)
    return Measurement(
        status=Status.MEASURED,
        server_name=spec.name,
        launch_command=spec.display(),
        measured_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z"),
        timeout_ms=int(timeout_s * 1000),
        total_tokens=m.total_tokens,
        tool_count=m.tool_count,
        tools=m.tools,
        canonical_sha256=m.canonical.sha256,
        raw_tools_capture=m.capture,
        env_var_names=spec.env_names,
    )


def _list_tools(proc: subprocess.Popen[bytes], deadline: float) -> list[Any]:
    assert proc.stdin is not None and proc.stdout is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    buffer = b""

    def send(msg: dict[str, Any]) -> None:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(msg).encode() + b"\n")
        proc.stdin.flush()

    def answer(msg_id: int) -> dict[str, Any]:
        nonlocal buffer
        while True:
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                if line.strip():
                    msg = json.loads(line)
                    if isinstance(msg, dict) and msg.get("id") == msg_id:
                        if "error" in msg:
                            raise ValueError(str(msg["error"].get("message")))
                        return dict(msg["result"])
            left = deadline - time.monotonic()
            if left <= 0 or not sel.select(left):
                raise TimeoutError
            chunk = os.read(proc.stdout.fileno(), 65536)  # type: ignore[union-attr]
            if not chunk:
                raise ValueError("the server closed its output")
            buffer += chunk

    send(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "mcpcost-action", "version": "0"},
            },
        }
    )
    answer(1)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    tools: list[Any] = []
    cursor: str | None = None
    for page in range(2, 1000):
        params = {"cursor": cursor} if cursor else {}
        send({"jsonrpc": "2.0", "id": page, "method": "tools/list", "params": params})
        result = answer(page)
        tools.extend(result.get("tools", []))
        cursor = result.get("nextCursor")
        if not cursor:
            break
    return tools
