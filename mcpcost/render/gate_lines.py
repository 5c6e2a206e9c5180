"""The gates in the human report, causes first: the budget per session with each fit plan, the
diff against a baseline, and the increase limit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from mcpcost.audit.gates import FULL, BudgetFit, BudgetVerdict, Gate, IncreaseGate
from mcpcost.configs.config_file import EXPLICIT
from mcpcost.render.text_format import share_percent, signed, table, thousands

if TYPE_CHECKING:  # the diff module loads only with a baseline, which is when a diff exists
    from mcpcost.audit.diff import AuditDiff, ConfigDiff


def _with_reasons(names: Sequence[str], reasons: Sequence[tuple[str, str]]) -> list[str]:
    why = dict(reasons)
    return [f"{name} ({why[name]})" if name in why else name for name in names]


def _fit_lines(fit: BudgetFit, limit: int) -> list[str]:
    out = [
        "    Dropping the heaviest servers first (arithmetic, not advice: it cannot know which "
        "servers you need):"
    ]
    for step in fit.drop:
        state = "fits" if step.remaining <= limit else "still over"
        out.append(
            f"      drop {step.name} (−{thousands(step.tokens)}) → {thousands(step.remaining)}, {state}"
        )
    if not fit.feasible:
        out.append(
            f"    No subset fits: with every measured server dropped, {thousands(fit.kept_tokens)} "
            "tokens remain."
        )
    elif fit.kept_count == 0 and len(fit.drop) == 1:
        out.append(
            "    It is the session's only server: only dropping it, or switching enough of its "
            "tools off, gets under the budget."
        )
    elif fit.kept_count == 0:
        out.append("    Only dropping every server gets under the budget.")
    return out


def budget_judged(b: BudgetVerdict) -> str:
    """Which cost the budget judged, as the gate line names it."""
    if b.judged == FULL:
        return "every tool definition, deferred or not (--budget-full)"
    return "tokens loaded up front per request"


def budget_verdict(b: BudgetVerdict) -> str:
    """The budget gate in one sentence (the summary's line), naming the cost it judged."""
    head = f"Budget {thousands(b.limit)} on {budget_judged(b)}"
    if b.worst_total is None:
        return f"{head}: cannot be judged, because no server was measured."
    over, unknown = b.over_sessions, b.unestablished_sessions
    if b.passed:
        top = max(b.sessions, key=lambda s: s.cost)
        return (
            f"{head}: every session fits; the heaviest, {top.label}, has "
            f"{thousands(b.limit - top.cost)} tokens to spare."
        )
    parts = []
    if over:
        names = ", ".join(f"{s.label} at {thousands(s.cost)}" for s in over)
        parts.append(f"{len(over)} session{'s' if len(over) != 1 else ''} over: {names}")
    if unknown:
        parts.append(f"{len(unknown)} cannot be judged")
    return f"{head}: FAILED — {'; '.join(parts)}."


def budget_block(b: BudgetVerdict) -> list[str]:
    """Every session over the budget with its own fit plan, then those that cannot be judged."""
    out = [budget_verdict(b)]
    sessions = {s.key: s for s in b.sessions}
    for f in b.findings:
        out.append(f"  {f.text}")
        judged = sessions.get(f.session or "")
        if judged is not None and judged.fit is not None:
            out += _fit_lines(judged.fit, b.limit)
    return out


def _diff_config(c: ConfigDiff, context_window: int) -> list[str]:
    out = [
        "",
        f"  {c.source}"
        + (
            f"  (baseline: {c.baseline_source})"
            if c.baseline_source not in (None, c.source)
            else ""
        ),
    ]
    if c.before_total is None or c.delta is None:
        out.append(f"    no baseline config to compare its {thousands(c.after_total)} tokens with")
        return out
    out.append(
        f"    {thousands(c.before_total)}  →  {thousands(c.after_total)}   {signed(c.delta)}"
    )
    changed = [s for s in c.servers if s.kind != "unchanged"]
    if changed:
        rows = [
            [
                s.kind,
                s.name,
                "—" if s.before is None else thousands(s.before),
                "→",
                "—" if s.after is None else thousands(s.after),
                "" if s.delta is None else signed(s.delta),
            ]
            for s in changed
        ]
        out += table(rows, [False, False, True, False, True, True], indent="    ")
    unchanged = len(c.servers) - len(changed)
    if unchanged:
        out.append(f"    ({unchanged} server{'s' if unchanged != 1 else ''} unchanged)")
    where = "this client" if c.client == EXPLICIT else c.client
    carried = [s for s in c.servers if s.known_unknown]
    if not c.exact and all(s.known_unknown or not s.blind for s in c.servers):
        names = ", ".join(s.name for s in carried)
        out.append(
            f"    Known unknown{'s' if len(carried) != 1 else ''}, carried over: {names} "
            f"{'has' if len(carried) == 1 else 'have'} no number in either run and "
            f"{'is' if len(carried) == 1 else 'are'} launched the same way; both totals are "
            f"floors, and the measured servers moved {signed(c.delta)}."
        )
    elif not c.exact:
        out.append(
            "    Not a clean comparison: the measured total moved "
            f"{signed(c.delta)}, but that is not what your config did."
        )
        for s in c.servers:
            if s.note and s.kind != "removed":
                out.append(f"      {s.name}: {s.note}")
        if c.understated_by:
            out.append(
                f"      → true cost is at least {thousands(c.understated_by)} higher than the "
                f"{thousands(c.after_total)} measured now."
            )
        if c.overstated_by:
            out.append(
                f"      → up to {thousands(c.overstated_by)} was already being paid in the baseline."
            )
    elif c.delta == 0:
        out.append("    No change to what every request carries.")
    elif c.delta > 0:
        out.append(
            f"    This change adds {thousands(c.delta)} tokens to every request in {where} — "
            f"{share_percent(c.before_share or 0)} → {share_percent(c.after_share)} of a {thousands(context_window)}-token context window."
        )
    else:
        out.append(
            f"    This change removes {thousands(-c.delta)} tokens from every request in {where}."
        )
    return out


def diff_block(d: AuditDiff, context_window: int) -> list[str]:
    out = [
        f"diff vs baseline measured {d.baseline_generated_at} (methodology {d.baseline_methodology_version})"
    ]
    for c in d.configs:
        out += _diff_config(c, context_window)
    for dropped in d.dropped_configs:
        out.append("")
        out.append(
            f"  {dropped.source}: in the baseline ({thousands(dropped.total_tokens)} tokens), not found now"
        )
    if d.warnings:
        out.append("")
        out += [f"  warning: {w}" for w in d.warnings]
    if not d.comparable:
        out.append("  Re-record the baseline with this version to compare again.")
    return out


def _limits(g: IncreaseGate) -> str:
    parts = []
    if g.limit is not None:
        parts.append(f"{thousands(g.limit)} tokens")
    if g.limit_percent is not None:
        parts.append(f"{g.limit_percent:g}%")
    return " and ".join(parts)


def _carried(g: IncreaseGate) -> str:
    n = len(g.known_unknowns)
    return f"; {n} known unknown{'s' if n != 1 else ''} carried over" if n else ""


def increase_verdict(g: IncreaseGate) -> str:
    """The increase gate in one sentence (the summary's line)."""
    if g.passed:
        grew = (
            "nothing grew"
            if g.increase is None or g.increase <= 0
            else f"the largest increase is {signed(g.increase)} tokens"
        )
        return f"Increase limit {_limits(g)}: passed; {grew}{_carried(g)}."
    causes = sum(1 for f in g.findings if f.gate is Gate.INCREASE and f.server is None)
    unknown = len(g.findings) - causes
    parts = []
    if causes:
        parts.append(f"{causes} over the limit")
    if unknown:
        parts.append(f"{unknown} change{'s' if unknown != 1 else ''} unknown")
    return f"Increase limit {_limits(g)}: FAILED — {', '.join(parts)}{_carried(g)}."


def increase_block(g: IncreaseGate) -> list[str]:
    """The causes first (a known increase over the limit), then what could not be established,
    then the known unknowns carried over (not failed)."""
    out = [increase_verdict(g)]
    over = [f for f in g.findings if f.gate is Gate.INCREASE and "allowed" in f.text]
    rest = [f for f in g.findings if f not in over]
    out += [f"  {f.text}" for f in over]
    if rest and over:
        out.append("  Also unknown, each a reason of its own:")
        out += [f"    {f.text}" for f in rest]
    else:
        out += [f"  {f.text}" for f in rest]
    if g.known_unknowns:
        out.append(
            "  Carried over, not failed: unknowns this change did not cause (docs/AUDIT.md, "
            "known unknowns):"
        )
        out += [f"    {f.text}" for f in g.known_unknowns]
    return out
