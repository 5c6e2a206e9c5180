"""The gates: budget, increase and unmeasured, judged per config (pure).

A context window belongs to one client, so every limit applies to each config file on its own,
never to a sum across files. Reasons for gates outside ``fail-on`` become warnings.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from mcpcost.action.outcome import ConfigDiff, Kind, Reason, Verdict


def fmt(n: int) -> str:
    return f"{n:,}"


def signed(n: int) -> str:
    return f"+{n:,}" if n > 0 else f"−{-n:,}" if n < 0 else "±0"


def budget_reasons(configs: Sequence[ConfigDiff], budget: int | None) -> Iterable[Reason]:
    if budget is None:
        return
    for c in configs:
        if c.head_total is not None and c.head_total > budget:
            yield Reason(
                gate="budget",
                source=c.source,
                text=f"{c.source}: {fmt(c.head_total)} tokens per request, over the "
                f"budget of {fmt(budget)} by {fmt(c.head_total - budget)}",
            )


def increase_reasons(
    configs: Sequence[ConfigDiff], limit: int | None, percent: float | None, compared: bool
) -> Iterable[Reason]:
    if not compared or (limit is None and percent is None):
        return
    for c in configs:
        delta = c.delta
        if delta is None or delta <= 0 or c.head_total is None:
            continue
        grew = max(
            (s for s in c.servers if (s.delta or 0) > 0), key=lambda s: s.delta or 0, default=None
        )
        server = grew.name if grew is not None else None
        line = grew.line if grew is not None else None
        if limit is not None and delta > limit:
            yield Reason(
                gate="increase",
                source=c.source,
                text=f"{c.source}: {signed(delta)} tokens per request, over the "
                f"{fmt(limit)} allowed",
                server=server,
                line=line,
            )
        if percent is not None:
            base = c.base_total or 0
            share = delta * 100.0 / base if base else None
            if share is None or share > percent:
                shown = f"{share:+.1f}%" if share is not None else "from an empty base"
                yield Reason(
                    gate="increase",
                    source=c.source,
                    text=f"{c.source}: {signed(delta)} tokens per request ({shown}), "
                    f"over the {percent:g}% allowed",
                    server=server,
                    line=line,
                )


def unmeasured_reasons(configs: Sequence[ConfigDiff], compared: bool) -> Iterable[Reason]:
    for c in configs:
        if c.problem is not None:
            yield Reason(
                gate="unmeasured", source=c.source, text=f"{c.source}: cannot be read: {c.problem}"
            )
        for s in c.servers:
            if s.kind is Kind.UNMEASURED:
                yield Reason(
                    gate="unmeasured",
                    source=c.source,
                    server=s.name,
                    line=s.line,
                    text=f"{c.source}: server {s.name} could not be measured "
                    f"({s.head_status}): {s.note or 'no detail'}",
                )
            elif s.kind is Kind.NEWLY_MEASURED and compared:
                yield Reason(
                    gate="unmeasured",
                    source=c.source,
                    server=s.name,
                    line=s.line,
                    text=f"{c.source}: server {s.name} was not measurable on base "
                    f"({s.base_status}), so its change is unknown",
                )
        if compared and c.head_total is None and c.base_total is not None:
            yield Reason(
                gate="unmeasured",
                source=c.source,
                text=f"{c.source}: present on base, gone on head; a config that "
                "disappeared is not one that got cheaper",
            )


def evaluate(
    configs: Sequence[ConfigDiff],
    *,
    fail_on: frozenset[str],
    budget: int | None,
    max_increase: int | None,
    max_increase_percent: float | None,
    compared: bool,
) -> Verdict:
    reasons = [
        *budget_reasons(configs, budget),
        *increase_reasons(configs, max_increase, max_increase_percent, compared),
        *unmeasured_reasons(configs, compared),
    ]
    return Verdict(
        failures=tuple(r for r in reasons if r.gate in fail_on),
        warnings=tuple(r for r in reasons if r.gate not in fail_on),
    )
