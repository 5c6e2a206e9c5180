"""Gates: ``--budget`` and ``--max-increase``, judged from values (pure).

``evaluate_gates(report, diff, budget=None, max_increase=None, max_increase_percent=None)``
returns ``GateResult(passed, reasons, budget, increase)``.

Budget: an absolute ceiling on each client session (``AuditReport.sessions``: the union of the
files one client loads in this project, as the client pays it), judged on the session's one
``ModelView`` in its client's projected tokens. By default it judges what the session loads up
front on every request under the view's verdict (``BudgetCost`` ``upfront``), so a client that
defers its definitions is not failed for definitions it never sends up front; where the verdict
cannot be said, that figure is the cost if everything loads (basis ``ceiling``), so a budget never
passes on what cannot be seen. ``full`` (``--budget-full``) judges every projected definition,
up front or deferred. Every session over the ceiling is a finding of its own, with its own
heaviest-first drop plan (``plan_fit``: one ordering, not advice) over the view's per-server
figures. A session holding a server that could not be measured, and that would count towards the
judged cost, has only a floor for it: if that floor is within the budget, whether the session fits
cannot be established and the budget fails. With nothing measured at all the budget fails too.

Increase: needs a diff. Each paired config's known increase (its delta when exact, else the sum
over the servers with a number on both sides) is checked against ``max_increase`` tokens and/or
``max_increase_percent`` of its baseline total; an increase over the limit comes first, as the
cause. Every case where the increase cannot be established fails too, as a reason of its own:
methodology or encoding changed; a config with no baseline; a baseline config not found now; a
server that changed measured-ness; an added server that could not be measured; a server measured
in neither run whose launch changed, names files the change modified, or is not recorded in the
baseline. A server measured in neither run and launched the same way on both sides
(``ServerDiff.known_unknown``) is an unknown the change did not cause: it is carried over as a
``known-unknown`` finding in ``known_unknowns``, reported and not failed (spec/METHODOLOGY.md,
"Comparing two runs").

Limits (``--fail-on-limits``): ``limits_gate.evaluate_limits``, loaded when asked for.

Every reason also comes as a ``GateFinding`` naming its kind (``Gate``): ``budget`` (a config
over the ceiling), ``increase`` (a config grew past a limit, or had nothing to compare against),
``unmeasured`` (the answer could not be established because a server has no number) or
``known-unknown`` (carried over) or ``unreadable`` (a config file found but not readable or
parsable: always a failure, whatever is asked). The Action maps its ``fail-on`` input onto these
kinds;
``require_measured`` adds a finding for every server without a number that no other finding
already covers (``known-unknown`` for one carried over, ``unmeasured`` otherwise) and makes the
known unknowns fail too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from mcpcost.audit.diff import DiffKind, LaunchMatch, MatchedBy

# the gate vocabulary lives in gate_findings (the limits gate uses it too); named here for callers
from mcpcost.audit.gate_findings import Gate as Gate
from mcpcost.audit.gate_findings import GateFinding as GateFinding
from mcpcost.audit.limits_gate import evaluate_limits
from mcpcost.audit.report_model import (
    AuditReport,
    ClientSession,
    ServerStatus,
    first_line,
)
from mcpcost.configs.clients.presentation import LoadVerdict

if TYPE_CHECKING:  # the diff module loads only with a baseline, which is when a diff exists
    from mcpcost.audit.diff import AuditDiff, ConfigDiff, ServerDiff


@dataclass(frozen=True, slots=True, kw_only=True)
class BudgetFitStep:
    name: str
    tokens: int
    remaining: int  # what the config still costs after dropping this one and all above it


@dataclass(frozen=True, slots=True, kw_only=True)
class BudgetFit:
    over_by: int
    drop: tuple[BudgetFitStep, ...]
    kept_count: int
    kept_tokens: int
    feasible: bool


def plan_fit(total: int, servers: Sequence[tuple[str, int]], limit: int) -> BudgetFit:
    """Drop servers ((name, tokens), heaviest first, as given) until the remainder fits."""
    remaining = total
    steps: list[BudgetFitStep] = []
    candidates = [(name, tokens) for name, tokens in servers if tokens > 0]
    for name, tokens in candidates:
        if remaining <= limit:
            break
        remaining -= tokens
        steps.append(BudgetFitStep(name=name, tokens=tokens, remaining=remaining))
    return BudgetFit(
        over_by=max(0, total - limit),
        drop=tuple(steps),
        kept_count=len(servers) - len(steps),
        kept_tokens=remaining,
        feasible=remaining <= limit,
    )


# Which cost of a session the budget judges (``audit --json``'s ``budget.judged``): what it
# loads up front on every request, or every tool definition (``--budget-full``).
BudgetCost = Literal["upfront", "full"]
UPFRONT: BudgetCost = "upfront"
FULL: BudgetCost = "full"

# Where a session's judged figure comes from (``budget.sessions[].basis``), all the session's
# ``ModelView``: its up-front tokens under its verdict (``upfront``), the same figure when the
# verdict cannot be said, which is then the cost if everything loads (``ceiling``), or every
# projected definition, up front or deferred (``full``, asked for with --budget-full).
CostBasis = Literal["upfront", "ceiling", "full"]


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionCost:
    """The figure the budget judges for one session, and what it is made of."""

    tokens: int
    basis: CostBasis
    deferred: int  # what the session keeps back (the view's deferred tokens)
    unmeasured: tuple[str, ...]  # servers without a number that would count towards it
    servers: tuple[tuple[str, int], ...]  # (name, its part of ``tokens``), heaviest first


def session_cost(session: ClientSession, judged: BudgetCost) -> SessionCost:
    """What the budget judges for ``session``, from its ``ModelView``: see the module
    docstring."""
    mv = session.model_view
    skipped = tuple(e.server.name for e in session.skipped)
    if judged == FULL:
        parts = [(x.name, x.projected_tokens) for x in mv.servers]
        return SessionCost(
            tokens=mv.projected_tokens,
            basis="full",
            deferred=mv.deferred_tokens,
            unmeasured=skipped,
            servers=tuple(sorted(parts, key=lambda p: -p[1])),
        )
    deferred = mv.verdict is LoadVerdict.DEFERRED
    parts = [(x.name, x.upfront_tokens) for x in mv.servers]
    return SessionCost(
        tokens=mv.upfront_tokens,
        basis="ceiling" if mv.ceiling else "upfront",
        deferred=mv.deferred_tokens,
        unmeasured=mv.loading.always_load.unmeasured if deferred else skipped,
        servers=tuple(sorted(parts, key=lambda p: -p[1])),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientSessionBudget:
    """One session judged against the budget: ``cost`` is the figure judged (``judged``,
    ``basis``), ``total`` every definition it has."""

    key: str
    label: str
    total: int  # measured servers only: a floor when the session has unmeasured servers
    over: bool
    fit: BudgetFit | None  # when over: which servers to drop, heaviest first
    unmeasured: tuple[str, ...]  # server names without a number that count towards ``cost``
    sources: tuple[str, ...]
    cost: int = 0
    judged: BudgetCost = UPFRONT
    basis: CostBasis = "upfront"
    deferred: int = 0  # definitions the session holds but does not load up front


@dataclass(frozen=True, slots=True, kw_only=True)
class BudgetVerdict:
    """The budget gate. ``worst_*`` name the session with the most tool definitions (its full
    total, the reference's meaning); ``over``, ``passed``, ``fit`` and ``reasons`` are the
    verdict on the cost judged (``judged``), per session in ``sessions``."""

    limit: int
    worst_total: int | None
    worst_source: str | None  # the file holding the heaviest server of the heaviest session
    over: bool
    fit: BudgetFit | None
    unestablished: tuple[tuple[str, tuple[str, ...]], ...]  # (session, unmeasured server names)
    passed: bool
    reasons: tuple[str, ...]
    findings: tuple[GateFinding, ...] = ()
    sessions: tuple[ClientSessionBudget, ...] = ()  # every session, heaviest first
    worst_session: str | None = None  # the heaviest session's label
    judged: BudgetCost = UPFRONT

    @property
    def over_sessions(self) -> tuple[ClientSessionBudget, ...]:
        return tuple(s for s in self.sessions if s.over)

    @property
    def unestablished_sessions(self) -> tuple[ClientSessionBudget, ...]:
        return tuple(s for s in self.sessions if not s.over and s.unmeasured)


@dataclass(frozen=True, slots=True, kw_only=True)
class IncreaseGate:
    limit: int | None
    limit_percent: float | None
    passed: bool
    increase: int | None
    reasons: tuple[str, ...]
    findings: tuple[GateFinding, ...] = ()
    known_unknowns: tuple[GateFinding, ...] = ()  # carried over, not failed


@dataclass(frozen=True, slots=True, kw_only=True)
class GateResult:
    passed: bool
    reasons: tuple[str, ...]  # the failing findings' texts
    budget: BudgetVerdict | None = None
    increase: IncreaseGate | None = None
    findings: tuple[GateFinding, ...] = ()  # every failing finding
    known_unknowns: tuple[GateFinding, ...] = ()  # reported, not failed


def _names(names: Sequence[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _client_session_budget(
    session: ClientSession, limit: int, judged: BudgetCost
) -> ClientSessionBudget:
    cost = session_cost(session, judged)
    over = cost.tokens > limit
    fit = None
    if over:
        fit = plan_fit(cost.tokens, cost.servers, limit)
    return ClientSessionBudget(
        key=session.key,
        label=session.label,
        total=session.total_tokens,
        over=over,
        fit=fit,
        unmeasured=cost.unmeasured,
        sources=session.sources,
        cost=cost.tokens,
        judged=judged,
        basis=cost.basis,
        deferred=cost.deferred,
    )


def _over_text(b: ClientSessionBudget, limit: int) -> str:
    floor = "at least " if b.unmeasured else ""
    over = f"{b.cost - limit:,} over the {limit:,} budget"
    if b.basis == "full":
        return (
            f"{b.label}'s tool definitions total {floor}{b.cost:,} tokens as its model gets "
            f"them, {over} (--budget-full)."
        )
    if b.basis == "ceiling":
        return (
            f"{b.label} carries {floor}{b.cost:,} tokens of tool definitions, {over}: whether "
            "it defers them cannot be said, so the cost if everything loads is judged."
        )
    deferred = f" ({b.deferred:,} more are deferred)" if b.deferred else ""
    return f"{b.label} loads {floor}{b.cost:,} tokens up front per request{deferred}, {over}."


def _heaviest_source(session: ClientSession) -> str:
    return session.servers[0].source if session.servers else session.sources[0]


def evaluate_budget(report: AuditReport, limit: int, judged: BudgetCost = UPFRONT) -> BudgetVerdict:
    """The budget against every client session's ``judged`` cost; each one over it is a
    finding of its own."""
    if not report.sessions or not report.measured_any:
        reason = "The budget cannot be judged: no server was measured."
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
            judged=judged,
        )
    sessions = [(s, _client_session_budget(s, limit, judged)) for s in report.sessions]
    worst_session, worst = max(sessions, key=lambda pair: pair[1].total)
    findings: list[GateFinding] = []
    for session, b in sessions:
        if b.over:
            text = _over_text(b, limit)
            findings.append(
                GateFinding(
                    gate=Gate.BUDGET, source=_heaviest_source(session), text=text, session=b.key
                )
            )
    unestablished: list[tuple[str, tuple[str, ...]]] = []
    for session, b in sessions:
        if b.over or not b.unmeasured:
            continue
        unestablished.append((b.label, b.unmeasured))
        one = len(b.unmeasured) == 1
        what = "up front" if b.basis == "upfront" else "projected"
        text = (
            f"{b.label} carries {b.cost:,} {what} tokens, within the {limit:,} budget, but "
            f"{_names(b.unmeasured)} {'has' if one else 'have'} no number, so whether the "
            "session fits cannot be established."
        )
        covers = tuple(
            (e.source, e.server.name) for e in session.skipped if e.server.name in b.unmeasured
        )
        findings.append(
            GateFinding(
                gate=Gate.UNMEASURED,
                source=next(e.source for e in session.skipped if e.server.name in b.unmeasured),
                text=text,
                session=b.key,
                covers=covers,
            )
        )
    reasons = [f.text for f in findings]
    over = [b for _, b in sessions if b.over]
    worst_over = max(over, key=lambda b: b.cost) if over else None
    return BudgetVerdict(
        limit=limit,
        worst_total=worst.total,
        worst_source=_heaviest_source(worst_session),
        worst_session=worst.label,
        over=worst_over is not None,
        fit=worst_over.fit if worst_over is not None else None,
        unestablished=tuple(unestablished),
        passed=not reasons,
        reasons=tuple(reasons),
        findings=tuple(findings),
        sessions=tuple(b for _, b in sessions),
        judged=judged,
    )


def _shown(status: ServerStatus | None) -> str:
    return str(status) if status is not None else "unknown"


def known_increase(c: ConfigDiff) -> int | None:
    """What a config is known to have grown by: its delta when exact, else the sum over the
    servers that have a number on every side they appear on; None without a baseline."""

    if c.matched_by is MatchedBy.UNMATCHED or c.delta is None:
        return None
    if c.exact:
        return c.delta
    return sum(s.delta for s in c.servers if not s.blind and s.delta is not None)


def evaluate_increase(
    diff: AuditDiff, limit: int | None, limit_percent: float | None
) -> IncreaseGate:
    """Each config's known increase against the limits (the causes, first), then every case
    where the increase cannot be established (reasons of their own)."""

    found: list[GateFinding] = []

    def add(gate: Gate, source: str | None, text: str, server: str | None = None) -> None:
        found.append(GateFinding(gate=gate, source=source, text=text, server=server))

    if not diff.comparable:
        add(
            Gate.INCREASE,
            None,
            f"The baseline was measured with methodology {diff.baseline_methodology_version} / "
            f"{diff.baseline_encoding}, not this run's: the numbers cannot be compared (record "
            "the baseline again).",
        )
    carried: list[GateFinding] = []
    for c in diff.configs:
        if c.matched_by is MatchedBy.UNMATCHED:
            add(
                Gate.INCREASE,
                c.source,
                f"{c.source}: no baseline config to compare its {c.after_total:,} tokens with.",
            )
            continue
        for s in c.servers:
            if s.known_unknown:
                carried.append(known_unknown_finding(c.source, s))
                continue
            if s.kind in (DiffKind.UNMEASURED_NOW, DiffKind.UNMEASURED_BEFORE):
                why = (
                    f"has a number in one run and not the other ({_shown(s.before_status)} → "
                    f"{_shown(s.after_status)}), so its change is unknown."
                )
            elif s.kind is DiffKind.UNMEASURED_BOTH:
                why = (
                    f"has no number in either run ({_shown(s.after_status)}) {_why_not_carried(s)}"
                )
            elif s.kind is DiffKind.ADDED and s.after is None:
                why = (
                    f"was added without a number ({_shown(s.after_status)}), so what it adds is "
                    "unknown."
                )
            else:
                continue
            add(Gate.UNMEASURED, c.source, f"{c.source}: {s.name} {why}", s.name)
    for d in diff.dropped_configs:
        add(
            Gate.UNMEASURED,
            d.source,
            f"{d.source}: in the baseline, not found in this run.",
        )
    causes: list[GateFinding] = []
    known: list[int] = []
    for c in diff.configs:
        grew = known_increase(c)
        if grew is None:
            continue
        known.append(grew)
        partly = "" if c.exact else " (counting only the servers measured in both runs)"
        if limit is not None and grew > limit:
            text = f"{c.source}: +{grew:,} tokens per request{partly}, over the {limit:,} allowed."
            causes.append(GateFinding(gate=Gate.INCREASE, source=c.source, text=text))
        if limit_percent is not None and grew > 0:
            before = c.before_total or 0
            pct = (grew / before * 100) if before else float("inf")
            if pct > limit_percent:
                shown = "grew from nothing" if before == 0 else f"grew {pct:.1f}%"
                text = (
                    f"{c.source}: {shown} (+{grew:,} tokens per request{partly}), over the "
                    f"{limit_percent:g}% allowed."
                )
                causes.append(GateFinding(gate=Gate.INCREASE, source=c.source, text=text))
    found = causes + found
    increase = max(known) if known else None
    return IncreaseGate(
        limit=limit,
        limit_percent=limit_percent,
        passed=not found,
        increase=increase,
        reasons=tuple(f.text for f in found),
        findings=tuple(found),
        known_unknowns=tuple(carried),
    )


def _why_not_carried(s: ServerDiff) -> str:
    """Why an ``unmeasured-both`` server is not carried over as a known unknown."""

    if s.launch is LaunchMatch.CHANGED:
        parts = ", ".join(s.launch_changes)
        return f"and its launch changed ({parts}), so what the change did to it is unknown."
    if s.launch is LaunchMatch.FILES_CHANGED:
        return "and its launch names files this change modified, so what it did is unknown."
    if s.launch is LaunchMatch.NO_LAUNCH:
        return "and its config writes no launch to compare, so it cannot be shown unchanged."
    return (
        "and the baseline does not record how it was launched, so it cannot be shown "
        "unchanged (record the baseline again with this version)."
    )


def known_unknown_finding(source: str, s: ServerDiff) -> GateFinding:
    """A server without a number in either run, launched the same way: carried over."""
    text = (
        f"{source}: {s.name} has no number in either run ({_shown(s.after_status)}) and is "
        "launched the same way: a known unknown."
    )
    return GateFinding(gate=Gate.KNOWN_UNKNOWN, source=source, text=text, server=s.name)


def unmeasured_findings(
    report: AuditReport, covered: tuple[GateFinding, ...], diff: AuditDiff | None = None
) -> tuple[GateFinding, ...]:
    """A finding for each server without a number not yet covered; of kind ``known-unknown``
    for a server the diff carries over, else ``unmeasured``.

    A finding already naming the server, or naming its whole config (``server`` None) as
    unmeasured, covers it.
    """
    whole = {f.source for f in covered if f.gate is Gate.UNMEASURED and f.server is None}
    named = {(f.source, f.server) for f in covered if f.server is not None}
    named |= {pair for f in covered for pair in f.covers}
    carried = {
        (c.source, s.name): s
        for c in (diff.configs if diff is not None else ())
        for s in c.servers
        if s.known_unknown
    }
    out: list[GateFinding] = []
    for c in report.configs:
        for s in c.skipped:
            if c.source in whole or (c.source, s.name) in named:
                continue
            same = carried.get((c.source, s.name))
            if same is not None:
                out.append(known_unknown_finding(c.source, same))
                continue
            note = f": {first_line(s.notes)}" if s.notes else ""
            out.append(
                GateFinding(
                    gate=Gate.UNMEASURED,
                    source=c.source,
                    server=s.name,
                    text=f"{c.source}: {s.name} could not be measured ({s.status}){note}",
                )
            )
    return tuple(out)


def unreadable_findings(report: AuditReport) -> tuple[GateFinding, ...]:
    """One finding for each config file that was found but cannot be read or parsed."""
    return tuple(
        GateFinding(gate=Gate.UNREADABLE, source=u.source, text=u.sentence())
        for u in report.unreadable
    )


def _limits(report: AuditReport) -> tuple[GateFinding, ...]:

    return evaluate_limits(report)


def evaluate_gates(
    report: AuditReport,
    diff: AuditDiff | None,
    *,
    budget: int | None = None,
    max_increase: int | None = None,
    max_increase_percent: float | None = None,
    require_measured: bool = False,
    budget_judges: BudgetCost = UPFRONT,
    limits: bool = False,
) -> GateResult:
    """Every requested gate; ``passed`` is False when any fails. Pure.

    A config file that cannot be read or parsed always fails (an ``unreadable`` finding, asked
    for or not). Known unknowns (servers without a number in either run, launched the same way)
    are ``known_unknowns``, reported and not failed; ``require_measured`` fails on every server
    without a number, known unknowns included (as findings of their kind). ``limits`` fails
    on what a client drops, rejects or cuts (``limits_gate.evaluate_limits``).
    """
    wants_increase = max_increase is not None or max_increase_percent is not None
    if wants_increase and diff is None:
        raise ValueError("an increase gate needs a baseline diff")
    budget_v = evaluate_budget(report, budget, budget_judges) if budget is not None else None
    increase_v = (
        evaluate_increase(diff, max_increase, max_increase_percent)
        if wants_increase and diff is not None
        else None
    )
    findings = (
        *unreadable_findings(report),
        *(budget_v.findings if budget_v else ()),
        *(increase_v.findings if increase_v else ()),
        *(_limits(report) if limits else ()),
    )
    known = increase_v.known_unknowns if increase_v else ()
    if require_measured:
        findings = (*findings, *known)
        findings = (*findings, *unmeasured_findings(report, findings, diff))
        known = ()
    reasons = tuple(f.text for f in findings)
    return GateResult(
        passed=not reasons,
        reasons=reasons,
        budget=budget_v,
        increase=increase_v,
        findings=findings,
        known_unknowns=known,
    )
