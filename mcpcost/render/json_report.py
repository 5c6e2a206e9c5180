"""``audit --json``: the report as one JSON object (schema: ``spec/audit-report.schema.json``).

``report_to_json(report, diff=None, gates=None) -> dict`` follows the reference report shape
field for field (methodologyVersion, encoding, generatedAt, contextWindow, configs[...],
emptyConfigs, budget, claudeDivergence, diff, increaseGate, problems) and adds:
``reportVersion`` (the shape's version, ``REPORT_VERSION``), ``methodologyUrl``, ``mcpcostVersion``; per server ``sessionStart``, ``alwaysLoad``, ``headerNames``, ``unresolved``;
per config ``scope``, ``disabled`` and ``deferral.alwaysLoad``; report-level ``unresolved``,
``envVariants`` and ``gates``; ``sessions`` (one per client session in the project: the files it
loads, each server with its ``source``, the entries another file's entry of the same name
overrides, the session's total and its deferral verdict) and, in ``budget``, ``worstSession`` and
per-session ``sessions``. Env and header values never appear (names only); commands and
URLs are the masked display forms.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcpcost.audit.gates import BudgetFit, BudgetVerdict, GateResult, IncreaseGate
from mcpcost.audit.report_model import (
    REPORT_VERSION,
    AuditReport,
    ClientSession,
    ConfigResult,
    ServerResult,
)
from mcpcost.core.jsonvalue import stringify_pretty
from mcpcost.core.model import METHODOLOGY_URL

if TYPE_CHECKING:  # the diff module loads only with a baseline, which is when a diff exists
    from mcpcost.audit.diff import AuditDiff, ConfigDiff, ServerDiff


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def _fields(obj: object, *names: str) -> dict[str, Any]:
    """The named attributes of ``obj`` under their camelCase JSON keys, in the order given."""
    return {_camel(name): getattr(obj, name) for name in names}


def _server(s: ServerResult, claude: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"name": s.name, "transport": s.transport}
    if s.command is not None:
        out["command"] = s.command
    if s.url is not None:
        out["url"] = s.url
    out.update(
        envVarNames=list(s.env_var_names),
        headerNames=list(s.header_names),
        status=s.status,
        tokens=s.tokens,
        toolCount=s.tool_count,
        share=s.share,
        canonicalSha256=s.canonical_sha256,
    )
    if claude:
        out["claudeTokens"] = s.anthropic_tokens
    if s.notes is not None:
        out["notes"] = s.notes
    ss = s.session_start
    out["sessionStart"] = (
        {
            "toolNameTokens": ss.tool_name_tokens,
            "instructionsTokens": ss.instructions_tokens,
            "total": ss.total,
            "isFloor": ss.is_floor,
        }
        if ss is not None
        else None
    )
    out["alwaysLoad"] = s.always_load
    out["unresolved"] = list(s.unresolved)
    if s.config_notes:
        out["configNotes"] = list(s.config_notes)
    if s.isolation is not None:
        out["isolation"] = s.isolation.to_dict()
    if s.authorization is not None:
        out["authorization"] = s.authorization
    return out


def _config(c: ConfigResult, claude: bool) -> dict[str, Any]:
    return {
        "client": c.client,
        "source": c.source,
        "scope": c.scope,
        "totalTokens": c.total_tokens,
        "toolCount": c.tool_count,
        "serverCount": c.server_count,
        "contextShare": c.context_share,
        "servers": [_server(s, claude) for s in c.servers],
        "skipped": [_server(s, claude) for s in c.skipped],
        "disabled": list(c.disabled),
        "heaviestTools": [_fields(h, "server", "tool", "tokens") for h in c.heaviest_tools],
        "trimAdvice": _trim(c),
        "deferral": c.deferral.to_dict() if c.deferral else None,
        **({"disabledReasons": dict(c.disabled_reasons)} if c.disabled_reasons else {}),
    }


def _trim(c: ConfigResult | ClientSession) -> dict[str, Any] | None:
    trim = c.trim_advice
    if trim is None:
        return None
    return {
        "tools": [_fields(h, "server", "tool", "tokens") for h in trim.tools],
        "recoverableTokens": trim.recoverable_tokens,
        "recoverableShare": trim.recoverable_share,
    }


def session_to_json(s: ClientSession, claude: bool) -> dict[str, Any]:
    return {
        **_fields(s, "key", "client", "label"),
        "sources": list(s.sources),
        **_fields(s, "total_tokens", "tool_count", "server_count", "context_share"),
        "complete": s.complete,
        "servers": [{**_server(e.server, claude), "source": e.source} for e in s.servers],
        "skipped": [{**_server(e.server, claude), "source": e.source} for e in s.skipped],
        "overridden": [_fields(o, "name", "source", "by", "why") for o in s.overridden],
        "precedence": {
            "scopes": list(s.precedence),
            "documented": s.precedence_documented,
            "source": s.precedence_source,
        },
        "heaviestTools": [_fields(h, "server", "tool", "tokens") for h in s.heaviest_tools],
        "trimAdvice": _trim(s),
        "deferral": s.deferral.to_dict() if s.deferral else None,
    }


def _fit(fit: BudgetFit) -> dict[str, Any]:
    return {
        "overBy": fit.over_by,
        "drop": [_fields(d, "name", "tokens", "remaining") for d in fit.drop],
        **_fields(fit, "kept_count", "kept_tokens", "feasible"),
    }


def budget_to_json(b: BudgetVerdict) -> dict[str, Any]:
    out = _fields(b, "limit", "worst_total", "worst_source", "over", "passed")
    out["unestablished"] = [{"source": s, "servers": list(n)} for s, n in b.unestablished]
    out["reasons"] = list(b.reasons)
    if b.fit is not None:
        out["fit"] = _fit(b.fit)
    out["worstSession"] = b.worst_session
    out["sessions"] = [
        {
            **_fields(s, "key", "label", "total", "over"),
            "fit": _fit(s.fit) if s.fit is not None else None,
            "unmeasured": list(s.unmeasured),
            "sources": list(s.sources),
        }
        for s in b.sessions
    ]
    return out


def _server_diff(s: ServerDiff) -> dict[str, Any]:
    out = _fields(s, "name", "kind", "before", "after", "delta", "before_status", "after_status")
    if s.note is not None:
        out["note"] = s.note
    return out


def _config_diff(c: ConfigDiff) -> dict[str, Any]:
    out = _fields(
        c,
        "client",
        "source",
        "baseline_source",
        "matched_by",
        "before_total",
        "after_total",
        "delta",
        "before_share",
        "after_share",
        "exact",
        "understated_by",
        "overstated_by",
    )
    out["servers"] = [_server_diff(s) for s in c.servers]
    return out


def diff_to_json(d: AuditDiff) -> dict[str, Any]:
    return {
        "baselineGeneratedAt": d.baseline_generated_at,
        "baselineMethodologyVersion": d.baseline_methodology_version,
        "baselineEncoding": d.baseline_encoding,
        "comparable": d.comparable,
        "droppedConfigs": [
            _fields(x, "client", "source", "total_tokens") for x in d.dropped_configs
        ],
        "warnings": list(d.warnings),
        "configs": [_config_diff(c) for c in d.configs],
        "worstIncrease": {"source": d.worst_increase[0], "delta": d.worst_increase[1]}
        if d.worst_increase
        else None,
    }


def increase_to_json(g: IncreaseGate) -> dict[str, Any]:
    out = _fields(g, "limit", "limit_percent")
    out["pass"] = g.passed  # the reference's key
    out["increase"] = g.increase
    out["reasons"] = list(g.reasons)
    return out


def report_to_json(
    report: AuditReport, diff: AuditDiff | None = None, gates: GateResult | None = None
) -> dict[str, Any]:
    """The whole report (and its diff and gates, when present) as a JSON-ready dict."""
    claude = report.anthropic_divergence is not None
    out: dict[str, Any] = {
        "reportVersion": REPORT_VERSION,
        "methodologyVersion": report.methodology_version,
        "methodologyUrl": METHODOLOGY_URL,
        "encoding": report.encoding,
        "generatedAt": report.generated_at,
        "contextWindow": report.context_window,
        "mcpcostVersion": report.mcpcost_version,
        "configs": [_config(c, claude) for c in report.configs],
        "sessions": [session_to_json(s, claude) for s in report.sessions],
        "emptyConfigs": [
            {
                "client": e.client,
                "source": e.source,
                "state": e.state,
                **({"allDisabled": list(e.all_disabled)} if e.all_disabled else {}),
                **({"error": e.error} if e.error else {}),
                **({"disabledReasons": dict(e.disabled_reasons)} if e.disabled_reasons else {}),
            }
            for e in report.empty_configs
        ],
        "unresolved": [
            {
                "client": u.client,
                "source": u.source,
                "name": u.name,
                "references": list(u.references),
            }
            for u in report.unresolved
        ],
        "envVariants": [
            {"launch": v.launch, "entries": [{"source": s, "name": n} for s, n in v.entries]}
            for v in report.env_variants
        ],
    }
    if gates is not None and gates.budget is not None:
        out["budget"] = budget_to_json(gates.budget)
    if report.anthropic_divergence is not None:
        out["claudeDivergence"] = {
            "model": report.anthropic_divergence.model,
            "measuredAt": report.anthropic_divergence.measured_at,
        }
    if diff is not None:
        out["diff"] = diff_to_json(diff)
    if gates is not None and gates.increase is not None:
        out["increaseGate"] = increase_to_json(gates.increase)
    if gates is not None:
        out["gates"] = {"passed": gates.passed, "reasons": list(gates.reasons)}
    out["problems"] = list(report.problems)
    return out


def render_json(
    report: AuditReport, diff: AuditDiff | None = None, gates: GateResult | None = None
) -> str:
    """The JSON text written to stdout (two-space indentation, trailing newline)."""
    return stringify_pretty(report_to_json(report, diff, gates)) + "\n"
