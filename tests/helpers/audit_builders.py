"""Audit values built from fixed tool arrays: configs and entries, measurements (measured or
failed), an audit run over a table keyed by each launch's last argument, and a report's JSON round
trip as a baseline. The audit, diff, gate and renderer tests share them."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from mcpcost.audit.baseline import parse_baseline
from mcpcost.audit.compose import AuditInputs, AuditOptions, MeasureLaunch, run_audit
from mcpcost.configs.config_file import ConfigEntry, ConfigFile, ConfigState
from mcpcost.core.measure import measure_tools
from mcpcost.core.model import NOT_CAPTURED, Measurement
from mcpcost.core.spec import DeclaredLaunch, ServerSpec, TransportName
from mcpcost.core.status import Status
from mcpcost.render.json_report import report_to_json


def tools(prefix: str, count: int, words: int = 5) -> list[dict[str, Any]]:
    """A tools array whose size grows with ``count`` and ``words``."""
    return [
        {
            "name": f"{prefix}_{i}",
            "description": " ".join(f"word{j}" for j in range(words * (i + 1))),
            "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
        }
        for i in range(count)
    ]


def measured(
    spec: ServerSpec,
    array: list[Any],
    *,
    instructions: Any = NOT_CAPTURED,
    status: Status = Status.MEASURED,
) -> Measurement:
    m = measure_tools(array)
    return Measurement(
        status=status,
        server_name=spec.name,
        launch_command=spec.display(),
        measured_at="2026-11-30T00:00:00.000Z",
        timeout_ms=60000,
        total_tokens=m.total_tokens,
        tool_count=m.tool_count,
        tools=m.tools,
        canonical_sha256=m.canonical.sha256,
        raw_tools_capture=m.capture,
        server_instructions=instructions,
    )


def failed(
    spec: ServerSpec, status: Status = Status.STARTUP_FAILURE, notes: str = "boom"
) -> Measurement:
    return Measurement(
        status=status,
        server_name=spec.name,
        launch_command=spec.display(),
        measured_at="",
        timeout_ms=60000,
        notes=notes,
    )


Table = Mapping[str, list[Any] | Status]


def measure_from(
    table: Table, calls: list[str] | None = None
) -> Callable[[ServerSpec], Measurement]:
    """A measure function over fixed tool arrays, keyed by argv[-1] (or URL)."""

    def measure(spec: ServerSpec) -> Measurement:
        key = spec.url if spec.url is not None else spec.argv[-1]
        if calls is not None:
            calls.append(key)
        value = table[key]
        if isinstance(value, Status):
            return failed(spec, value)
        return measured(spec, value)

    return measure


def entry(
    name: str,
    key: str | None = None,
    *,
    env: Mapping[str, str] | None = None,
    always_load: bool = False,
    disabled: bool = False,
) -> ConfigEntry:
    spec = ServerSpec.stdio(name, ["server-bin", key or name], env=env)
    declared = DeclaredLaunch.written(
        TransportName.STDIO, command="server-bin", args=[key or name], env_names=list(env or {})
    )
    return ConfigEntry(
        name=name, spec=spec, always_load=always_load, disabled=disabled, declared=declared
    )


def config(client: str, source: str, *entries: ConfigEntry) -> ConfigFile:
    return ConfigFile(
        client=client, source=source, state=ConfigState.OK, entries=entries, scope="user"
    )


def audit_report(
    configs: list[ConfigFile],
    measure: MeasureLaunch,
    *,
    settings: Any = None,
    shell_environ: Mapping[str, str] | None = None,
    **options: Any,
) -> Any:
    """The report of ``compose.run_audit`` over these configs (``options``: ``AuditOptions``)."""
    inputs = AuditInputs(
        configs=tuple(configs), settings=settings, shell_environ=dict(shell_environ or {})
    )
    return run_audit(inputs, measure=measure, options=AuditOptions(**options)).report


def report_for(configs: list[ConfigFile], table: Table, **kw: Any) -> Any:
    return audit_report(
        configs,
        measure_from(table),
        concurrency=4,
        generated_at="2026-11-30T00:00:00.000Z",
        **kw,
    )


TABLE: dict[str, list[Any] | Status] = {
    "alpha": tools("a", 3, 8),
    "beta": tools("b", 1, 3),
    "gamma": tools("g", 6, 4),
    "dead": Status.STARTUP_FAILURE,
}


# the total tokens of each measurable server in TABLE
TABLE_TOKENS = {
    k: measure_tools(v).total_tokens for k, v in TABLE.items() if not isinstance(v, Status)
}


def as_baseline(report: Any) -> Any:
    """A report as it comes back from disk (JSON round trip)."""
    return parse_baseline(json.loads(json.dumps(report_to_json(report))))


def run(source: str, table: dict[str, Any], *names: str, client: str = "explicit") -> Any:
    return report_for([config(client, source, *(entry(n) for n in names))], table)
