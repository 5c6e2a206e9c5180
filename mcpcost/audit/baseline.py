"""Baselines: an earlier ``audit --json`` report, as the diff reads it.

``parse_baseline(obj)`` shape-checks a parsed report (ours or the reference project's shape) and
raises ``InputError`` naming the first problem; it runs before any server is launched.
``baseline_of_report(report)`` takes the same baseline straight from a report value. Each server
keeps its ``launch`` (``DeclaredLaunch``) when the report records one, so the increase gate can
tell an unknown the change did not touch; a report without it still reads, its unknowns then
cannot be shown untouched.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcpcost.audit.report_model import REPORT_VERSION, AuditReport, ServerStatus, server_status
from mcpcost.configs.config_file import ClientName
from mcpcost.core.spec import DeclaredLaunch, TransportName
from mcpcost.errors import InputError


@dataclass(frozen=True, slots=True, kw_only=True)
class BaselineServer:
    name: str
    status: ServerStatus | None  # None: the file names no status this version knows
    tokens: int | None
    canonical_sha256: str | None = None
    # the launch as its config wrote it; None in a report that does not record it (the
    # reference project's, or ours before ``launch``)
    declared: DeclaredLaunch | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class BaselineConfig:
    client: ClientName
    source: str
    total_tokens: int
    servers: tuple[BaselineServer, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Baseline:
    methodology_version: str
    encoding: str
    generated_at: str
    context_window: int | None
    configs: tuple[BaselineConfig, ...]


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _declared(raw: Any, where: str) -> DeclaredLaunch | None:
    """A server's ``launch`` object (``DeclaredLaunch``), None when the report has none."""
    if raw is None:
        return None
    bad = f"baseline: {where}.launch must be an object of a launch's transport, strings and names"
    if not isinstance(raw, dict):
        raise InputError(bad)
    try:
        transport = TransportName(str(raw.get("transport")))
    except ValueError:
        raise InputError(bad) from None
    texts = [raw.get(k) for k in ("command", "cwd", "url", "envFile")]
    lists = [raw.get(k, []) for k in ("args", "envNames", "headerNames")]
    if not all(t is None or isinstance(t, str) for t in texts) or not all(map(_strings, lists)):
        raise InputError(bad)
    command, cwd, url, env_file = texts
    args, env_names, header_names = (tuple(v) for v in lists)
    return DeclaredLaunch(
        transport=transport,
        command=command,
        args=args,
        cwd=cwd,
        url=url,
        env_names=env_names,
        header_names=header_names,
        env_file=env_file,
    )


def _servers(raw: Any, where: str) -> list[BaselineServer]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise InputError(f"baseline: {where} must be an array")
    out = []
    for i, s in enumerate(raw):
        if not isinstance(s, dict) or not isinstance(s.get("name"), str):
            raise InputError(f"baseline: {where}[{i}] must be an object with a string name")
        tokens = s.get("tokens")
        if tokens is not None and not _number(tokens):
            raise InputError(f"baseline: {where}[{i}].tokens must be a number or null")
        sha = s.get("canonicalSha256")
        status = s.get("status")
        out.append(
            BaselineServer(
                name=s["name"],
                status=server_status(status) if isinstance(status, str) else None,
                tokens=int(tokens) if tokens is not None else None,
                canonical_sha256=sha if isinstance(sha, str) else None,
                declared=_declared(s.get("launch"), f"{where}[{i}]"),
            )
        )
    return out


def parse_baseline(obj: Any) -> Baseline:
    """A parsed ``audit --json`` report as a baseline; InputError on the wrong shape."""
    if not isinstance(obj, dict):
        raise InputError("baseline: not an audit report (expected a JSON object)")
    version = obj.get("reportVersion", REPORT_VERSION)  # absent: ours before 1, or the reference's
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise InputError("baseline: reportVersion must be a whole number >= 1")
    if version > REPORT_VERSION:
        raise InputError(
            f"baseline: reportVersion {version} is newer than this mcpcost reads "
            f"({REPORT_VERSION}); re-record the baseline with this version or upgrade"
        )
    for key in ("methodologyVersion", "encoding"):
        if not isinstance(obj.get(key), str):
            raise InputError(f"baseline: {key} must be a string (is this an audit --json report?)")
    configs = obj.get("configs")
    if not isinstance(configs, list):
        raise InputError("baseline: configs must be an array (is this an audit --json report?)")
    parsed = []
    for i, c in enumerate(configs):
        if not isinstance(c, dict) or not isinstance(c.get("source"), str):
            raise InputError(f"baseline: configs[{i}] must be an object with a string source")
        servers = _servers(c.get("servers"), f"configs[{i}].servers")
        skipped = _servers(c.get("skipped"), f"configs[{i}].skipped")
        total = c.get("totalTokens")
        if total is not None and not _number(total):
            raise InputError(f"baseline: configs[{i}].totalTokens must be a number")
        measured_total = sum(s.tokens or 0 for s in servers)
        client = c.get("client")
        parsed.append(
            BaselineConfig(
                client=ClientName(client if isinstance(client, str) else "unknown"),
                source=c["source"],
                total_tokens=int(total) if total is not None else measured_total,
                # a skipped server is present with no number, whatever the file says
                servers=tuple(servers)
                + tuple(
                    BaselineServer(name=s.name, status=s.status, tokens=None, declared=s.declared)
                    for s in skipped
                ),
            )
        )
    window = obj.get("contextWindow")
    generated = obj.get("generatedAt")
    return Baseline(
        methodology_version=obj["methodologyVersion"],
        encoding=obj["encoding"],
        generated_at=generated if isinstance(generated, str) else "unknown",
        context_window=int(window)
        if isinstance(window, int | float) and _number(window) and window > 0
        else None,
        configs=tuple(parsed),
    )


def baseline_of_report(report: AuditReport) -> Baseline:
    """``report`` as ``parse_baseline`` reads it from the report's own ``--json`` rendering."""
    return Baseline(
        methodology_version=report.methodology_version,
        encoding=report.encoding,
        generated_at=report.generated_at,
        context_window=report.context_window if report.context_window > 0 else None,
        configs=tuple(
            BaselineConfig(
                client=c.client,
                source=c.source,
                total_tokens=c.total_tokens,
                servers=tuple(
                    BaselineServer(
                        name=s.name,
                        status=s.status,
                        tokens=s.tokens,
                        canonical_sha256=s.canonical_sha256,
                        declared=s.declared,
                    )
                    for s in c.servers
                )
                + tuple(
                    BaselineServer(name=s.name, status=s.status, tokens=None, declared=s.declared)
                    for s in c.skipped
                ),
            )
            for c in report.configs
        ),
    )
