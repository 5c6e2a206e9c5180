"""``audit --json``: the report as one JSON object (its schema, shipped as package data:
``mcpcost/schemas/audit-report.schema.json``).

``report_to_json(report, diff=None, gates=None) -> dict`` (``render_json`` its text, ``render``
the ``Renderer`` of ``OutputFormat.JSON``: every view, whatever the layout) follows the reference report shape
field for field (methodologyVersion, encoding, generatedAt, contextWindow, configs[...],
emptyConfigs, budget, claudeDivergence, diff, increaseGate, problems) and adds:
``reportVersion`` (the shape's version, ``REPORT_VERSION``), ``methodologyUrl``, ``mcpcostVersion``; per server ``sessionStart``, ``alwaysLoad``, ``headerNames``, ``unresolved``;
per config ``scope``, ``disabled`` and ``deferral.alwaysLoad``; report-level ``unresolved``,
``envVariants`` and ``gates``; ``sessions`` (one per client session in the project: the files it
loads, each server with its ``source``, the entries another file's entry of the same name
overrides, the session's total, its deferral verdict and its ``modelView``: what the client's
model gets, by the client lens) and, in ``budget``, ``worstSession`` and
per-session ``sessions``. Env and header values never appear (names only); commands and
URLs are the masked display forms.

Each record has one serialiser here that reads its fields by attribute, so a renamed or removed
field is a type error (``mypy --strict``), not a JSON key that goes missing at run time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcpcost.audit.gates import BudgetFit, BudgetVerdict, GateFinding, GateResult, IncreaseGate
from mcpcost.audit.model_view import ModelView
from mcpcost.audit.report_model import (
    REPORT_VERSION,
    AuditReport,
    ClientSession,
    ConfigResult,
    ServerResult,
    UnreadableConfig,
)
from mcpcost.core.jsonvalue import stringify_pretty
from mcpcost.core.model import METHODOLOGY_URL

if TYPE_CHECKING:  # the diff module loads only with a baseline, which is when a diff exists
    from mcpcost.audit.client_sessions import Overridden
    from mcpcost.audit.diff import AuditDiff, ConfigDiff, DroppedConfig, ServerDiff
    from mcpcost.audit.gates import BudgetFitStep, ClientSessionBudget
    from mcpcost.audit.report_model import HeaviestTool
    from mcpcost.core.measure import SessionStart
    from mcpcost.core.spec import DeclaredLaunch
    from mcpcost.render.report_layout import Layout


def _heaviest(h: HeaviestTool) -> dict[str, Any]:
    return {"server": h.server, "tool": h.tool, "tokens": h.tokens}


def _session_start(ss: SessionStart | None) -> dict[str, Any] | None:
    return None if ss is None else ss.to_dict()


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
    out["sessionStart"] = _session_start(s.session_start)
    out["alwaysLoad"] = s.always_load
    out["unresolved"] = list(s.unresolved)
    if s.config_notes:
        out["configNotes"] = list(s.config_notes)
    if s.isolation is not None:
        out["isolation"] = s.isolation.to_dict()
    if s.authorization is not None:
        out["authorization"] = s.authorization
    if s.declared is not None:
        out["launch"] = declared_to_json(s.declared)
    return out


def declared_to_json(d: DeclaredLaunch) -> dict[str, Any]:
    """The launch as the config writes it (``DeclaredLaunch``): names, never values."""
    return {
        "transport": d.transport,
        "command": d.command,
        "args": list(d.args),
        "cwd": d.cwd,
        "url": d.url,
        "envNames": list(d.env_names),
        "headerNames": list(d.header_names),
        "envFile": d.env_file,
    }


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
        "heaviestTools": [_heaviest(h) for h in c.heaviest_tools],
        "trimAdvice": _trim(c),
        "deferral": c.deferral.reference_dict() if c.deferral else None,
        **({"disabledReasons": dict(c.disabled_reasons)} if c.disabled_reasons else {}),
    }


def _trim(c: ConfigResult | ClientSession) -> dict[str, Any] | None:
    trim = c.trim_advice
    if trim is None:
        return None
    return {
        "tools": [_heaviest(h) for h in trim.tools],
        "recoverableTokens": trim.recoverable_tokens,
        "recoverableShare": trim.recoverable_share,
    }


def _overridden(o: Overridden) -> dict[str, Any]:
    return {"name": o.name, "source": o.source, "by": o.by, "why": o.why}


def model_view_to_json(v: ModelView | None) -> dict[str, Any] | None:
    """A session's one model: its load verdict, condition, evidence and every figure."""
    return None if v is None else v.to_dict()


def session_to_json(s: ClientSession, claude: bool) -> dict[str, Any]:
    return {
        "key": s.key,
        "client": s.client,
        "label": s.label,
        "sources": list(s.sources),
        "totalTokens": s.total_tokens,
        "toolCount": s.tool_count,
        "serverCount": s.server_count,
        "contextShare": s.context_share,
        "complete": s.complete,
        "servers": [{**_server(e.server, claude), "source": e.source} for e in s.servers],
        "skipped": [{**_server(e.server, claude), "source": e.source} for e in s.skipped],
        "overridden": [_overridden(o) for o in s.overridden],
        "precedence": {
            "scopes": list(s.precedence),
            "documented": s.precedence_documented,
            "source": s.precedence_source,
        },
        "heaviestTools": [_heaviest(h) for h in s.heaviest_tools],
        "trimAdvice": _trim(s),
        **_claude_estimate(s),
        "modelView": model_view_to_json(s.model_view),
    }


def _claude_estimate(s: ClientSession) -> dict[str, Any]:
    """Ours: the session's Claude tokens, exact or estimated, always labelled."""
    e = s.claude_estimate
    if e is None:
        return {}
    return {"claudeEstimate": {**e.to_dict(), "text": e.describe()}}


def _step(d: BudgetFitStep) -> dict[str, Any]:
    return {"name": d.name, "tokens": d.tokens, "remaining": d.remaining}


def _fit(fit: BudgetFit | None) -> dict[str, Any] | None:
    if fit is None:
        return None
    return {
        "overBy": fit.over_by,
        "drop": [_step(d) for d in fit.drop],
        "keptCount": fit.kept_count,
        "keptTokens": fit.kept_tokens,
        "feasible": fit.feasible,
    }


def _session_budget(s: ClientSessionBudget) -> dict[str, Any]:
    return {
        "key": s.key,
        "label": s.label,
        "total": s.total,
        "over": s.over,
        "fit": _fit(s.fit),
        "unmeasured": list(s.unmeasured),
        "sources": list(s.sources),
        "judged": s.judged,
        "basis": s.basis,
        "judgedTokens": s.cost,
        "deferredTokens": s.deferred,
    }


def budget_to_json(b: BudgetVerdict) -> dict[str, Any]:
    out: dict[str, Any] = {
        "limit": b.limit,
        "worstTotal": b.worst_total,
        "worstSource": b.worst_source,
        "over": b.over,
        "passed": b.passed,
        "unestablished": [{"source": s, "servers": list(n)} for s, n in b.unestablished],
        "reasons": list(b.reasons),
    }
    if b.fit is not None:
        out["fit"] = _fit(b.fit)
    out["worstSession"] = b.worst_session
    out["judged"] = b.judged
    out["sessions"] = [_session_budget(s) for s in b.sessions]
    return out


def _server_diff(s: ServerDiff) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": s.name,
        "kind": s.kind,
        "before": s.before,
        "after": s.after,
        "delta": s.delta,
        "beforeStatus": s.before_status,
        "afterStatus": s.after_status,
    }
    if s.note is not None:
        out["note"] = s.note
    if s.launch is not None:
        out["launch"] = s.launch
        if s.launch_changes:
            out["launchChanges"] = list(s.launch_changes)
    if s.known_unknown:
        out["knownUnknown"] = True
    return out


def _config_diff(c: ConfigDiff) -> dict[str, Any]:
    return {
        "client": c.client,
        "source": c.source,
        "baselineSource": c.baseline_source,
        "matchedBy": c.matched_by,
        "beforeTotal": c.before_total,
        "afterTotal": c.after_total,
        "delta": c.delta,
        "beforeShare": c.before_share,
        "afterShare": c.after_share,
        "exact": c.exact,
        "understatedBy": c.understated_by,
        "overstatedBy": c.overstated_by,
        "servers": [_server_diff(s) for s in c.servers],
    }


def _dropped(x: DroppedConfig) -> dict[str, Any]:
    return {"client": x.client, "source": x.source, "totalTokens": x.total_tokens}


def diff_to_json(d: AuditDiff) -> dict[str, Any]:
    return {
        "baselineGeneratedAt": d.baseline_generated_at,
        "baselineMethodologyVersion": d.baseline_methodology_version,
        "baselineEncoding": d.baseline_encoding,
        "comparable": d.comparable,
        "droppedConfigs": [_dropped(x) for x in d.dropped_configs],
        "warnings": list(d.warnings),
        "configs": [_config_diff(c) for c in d.configs],
        "worstIncrease": {"source": d.worst_increase[0], "delta": d.worst_increase[1]}
        if d.worst_increase
        else None,
    }


def increase_to_json(g: IncreaseGate) -> dict[str, Any]:
    return {
        "limit": g.limit,
        "limitPercent": g.limit_percent,
        "pass": g.passed,  # the reference's key
        "increase": g.increase,
        "reasons": list(g.reasons),
        "knownUnknowns": [_known(f) for f in g.known_unknowns],
    }


def _unreadable(u: UnreadableConfig) -> dict[str, Any]:
    """A config file found but not usable, with what its client does with such a file."""
    p = u.provenance
    return {
        "client": u.client,
        "source": u.source,
        "failure": u.failure,
        "error": u.error,
        "line": u.line,
        "clientSays": u.client_says,
        "provenance": {"source": p.source, "date": p.date, "confidence": p.confidence}
        if p is not None
        else None,
        "text": u.sentence(),
    }


def _known(f: GateFinding) -> dict[str, Any]:
    """A known unknown: a server without a number in either run, launched the same way."""
    return {"source": f.source, "server": f.server, "text": f.text}


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
        "unreadableConfigs": [_unreadable(u) for u in report.unreadable],
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
        out["gates"] = {
            "passed": gates.passed,
            "reasons": list(gates.reasons),
            "knownUnknowns": [_known(f) for f in gates.known_unknowns],
        }
    out["problems"] = list(report.problems)
    return out


def render_json(
    report: AuditReport, diff: AuditDiff | None = None, gates: GateResult | None = None
) -> str:
    """The JSON text written to stdout (two-space indentation, trailing newline)."""
    return stringify_pretty(report_to_json(report, diff, gates)) + "\n"


def render(
    report: AuditReport, diff: AuditDiff | None, gates: GateResult | None, layout: Layout
) -> str:
    return render_json(report, diff, gates)
