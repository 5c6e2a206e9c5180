"""Baseline diff: what changed between an earlier ``audit --json`` report and this one.

* ``parse_baseline(obj) -> Baseline`` shape-checks a parsed report (ours or the reference
  project's, §6.5 shape) and raises ``InputError`` naming the first problem. It runs before any
  server is launched.
* ``diff_reports(baseline, report) -> AuditDiff`` is pure.

Config pairing, strongest evidence first: the exact ``source``; then the same path spelled
differently (``./.mcp.json``, ``.mcp.json`` and ``/abs/repo/.mcp.json`` pair when exactly one
candidate matches by trailing path components); then ``sole-config`` when each side has exactly
one config left (the CI case: a baseline from a different machine). Unpaired configs in this run
are ``unmatched``; unpaired baseline configs are ``droppedConfigs`` (a config that disappeared is
not a config that got cheaper).

Per-server kinds (a server with no number still counts as present): ``added``, ``removed``,
``changed``, ``unchanged``, ``unmeasured-now``, ``unmeasured-before``, ``unmeasured-both``.
A config's diff is ``exact`` only when every server has a number on each side it appears on:
a server that stopped measuring, started measuring, was added unmeasurable or was never measured
makes it inexact, so a server failing is never reported as a saving.

A caller that knows a config held no live server on one side (the Action reads both commits from
git: the file is absent there, or declares none) says so with ``empty_before`` / ``empty_now``
(sources). Such a config is compared with an explicit empty one (total 0) instead of being
``unmatched`` or dropped: a config added by the change grows from 0, one it deletes or empties
shrinks to 0, and both deltas are established.
"""

from __future__ import annotations

import posixpath
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from mcpcost.audit.report import REPORT_VERSION, AuditReport, ConfigResult
from mcpcost.errors import InputError


@dataclass(frozen=True, kw_only=True)
class BaselineServer:
    name: str
    status: str
    tokens: int | None
    canonical_sha256: str | None = None


@dataclass(frozen=True, kw_only=True)
class BaselineConfig:
    client: str
    source: str
    total_tokens: int
    servers: tuple[BaselineServer, ...]


@dataclass(frozen=True, kw_only=True)
class Baseline:
    methodology_version: str
    encoding: str
    generated_at: str
    context_window: int | None
    configs: tuple[BaselineConfig, ...]


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


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
                status=status if isinstance(status, str) else "unknown",
                tokens=int(tokens) if tokens is not None else None,
                canonical_sha256=sha if isinstance(sha, str) else None,
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
                client=client if isinstance(client, str) else "unknown",
                source=c["source"],
                total_tokens=int(total) if total is not None else measured_total,
                # a skipped server is present with no number, whatever the file says
                servers=tuple(servers)
                + tuple(BaselineServer(name=s.name, status=s.status, tokens=None) for s in skipped),
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


# --------------------------------------------------------------------------- diff values


@dataclass(frozen=True, kw_only=True)
class ServerDiff:
    name: str
    kind: str
    before: int | None
    after: int | None
    delta: int | None
    before_status: str | None
    after_status: str | None
    note: str | None = None


@dataclass(frozen=True, kw_only=True)
class ConfigDiff:
    client: str
    source: str
    baseline_source: str | None
    matched_by: str  # exact | path | sole-config | unmatched
    before_total: int | None
    after_total: int
    delta: int | None
    before_share: float | None
    after_share: float
    exact: bool
    understated_by: int
    overstated_by: int
    servers: tuple[ServerDiff, ...]

    @property
    def not_exact_servers(self) -> tuple[ServerDiff, ...]:
        return tuple(s for s in self.servers if s.kind in INEXACT_KINDS or _added_blind(s))


INEXACT_KINDS = frozenset({"unmeasured-now", "unmeasured-before", "unmeasured-both"})


def _added_blind(s: ServerDiff) -> bool:
    return s.kind == "added" and s.after is None


@dataclass(frozen=True, kw_only=True)
class DroppedConfig:
    client: str
    source: str
    total_tokens: int


@dataclass(frozen=True, kw_only=True)
class AuditDiff:
    baseline_generated_at: str
    baseline_methodology_version: str
    baseline_encoding: str
    comparable: bool
    dropped_configs: tuple[DroppedConfig, ...]
    warnings: tuple[str, ...]
    configs: tuple[ConfigDiff, ...]
    worst_increase: tuple[str, int] | None  # (source, delta): never a sum across configs


def _norm(path: str) -> str:
    p = posixpath.normpath(path.replace("\\", "/"))
    return "" if p == "." else p


def _is_abs(p: str) -> bool:
    return p.startswith("/") or (len(p) > 2 and p[1] == ":" and p[2] == "/")


def _same_path(a: str, b: str) -> bool:
    na, nb = _norm(a), _norm(b)
    if not na or not nb:
        return False
    if na == nb:
        return True
    a_abs, b_abs = _is_abs(na), _is_abs(nb)
    if a_abs == b_abs:
        return False
    absolute, relative = (na, nb) if a_abs else (nb, na)
    return relative != ".." and not relative.startswith("../") and absolute.endswith("/" + relative)


def pair_configs(
    baseline: tuple[BaselineConfig, ...], configs: tuple[ConfigResult, ...]
) -> tuple[list[tuple[ConfigResult, BaselineConfig | None, str]], list[BaselineConfig]]:
    """(config, its baseline or None, matchedBy) for each config, and the unpaired baseline."""
    left = list(baseline)
    paired: dict[int, tuple[BaselineConfig, str]] = {}
    for i, c in enumerate(configs):
        exact = [b for b in left if b.source == c.source and b.client == c.client] or [
            b for b in left if b.source == c.source
        ]
        if exact:
            paired[i] = (exact[0], "exact")
            left.remove(exact[0])
    for i, c in enumerate(configs):
        if i in paired:
            continue
        same = [b for b in left if _same_path(b.source, c.source)]
        if len(same) == 1:
            paired[i] = (same[0], "path")
            left.remove(same[0])
    unpaired = [i for i in range(len(configs)) if i not in paired]
    if len(unpaired) == 1 and len(left) == 1 and len(configs) == 1 and len(baseline) == 1:
        paired[unpaired[0]] = (left.pop(), "sole-config")
    out: list[tuple[ConfigResult, BaselineConfig | None, str]] = []
    for i, c in enumerate(configs):
        if i in paired:
            out.append((c, paired[i][0], paired[i][1]))
        else:
            out.append((c, None, "unmatched"))
    return out, left


def _server_diffs(before: BaselineConfig, after: ConfigResult) -> list[ServerDiff]:
    b = {s.name: s for s in before.servers}
    a = {s.name: s for s in (*after.servers, *after.skipped)}
    out = []
    for name in sorted(set(b) | set(a)):
        bs, as_ = b.get(name), a.get(name)
        bt = bs.tokens if bs else None
        at = as_.tokens if as_ else None
        common: dict[str, Any] = {
            "name": name,
            "before": bt,
            "after": at,
            "before_status": bs.status if bs else None,
            "after_status": as_.status if as_ else None,
        }
        if bs is None and as_ is not None:
            if at is None:
                out.append(ServerDiff(kind="added", delta=None,
                                      note=f"added, and could not be measured ({as_.status})",
                                      **common))  # fmt: skip
            else:
                out.append(ServerDiff(kind="added", delta=at, **common))
        elif as_ is None and bs is not None:
            note = None if bt is not None else "removed; it was never measured"
            out.append(ServerDiff(kind="removed", delta=-bt if bt is not None else None,
                                  note=note, **common))  # fmt: skip
        elif bt is not None and at is not None:
            kind = "unchanged" if at == bt else "changed"
            out.append(ServerDiff(kind=kind, delta=at - bt, **common))
        elif bt is not None:
            out.append(ServerDiff(kind="unmeasured-now", delta=None,
                                  note="its cost is missing from the total, not gone from the config",
                                  **common))  # fmt: skip
        elif at is not None:
            out.append(ServerDiff(kind="unmeasured-before", delta=None,
                                  note="the baseline total was missing its cost", **common))  # fmt: skip
        else:
            out.append(ServerDiff(kind="unmeasured-both", delta=None,
                                  note="not measured in either run: it hides an unknown cost",
                                  **common))  # fmt: skip
    return sorted(out, key=lambda s: (-abs(s.delta or 0), s.name))


def _empty_result(client: str, source: str) -> ConfigResult:
    """A config declaring no live server: what a file that is absent or empty costs."""
    return ConfigResult(client=client, source=source, scope="project", total_tokens=0,
                        tool_count=0, server_count=0, context_share=0.0, servers=(), skipped=(),
                        disabled=(), heaviest_tools=(), trim_advice=None)  # fmt: skip


def _with_empty_before(
    configs: tuple[BaselineConfig, ...], report: AuditReport, empty_before: Collection[str]
) -> tuple[BaselineConfig, ...]:
    """The baseline plus an explicit empty config for each known-empty source of this run."""
    have = {b.source for b in configs}
    extra = tuple(
        BaselineConfig(client=c.client, source=c.source, total_tokens=0, servers=())
        for c in report.configs
        if c.source in empty_before and c.source not in have
    )
    return configs + extra


def _emptied(base: BaselineConfig, window: int) -> ConfigDiff:
    """A baseline config known to hold no live server now: every server removed, total 0."""
    servers = _server_diffs(base, _empty_result(base.client, base.source))
    return ConfigDiff(
        client=base.client, source=base.source, baseline_source=base.source, matched_by="exact",
        before_total=base.total_tokens, after_total=0, delta=-base.total_tokens,
        before_share=base.total_tokens / window, after_share=0.0,
        exact=not any(s.kind in INEXACT_KINDS for s in servers),
        understated_by=0, overstated_by=0, servers=tuple(servers),
    )  # fmt: skip


def diff_reports(
    baseline: Baseline,
    report: AuditReport,
    *,
    empty_before: Collection[str] = (),
    empty_now: Collection[str] = (),
) -> AuditDiff:
    """Compare this run to a baseline, config by config. Pure.

    ``empty_before``: sources of this run known to hold no live server in the baseline's state
    (compared with an empty config, total 0). ``empty_now``: baseline sources known to hold no
    live server now (every server removed, total 0) rather than not found.
    """
    warnings: list[str] = []
    comparable = (
        baseline.methodology_version == report.methodology_version
        and baseline.encoding == report.encoding
    )
    if baseline.methodology_version != report.methodology_version:
        warnings.append(
            f"methodology changed: baseline {baseline.methodology_version}, "
            f"now {report.methodology_version}; the numbers are not comparable"
        )
    if baseline.encoding != report.encoding:
        warnings.append(
            f"encoding changed: baseline {baseline.encoding}, now {report.encoding}; "
            "the numbers are not comparable"
        )
    if baseline.context_window is not None and baseline.context_window != report.context_window:
        warnings.append(
            f"context window changed ({baseline.context_window:,} → {report.context_window:,}): "
            "shares are not comparable, token counts are"
        )
    pairs, unpaired = pair_configs(
        _with_empty_before(baseline.configs, report, empty_before), report.configs
    )
    dropped = [d for d in unpaired if d.source not in empty_now]
    diffs: list[ConfigDiff] = []
    for config, base, matched_by in pairs:
        after_share = config.total_tokens / report.context_window
        if base is None:
            diffs.append(ConfigDiff(
                client=config.client, source=config.source, baseline_source=None,
                matched_by="unmatched", before_total=None, after_total=config.total_tokens,
                delta=None, before_share=None, after_share=after_share, exact=False,
                understated_by=0, overstated_by=0, servers=(),
            ))  # fmt: skip
            continue
        if matched_by == "sole-config":
            warnings.append(
                f"paired {config.source} with the baseline's {base.source}: "
                "the only config on each side"
            )
        servers = _server_diffs(base, config)
        exact = not any(s.kind in INEXACT_KINDS or _added_blind(s) for s in servers)
        window = baseline.context_window or report.context_window
        diffs.append(ConfigDiff(
            client=config.client, source=config.source, baseline_source=base.source,
            matched_by=matched_by, before_total=base.total_tokens,
            after_total=config.total_tokens, delta=config.total_tokens - base.total_tokens,
            before_share=base.total_tokens / window, after_share=after_share, exact=exact,
            understated_by=sum(s.before or 0 for s in servers if s.kind == "unmeasured-now"),
            overstated_by=sum(s.after or 0 for s in servers if s.kind == "unmeasured-before"),
            servers=tuple(servers),
        ))  # fmt: skip
    window = baseline.context_window or report.context_window
    diffs += [_emptied(d, window) for d in unpaired if d.source in empty_now]
    for d in dropped:
        warnings.append(
            f"{d.source} is in the baseline and was not found in this run: a config that "
            "disappeared is not a config that got cheaper"
        )
    increases = [(d.source, d.delta) for d in diffs if d.delta is not None]
    worst = max(increases, key=lambda x: x[1]) if increases else None
    return AuditDiff(
        baseline_generated_at=baseline.generated_at,
        baseline_methodology_version=baseline.methodology_version,
        baseline_encoding=baseline.encoding,
        comparable=comparable,
        dropped_configs=tuple(
            DroppedConfig(client=d.client, source=d.source, total_tokens=d.total_tokens)
            for d in dropped
        ),
        warnings=tuple(warnings),
        configs=tuple(diffs),
        worst_increase=worst if worst is not None and worst[1] > 0 else None,
    )
