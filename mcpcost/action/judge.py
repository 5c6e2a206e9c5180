"""The audit's answer, base against head, as the Action views it (pure).

The Action asks the audit exactly what ``mcpcost audit --baseline base.json`` asks it
(``mcpcost.audit.compose.run_audit``): the base side's report is the baseline, ``diff_reports``
compares the head side's report with it and ``evaluate_gates`` judges. ``fail-on`` only sorts
the audit's findings: kinds it lists are failures, the rest are warnings. The views built here
copy the audit's kinds, totals, deltas and deferral verdicts; the comment, the summary, the
outputs and the annotations render from them.

Unlike ``audit --baseline``, the Action knows from git which config files exist at each commit,
so the audit's base side says which configs are known empty on either side
(``compose.side_presence``): a config the pull request adds is diffed against an explicit empty
config, one it deletes or empties against an empty head config.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mcpcost.action.outcome import (
    ConfigChange,
    ConfigDiffView,
    FindingView,
    ServerDiffView,
    SessionLensView,
    ToolChange,
    VerdictView,
)
from mcpcost.audit.compose import Audit, SidePresence, side_presence
from mcpcost.audit.diff import AuditDiff, ConfigDiff, DiffKind, MatchedBy
from mcpcost.audit.gates import Gate, GateFinding, GateResult
from mcpcost.audit.limits_gate import lens_findings
from mcpcost.audit.report_model import AuditReport, ConfigResult, ServerResult, first_line
from mcpcost.configs.config_file import ConfigFile
from mcpcost.render.sarif_report import finding_line


@dataclass(frozen=True, slots=True, kw_only=True)
class Judgement:
    head: AuditReport
    base: AuditReport | None
    diff: AuditDiff | None
    gates: GateResult
    changes: Mapping[str, ConfigChange] = field(default_factory=dict)  # by source


@dataclass(frozen=True, slots=True, kw_only=True)
class Presence:
    """Which config sources git shows absent, or holding no live server, on each side."""

    empty_before: frozenset[str]
    empty_now: frozenset[str]
    changes: Mapping[str, ConfigChange]


def _changes(known: SidePresence) -> dict[str, ConfigChange]:
    return {
        **dict.fromkeys(known.added, ConfigChange.NEW),
        **dict.fromkeys(known.removed, ConfigChange.REMOVED),
        **dict.fromkeys(known.emptied, ConfigChange.EMPTIED),
    }


def presence(base: Sequence[ConfigFile], head: Sequence[ConfigFile]) -> Presence:
    """What each side is known to hold, from the config files read at both commits (the audit's
    ``side_presence``), with what the pull request did to each config as a whole."""
    known = side_presence(base, head)
    return Presence(
        empty_before=known.empty_before, empty_now=known.empty_now, changes=_changes(known)
    )


def judgement_of(audit: Audit) -> Judgement:
    """The audit's reports (head, and base with a base side), its diff and its gate result."""
    return Judgement(
        head=audit.report,
        base=audit.base,
        diff=audit.diff,
        gates=audit.gates,
        changes=_changes(audit.presence) if audit.presence is not None else {},
    )


# --------------------------------------------------------------------------- verdict


def budget_use(j: Judgement) -> dict[str, Any]:
    """The heaviest session's figure the budget judged (what it loads up front, or with
    budget-full every definition) and which cost that is: the comment's "N% of the budget"
    reads these, so it says what the gate judged."""
    b = j.gates.budget
    if b is None or not b.sessions:
        return {}
    return {"budget_used": max(s.cost for s in b.sessions), "budget_judged": b.judged}


def _of_clients(j: Judgement, clients: Collection[str]) -> set[str] | None:
    """The keys of head's sessions whose client is in ``clients`` (None: every client)."""
    if not clients:
        return None
    return {s.key for s in j.head.sessions if s.client in clients}


def verdict_of(
    j: Judgement,
    fail_on: Collection[Gate],
    lines: Mapping[tuple[str, str], int],
    clients: Collection[str] = (),
) -> VerdictView:
    """The audit's findings, split by ``fail-on`` into failures and warnings; a known unknown
    that ``fail-on`` leaves out is neither, it is carried over (``known_unknowns``). A config
    file that cannot be read fails whatever ``fail-on`` says. What a client would drop, reject
    or cut is a warning when ``fail-on`` leaves ``limits`` out; ``clients`` (the input: empty
    for every client) says whose sessions' limits are reported at all."""
    found: list[GateFinding] = [*j.gates.findings, *j.gates.known_unknowns]
    if Gate.LIMITS not in fail_on:  # not gated, still reported
        found += lens_findings(j.head, breaking=True)
    keys = _of_clients(j, clients)
    if keys is not None:
        found = [f for f in found if f.gate is not Gate.LIMITS or f.session in keys]
    reasons = [
        FindingView(
            gate=f.gate,
            source=f.source or "",
            text=f.text,
            server=f.server,
            line=finding_line(f, j.head, lines, j.diff),
            lens_kind=f.lens.kind if f.lens is not None else None,
            tool=f.lens.tool if f.lens is not None else None,
        )
        for f in found
    ]
    carried = Gate.KNOWN_UNKNOWN
    fail_on = {*fail_on, Gate.UNREADABLE}  # a config that cannot be read always fails
    return VerdictView(
        failures=tuple(r for r in reasons if r.gate in fail_on),
        warnings=tuple(r for r in reasons if r.gate not in fail_on and r.gate is not carried),
        known_unknowns=tuple(r for r in reasons if r.gate not in fail_on and r.gate is carried),
    )


def lens_views(j: Judgement, clients: Collection[str] = ()) -> tuple[SessionLensView, ...]:
    """Head's client sessions through the client lens (those of ``clients``; empty: all)."""
    return tuple(
        SessionLensView(client=s.client, label=s.label, view=s.model_view)
        for s in j.head.sessions
        if s.model_view is not None and (not clients or s.client in clients)
    )


# --------------------------------------------------------------------------- view


def tool_changes(
    name: str, base: ServerResult | None, head: ServerResult | None
) -> tuple[ToolChange, ...]:
    before = dict(base.tools) if base is not None and base.measured else {}
    after = dict(head.tools) if head is not None and head.measured else {}
    changes = [
        ToolChange(server=name, tool=t, base_tokens=before.get(t), head_tokens=after.get(t))
        for t in sorted(set(before) | set(after))
        if before.get(t) != after.get(t)
    ]
    return tuple(sorted(changes, key=lambda t: (-abs(t.delta), t.tool)))


def _results(config: ConfigResult | None) -> dict[str, ServerResult]:
    if config is None:
        return {}
    return {s.name: s for s in (*config.servers, *config.skipped)}


def _config(report: AuditReport | None, source: str | None) -> ConfigResult | None:
    if report is None or source is None:
        return None
    return next((c for c in report.configs if c.source == source), None)


def _deferral(config: ConfigResult | None) -> dict[str, Any]:
    """The head report's deferral verdict of ``config``, as the view carries it."""
    verdict = config.deferral if config is not None else None
    if verdict is None:
        return {}
    return {"deferral": verdict.mode, "deferral_mechanism": verdict.mechanism}


def _compared(
    d: ConfigDiff,
    base: AuditReport | None,
    head: AuditReport,
    lines: Mapping[tuple[str, str], int],
    change: ConfigChange | None = None,
) -> ConfigDiffView:
    before = _results(_config(base, d.baseline_source))
    after = _results(_config(head, d.source))
    if d.matched_by is MatchedBy.UNMATCHED:  # a config new on head: every server in it is added
        rows = [
            ServerDiffView(
                name=s.name,
                kind=DiffKind.ADDED,
                head_tokens=s.tokens,
                delta=s.tokens,
                head_status=s.status,
                note=first_line(s.notes),
                line=lines.get((d.source, s.name)),
            )
            for s in after.values()
        ]
    else:
        rows = []
        for s in d.servers:
            b, a = before.get(s.name), after.get(s.name)
            note = (a.notes if a is not None and not a.measured else None) or (
                b.notes if b is not None and not b.measured else None
            )
            rows.append(
                ServerDiffView(
                    name=s.name,
                    kind=s.kind,
                    base_tokens=s.before,
                    head_tokens=s.after,
                    delta=s.delta,
                    base_status=s.before_status,
                    head_status=s.after_status,
                    note=first_line(note) or s.note,
                    line=lines.get((d.source, s.name)),
                    tool_changes=tool_changes(s.name, b, a) if s.kind is DiffKind.CHANGED else (),
                    known_unknown=s.known_unknown,
                )
            )
    return ConfigDiffView(
        source=d.source,
        client=d.client,
        base_total=d.before_total,
        head_total=d.after_total,
        delta=d.delta,
        exact=d.exact,
        servers=tuple(rows),
        change=change,
        **_deferral(_config(head, d.source)),
    )


def _current(c: ConfigResult, lines: Mapping[tuple[str, str], int]) -> ConfigDiffView:
    rows = [
        ServerDiffView(
            name=s.name,
            kind=DiffKind.MEASURED if s.measured else DiffKind.UNMEASURED,
            head_tokens=s.tokens,
            head_status=s.status,
            note=first_line(s.notes),
            line=lines.get((c.source, s.name)),
        )
        for s in (*c.servers, *c.skipped)
    ]
    return ConfigDiffView(
        source=c.source,
        client=c.client,
        base_total=None,
        head_total=c.total_tokens,
        exact=c.complete,
        servers=tuple(rows),
        **_deferral(c),
    )


def config_views(j: Judgement, lines: Mapping[tuple[str, str], int]) -> tuple[ConfigDiffView, ...]:
    """One view per config on either side, sorted by path."""
    views: list[ConfigDiffView] = []
    if j.diff is None:
        views = [_current(c, lines) for c in j.head.configs]
    else:
        views = [
            _compared(d, j.base, j.head, lines, j.changes.get(d.source)) for d in j.diff.configs
        ]
        for dropped in j.diff.dropped_configs:
            gone = _config(j.base, dropped.source)
            rows = tuple(
                ServerDiffView(
                    name=s.name,
                    kind=DiffKind.REMOVED,
                    base_tokens=s.tokens,
                    delta=-s.tokens if s.tokens is not None else None,
                    base_status=s.status,
                )
                for s in _results(gone).values()
            )
            views.append(
                ConfigDiffView(
                    source=dropped.source,
                    client=dropped.client,
                    base_total=dropped.total_tokens,
                    head_total=None,
                    delta=None,
                    exact=False,
                    servers=rows,
                )
            )
    for e in j.head.empty_configs:
        if e.error:
            views.append(
                ConfigDiffView(
                    source=e.source,
                    client=e.client,
                    base_total=None,
                    head_total=None,
                    exact=False,
                    problem=first_line(e.error),
                )
            )
    return tuple(sorted(views, key=lambda v: v.source))
