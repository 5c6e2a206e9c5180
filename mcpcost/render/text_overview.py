"""The text report's first screen: one row per client session, then one line per thing to act on.

The row says what the session loads up front on every request (the same figure the budget
judges: ``audit.gates.session_cost``), what it defers, how many of its servers have a number,
and its heaviest server with that server's share. The lines to act on come most important
first: config files that cannot be read (the run fails), failed gates, servers a client has not
been allowed to launch or that have no number, the client lens's findings, and where one server
or a few tools are most of what a session loads, the remedy in that client's own terms. Each is
one sentence that ends with its fix; a long one wraps (never cut) under ``text_report.fit_width``.
"""

from __future__ import annotations

from collections.abc import Sequence

from mcpcost.audit.gates import UPFRONT, GateResult, SessionCost, session_cost
from mcpcost.audit.model_view import LoadVerdict
from mcpcost.audit.report_model import AuditReport, ClientSession, Unlaunched, first_line
from mcpcost.configs.clients import KNOWN_CLIENTS, client_named, presentation_of
from mcpcost.configs.config_file import EXPLICIT, ClientName
from mcpcost.core.plural import counted
from mcpcost.render.gate_lines import budget_verdict, increase_verdict
from mcpcost.render.text_format import table, thousands

# one server this much of what a session loads up front is the thing to drop
DOMINANT_SHARE = 0.5
# the heaviest server's name in the overview is cut to this many characters
NAME_WIDTH = 22


def _label(client: ClientName) -> str:
    return client_named(client).label if client in KNOWN_CLIENTS else client


def upfront_cell(s: ClientSession, cost: SessionCost) -> str:
    """What the session loads up front, as every text part shows it: ``≥`` a floor (a server
    that would count has no number); ``(all)`` when whether the client defers cannot be said,
    so the figure is the cost if everything loads."""
    cell = ("≥" if cost.unmeasured else "") + thousands(cost.tokens)
    return cell + " (all)" if cost.basis == "ceiling" else cell


def _deferred_cell(s: ClientSession, cost: SessionCost) -> str:
    if cost.basis == "ceiling":
        return "?"
    return thousands(cost.deferred) if cost.deferred else "—"


def _servers_cell(s: ClientSession) -> str:
    return f"{s.server_count} / {len(s.skipped)}" if s.skipped else str(s.server_count)


def _heaviest_cell(s: ClientSession) -> str:
    if not s.servers:
        return "—"
    top = s.servers[0].server
    name = top.name if len(top.name) <= NAME_WIDTH else top.name[: NAME_WIDTH - 1] + "…"
    return f"{name} {round((top.share or 0.0) * 100)}%"


def overview_table(report: AuditReport) -> list[str]:
    """A row per client session, heaviest up-front cost first."""
    head = ["client session", "up front", "deferred", "servers", "heaviest"]
    rows = [head]
    for s in sessions_by_weight(report.sessions):
        cost = session_cost(s, UPFRONT)
        rows.append(
            [
                s.label,
                upfront_cell(s, cost),
                _deferred_cell(s, cost),
                _servers_cell(s),
                _heaviest_cell(s),
            ]
        )
    return table(rows, [False, True, True, True, False])


def sessions_by_weight(sessions: Sequence[ClientSession]) -> list[ClientSession]:
    """Most important first: what a session loads up front, then its full total."""
    return sorted(
        sessions,
        key=lambda s: (-s.model_view.upfront_tokens, -s.model_view.projected_tokens, s.label),
    )


OVERVIEW_KEY = (
    "up front = o200k_base tokens of what the client's model gets on every request, in the "
    "shape its API takes (the client lens; ≥ a floor; (all) = whether it defers cannot be said, "
    "so the cost if everything loads); deferred = what it keeps back until the model asks (? when "
    "that cannot be said); servers = measured / not; wire = the tools/list definitions as "
    "measured."
)


# ------------------------------------------------------------------ things to act on


def _unlaunched(report: AuditReport) -> list[str]:
    """Servers a session loads but has no number for, one line per session and reason."""
    out: list[str] = []
    for s in sessions_by_weight(report.sessions):
        why: dict[str, list[str]] = {}
        for e in s.skipped:
            v = e.server
            # a never-launched entry's note says why already ("unresolved ${input:pat} ...")
            first = first_line(v.notes)
            if not first:
                note = str(v.status)
            elif isinstance(v.status, Unlaunched):
                note = first
            else:
                note = f"{v.status}: {first}"
            why.setdefault(note, []).append(v.name)
        for note, names in why.items():
            verb = "has" if len(names) == 1 else "have"
            out.append(f"{s.label}: {', '.join(names)} {verb} no number ({note}).")
    return out


def _lens_lines(report: AuditReport) -> list[str]:
    out: list[str] = []
    for s in sessions_by_weight(report.sessions):
        mv = s.model_view
        for f in mv.breaking:
            where = ".".join(x for x in (f.server, f.tool) if x) or "the session"
            out.append(f"{s.label}: {where}: {f.rule}; fix: {f.fix}.")
    return out


def remedy(s: ClientSession) -> str | None:
    """The one remedy for a session that loads its definitions up front, in its client's terms:
    drop the server that is most of them, else switch off its heaviest tools. A session that
    defers them gets none: what it defers costs nothing up front."""
    cost = session_cost(s, UPFRONT)
    mv = s.model_view
    if cost.tokens <= 0 or mv.verdict is LoadVerdict.DEFERRED or not s.servers:
        return None
    top = s.servers[0].server
    share = top.share or 0.0
    if share >= DOMINANT_SHARE and len(s.servers) > 1:
        return (
            f"{s.label}: {top.name} is {round(share * 100)}% of its "
            f"{thousands(mv.projected_tokens)} tokens of definitions as its model gets them; "
            f"fix: drop server {top.name} from its config if you do not use it."
        )
    t = s.trim_advice
    if t is None:
        return None
    names = ", ".join(f"{h.server}·{h.tool}" for h in t.tools)
    rule = presentation_of(s.client).tool_filter if s.client in KNOWN_CLIENTS else None
    server = t.tools[0].server
    if rule is not None and rule.removes_definition:
        fix = f"switch them off with {rule.how}"
    elif rule is not None:  # on record, but it saves no tokens: only what does is offered
        fix = (
            f"drop server {server} ({_label(s.client)} has no per-tool switch on record that "
            "takes a definition out of its model's context)"
        )
    elif s.client == EXPLICIT:  # a --config file: the client that reads it has the rule
        fix = (
            f"switch them off the way the client that reads this file does, or drop server {server}"
        )
    else:
        fix = (
            f"how {_label(s.client)} switches single tools off is not on record here; drop "
            f"server {server} instead"
        )
    return (
        f"{s.label}: {counted(len(t.tools), 'tool')} ({names}) are "
        f"{thousands(t.recoverable_tokens)} tokens; fix: {fix}."
    )


def act_on(report: AuditReport, gates: GateResult | None) -> list[str]:
    """One line per thing to act on, most important first."""
    out = [f"{u.sentence()} (exit 2)" for u in report.unreadable]
    if gates is not None and gates.budget is not None and not gates.budget.passed:
        out.append(budget_verdict(gates.budget))
    if gates is not None and gates.increase is not None and not gates.increase.passed:
        out.append(increase_verdict(gates.increase))
    out += _unlaunched(report)
    out += _lens_lines(report)
    out += [r for r in (remedy(s) for s in sessions_by_weight(report.sessions)) if r]
    return out


def passed_gates(gates: GateResult | None) -> list[str]:
    """The gates that passed, one line each (after the things to act on)."""
    out: list[str] = []
    if gates is not None and gates.budget is not None and gates.budget.passed:
        out.append(budget_verdict(gates.budget))
    if gates is not None and gates.increase is not None and gates.increase.passed:
        out.append(increase_verdict(gates.increase))
    return out
