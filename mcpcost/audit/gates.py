"""Gates: ``--budget`` and ``--max-increase``, judged from values (pure).

``evaluate_gates(report, diff, budget=None, max_increase=None, max_increase_percent=None)``
returns ``GateResult(passed, reasons, budget, increase)``.

Budget: an absolute ceiling on any one config (judged against the heaviest; totals are never
summed across files). When over, ``plan_budget_fit`` gives the heaviest-first drop plan (one
ordering, not advice). Unlike the reference, a config holding a server that could not be measured
has only a floor for a total: if that floor is within the budget, whether the config fits cannot
be established and the budget fails. With nothing measured at all the budget fails too.

Increase: needs a diff. It fails on every case where the increase cannot be established, and
only then looks at the number: methodology or encoding changed; a config with no baseline; a
baseline config not found now; a server that changed measured-ness; an added server that could
not be measured; a server measured in neither run. Then each paired config's delta is checked
against ``max_increase`` tokens and/or ``max_increase_percent`` of its baseline total.

Every reason also comes as a ``GateFinding`` naming its kind (``Gate``): ``budget`` (a config
over the ceiling), ``increase`` (a config grew past a limit, or had nothing to compare against) or
``unmeasured`` (the answer could not be established because a server has no number). The Action
maps its ``fail-on`` input onto these kinds; ``require_measured`` adds an ``unmeasured`` finding
for every server without a number that no other finding already covers.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from mcpcost.audit.diff import AuditDiff, DiffKind, MatchedBy
from mcpcost.audit.report import AuditReport, ConfigResult


class Gate(StrEnum):
    """The kind of a finding; the Action's ``fail-on`` names these."""

    BUDGET = "budget"  # a config over the ceiling
    INCREASE = "increase"  # a config grew past a limit, or had nothing to compare against
    UNMEASURED = "unmeasured"  # the answer could not be established: a server has no number


@dataclass(frozen=True, kw_only=True)
class GateFinding:
    """One reason a gate failed, with its kind; ``server`` None means the config as a whole."""

    gate: Gate
    source: str | None
    text: str
    server: str | None = None


@dataclass(frozen=True, kw_only=True)
class BudgetFitStep:
    name: str
    tokens: int
    remaining: int  # what the config still costs after dropping this one and all above it


@dataclass(frozen=True, kw_only=True)
class BudgetFit:
    over_by: int
    drop: tuple[BudgetFitStep, ...]
    kept_count: int
    kept_tokens: int
    feasible: bool


def plan_budget_fit(config: ConfigResult, limit: int) -> BudgetFit:
    """Drop measured servers heaviest-first until the remainder fits the limit."""
    remaining = config.total_tokens
    steps: list[BudgetFitStep] = []
    candidates = [s for s in config.servers if (s.tokens or 0) > 0]
    for s in candidates:
        if remaining <= limit:
            break
        remaining -= s.tokens or 0
        steps.append(BudgetFitStep(name=s.name, tokens=s.tokens or 0, remaining=remaining))
    return BudgetFit(
        over_by=max(0, config.total_tokens - limit),
        drop=tuple(steps),
        kept_count=len(config.servers) - len(steps),
        kept_tokens=remaining,
        feasible=remaining <= limit,
    )


@dataclass(frozen=True, kw_only=True)
class BudgetVerdict:
    limit: int
    worst_total: int | None
    worst_source: str | None
    over: bool
    fit: BudgetFit | None
    unestablished: tuple[tuple[str, tuple[str, ...]], ...]  # (source, unmeasured server names)
    passed: bool
    reasons: tuple[str, ...]
    findings: tuple[GateFinding, ...] = ()


@dataclass(frozen=True, kw_only=True)
class IncreaseGate:
    limit: int | None
    limit_percent: float | None
    passed: bool
    increase: int | None
    reasons: tuple[str, ...]
    findings: tuple[GateFinding, ...] = ()


@dataclass(frozen=True, kw_only=True)
class GateResult:
    passed: bool
    reasons: tuple[str, ...]
    budget: BudgetVerdict | None = None
    increase: IncreaseGate | None = None
    findings: tuple[GateFinding, ...] = ()


def evaluate_budget(report: AuditReport, limit: int) -> BudgetVerdict:
    """The budget against every config; the heaviest one is reported as the judged one."""
    if not report.configs or not report.measured_any:
        reason = "budget cannot be established: no server was measured"
        nothing = (GateFinding(gate=Gate.UNMEASURED, source=None, text=reason),)
        return BudgetVerdict(
            limit=limit,
            worst_total=None,
            worst_source=None,
            over=False,
            fit=None,
            unestablished=(),
            passed=False,
            reasons=(reason,),
            findings=nothing,
        )
    worst = max(report.configs, key=lambda c: c.total_tokens)
    findings: list[GateFinding] = []
    over = worst.total_tokens > limit
    fit = plan_budget_fit(worst, limit) if over else None
    for c in report.configs:
        if c.total_tokens > limit:
            text = f"{c.source}: {c.total_tokens:,} tokens, over the {limit:,} budget"
            findings.append(GateFinding(gate=Gate.BUDGET, source=c.source, text=text))
    unestablished: list[tuple[str, tuple[str, ...]]] = []
    for c in report.configs:
        if c.skipped and c.total_tokens <= limit:
            names = tuple(s.name for s in c.skipped)
            unestablished.append((c.source, names))
            text = (
                f"{c.source}: {len(names)} server(s) could not be measured ({', '.join(names)}), "
                f"so whether it fits {limit:,} cannot be established"
            )
            findings.append(GateFinding(gate=Gate.UNMEASURED, source=c.source, text=text))
    reasons = [f.text for f in findings]
    return BudgetVerdict(
        limit=limit,
        worst_total=worst.total_tokens,
        worst_source=worst.source,
        over=over,
        fit=fit,
        unestablished=tuple(unestablished),
        passed=not reasons,
        reasons=tuple(reasons),
        findings=tuple(findings),
    )


def evaluate_increase(
    diff: AuditDiff, limit: int | None, limit_percent: float | None
) -> IncreaseGate:
    """Fail whenever the increase cannot be established; then compare each config's delta."""
    found: list[GateFinding] = []

    def add(gate: Gate, source: str | None, text: str, server: str | None = None) -> None:
        found.append(GateFinding(gate=gate, source=source, text=text, server=server))

    if not diff.comparable:
        add(
            Gate.INCREASE,
            None,
            f"baseline methodology {diff.baseline_methodology_version} / {diff.baseline_encoding} "
            "is not this run's: the numbers are not comparable (re-record the baseline)",
        )
    for c in diff.configs:
        if c.matched_by is MatchedBy.UNMATCHED:
            add(
                Gate.INCREASE,
                c.source,
                f"{c.source}: no baseline to check its {c.after_total:,} tokens against",
            )
            continue
        for s in c.servers:
            if s.kind in (DiffKind.UNMEASURED_NOW, DiffKind.UNMEASURED_BEFORE):
                why = (
                    f"changed measured-ness ({s.before_status} → {s.after_status}), "
                    "so the change could not be established exactly"
                )
            elif s.kind is DiffKind.UNMEASURED_BOTH:
                why = f"could not be measured in either run ({s.after_status}), so its cost is unknown"
            elif s.kind is DiffKind.ADDED and s.after is None:
                why = (
                    f"was added and could not be measured ({s.after_status}), "
                    "so what it adds is unknown"
                )
            else:
                continue
            add(Gate.UNMEASURED, c.source, f"{c.source}: {s.name} {why}", s.name)
    for d in diff.dropped_configs:
        add(
            Gate.UNMEASURED,
            d.source,
            f"{d.source}: covered by the baseline and not found in this run",
        )
    deltas = [c.delta for c in diff.configs if c.delta is not None]
    increase = max(deltas) if deltas else None
    if not found:
        for c in diff.configs:
            if c.delta is None:
                continue
            if limit is not None and c.delta > limit:
                add(
                    Gate.INCREASE,
                    c.source,
                    f"{c.source}: +{c.delta:,} tokens per request, over the {limit:,} allowed",
                )
            if limit_percent is not None and c.delta > 0:
                before = c.before_total or 0
                pct = (c.delta / before * 100) if before else float("inf")
                if pct > limit_percent:
                    shown = "from nothing" if before == 0 else f"+{pct:.1f}%"
                    add(
                        Gate.INCREASE,
                        c.source,
                        f"{c.source}: {shown} ({c.delta:+,} tokens), over the "
                        f"{limit_percent:g}% allowed",
                    )
    return IncreaseGate(
        limit=limit,
        limit_percent=limit_percent,
        passed=not found,
        increase=increase,
        reasons=tuple(f.text for f in found),
        findings=tuple(found),
    )


def unmeasured_findings(
    report: AuditReport, covered: tuple[GateFinding, ...]
) -> tuple[GateFinding, ...]:
    """A finding for each server without a number (and each unreadable config) not yet covered.

    A finding already naming the server, or naming its whole config (``server`` None) as
    unmeasured, covers it.
    """
    whole = {f.source for f in covered if f.gate is Gate.UNMEASURED and f.server is None}
    named = {(f.source, f.server) for f in covered if f.server is not None}
    out: list[GateFinding] = []
    for c in report.configs:
        for s in c.skipped:
            if c.source in whole or (c.source, s.name) in named:
                continue
            note = f": {s.notes}" if s.notes else ""
            out.append(
                GateFinding(
                    gate=Gate.UNMEASURED,
                    source=c.source,
                    server=s.name,
                    text=f"{c.source}: {s.name} could not be measured ({s.status}){note}",
                )
            )
    for e in report.empty_configs:
        if e.error and e.source not in whole:
            text = f"{e.source}: cannot be read: {e.error}"
            out.append(GateFinding(gate=Gate.UNMEASURED, source=e.source, text=text))
    return tuple(out)


def evaluate_gates(
    report: AuditReport,
    diff: AuditDiff | None,
    *,
    budget: int | None = None,
    max_increase: int | None = None,
    max_increase_percent: float | None = None,
    require_measured: bool = False,
) -> GateResult:
    """Every requested gate; ``passed`` is False when any fails. Pure.

    ``require_measured`` also fails on every server (and unreadable config) without a number.
    """
    wants_increase = max_increase is not None or max_increase_percent is not None
    if wants_increase and diff is None:
        raise ValueError("an increase gate needs a baseline diff")
    budget_v = evaluate_budget(report, budget) if budget is not None else None
    increase_v = (
        evaluate_increase(diff, max_increase, max_increase_percent)
        if wants_increase and diff is not None
        else None
    )
    findings = (
        *(budget_v.findings if budget_v else ()),
        *(increase_v.findings if increase_v else ()),
    )
    if require_measured:
        findings = (*findings, *unmeasured_findings(report, findings))
    reasons = tuple(f.text for f in findings)
    return GateResult(
        passed=not reasons,
        reasons=reasons,
        budget=budget_v,
        increase=increase_v,
        findings=findings,
    )
