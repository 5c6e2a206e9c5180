"""The gate file's verdicts on a measured server and its committed snapshot. Pure: the gate
rules, each profile's check (``snapshot.check_profiles``) and, per profile, the client-lens
findings of the clients the gate file names, in; one ``GateFailure`` per reason out.

A rule that compares with the snapshot needs a committed profile of the same name; without one
the caller cannot run (exit 2), so no rule here passes for want of an answer. Budgets and counts
hold for every live profile. The growth limits bound growth only, unless ``limit-drops`` makes
them bound the size of a change either way (a large cut then needs a deliberate update too).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fnmatch import fnmatchcase
from typing import Any

from mcpcost.audit.model_view import LensFinding
from mcpcost.author.gate_file import Gates
from mcpcost.author.snapshot import ProfileCheck
from mcpcost.core.attribution import MoveKind
from mcpcost.core.plural import counted


class GateRule(StrEnum):
    """A rule of the gate file (its key), or the snapshot itself under ``--check``."""

    SNAPSHOT = "snapshot"  # the server no longer matches the committed snapshot
    MAX_TOTAL_TOKENS = "max-total-tokens"
    MAX_TOOL_COUNT = "max-tool-count"
    TOOL_BUDGETS = "tool-budgets"
    NO_NEW_TOOLS = "no-new-tools"
    NO_REMOVED_TOOLS = "no-removed-tools"
    MAX_GROWTH_TOKENS = "max-growth-tokens"
    MAX_GROWTH_PERCENT = "max-growth-percent"
    MAX_TOOL_GROWTH_TOKENS = "max-tool-growth-tokens"
    CLIENTS = "clients"


@dataclass(frozen=True, slots=True, kw_only=True)
class GateFailure:
    """One reason a rule said no: the profile and (when it is about one) the tool."""

    rule: GateRule
    profile: str
    tool: str | None
    message: str  # plain words; names are the server's: escape at the output's boundary

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "profile": self.profile,
            "tool": self.tool,
            "message": self.message,
        }


def _budget(gates: Gates, tool: str) -> tuple[str, int] | None:
    """The first budget whose glob matches the tool's name, in the file's order."""
    return next(((g, n) for g, n in gates.tool_budgets if fnmatchcase(tool, g)), None)


def _percent(before: int, after: int) -> float | None:
    return None if before == 0 else (after - before) * 100.0 / before


def _growth_failures(gates: Gates, check: ProfileCheck) -> list[GateFailure]:
    a = check.attribution
    if a is None:
        return []
    out: list[GateFailure] = []
    p = check.profile
    change = a.delta if not gates.limit_drops else abs(a.delta)
    if gates.max_growth_tokens is not None and change > gates.max_growth_tokens:
        out.append(
            GateFailure(
                rule=GateRule.MAX_GROWTH_TOKENS,
                profile=p,
                tool=None,
                message=f"the total moved {a.delta:+,} tokens ({a.total_before:,} -> "
                f"{a.total_after:,}); the limit is {gates.max_growth_tokens:,}",
            )
        )
    pct = _percent(a.total_before, a.total_after)
    if gates.max_growth_percent is not None and pct is not None:
        size = pct if not gates.limit_drops else abs(pct)
        if size > gates.max_growth_percent:
            out.append(
                GateFailure(
                    rule=GateRule.MAX_GROWTH_PERCENT,
                    profile=p,
                    tool=None,
                    message=f"the total moved {pct:+.1f}% ({a.total_before:,} -> "
                    f"{a.total_after:,}); the limit is {gates.max_growth_percent:g}%",
                )
            )
    if gates.max_tool_growth_tokens is not None:
        for m in (*a.moves, *a.below_floor):
            if m.kind in (MoveKind.ADDED, MoveKind.REMOVED):
                continue  # the structural rules and budgets speak for these
            size = m.delta if not gates.limit_drops else abs(m.delta)
            if size > gates.max_tool_growth_tokens:
                out.append(
                    GateFailure(
                        rule=GateRule.MAX_TOOL_GROWTH_TOKENS,
                        profile=p,
                        tool=m.name,
                        message=f"{m.name} moved {m.delta:+,} tokens ({m.tokens_before:,} -> "
                        f"{m.tokens_after:,}); the limit is {gates.max_tool_growth_tokens:,}",
                    )
                )
    if gates.no_new_tools:
        out += [
            GateFailure(
                rule=GateRule.NO_NEW_TOOLS,
                profile=p,
                tool=m.name,
                message=f"{m.name} is new ({counted(m.tokens_after or 0, 'token')})",
            )
            for m in a.of_kind(MoveKind.ADDED)
        ]
    if gates.no_removed_tools:
        out += [
            GateFailure(
                rule=GateRule.NO_REMOVED_TOOLS,
                profile=p,
                tool=m.name,
                message=f"{m.name} is gone ({counted(m.tokens_before or 0, 'token')} before)",
            )
            for m in a.of_kind(MoveKind.REMOVED)
        ]
    return out


def evaluate_gates(
    gates: Gates,
    checks: Sequence[ProfileCheck],
    client_findings: Mapping[str, Sequence[tuple[str, LensFinding]]],
) -> tuple[GateFailure, ...]:
    """Every reason the gate file's rules say no (empty: they pass). ``client_findings``: per
    profile, (the client's label, a finding) for the clients the gates name; only a finding
    that cuts, drops or rejects fails (a rename or a hidden app-only tool does not)."""
    out: list[GateFailure] = []
    for check in checks:
        live = check.live
        if live is None:
            continue
        p = check.profile
        if gates.max_total_tokens is not None and live.total_tokens > gates.max_total_tokens:
            out.append(
                GateFailure(
                    rule=GateRule.MAX_TOTAL_TOKENS,
                    profile=p,
                    tool=None,
                    message=f"{live.total_tokens:,} tokens; the budget is "
                    f"{gates.max_total_tokens:,}",
                )
            )
        if gates.max_tool_count is not None and live.tool_count > gates.max_tool_count:
            out.append(
                GateFailure(
                    rule=GateRule.MAX_TOOL_COUNT,
                    profile=p,
                    tool=None,
                    message=f"{counted(live.tool_count, 'tool')}; at most "
                    f"{gates.max_tool_count:,} allowed",
                )
            )
        for t in live.tools:
            budget = _budget(gates, t.name)
            if budget is not None and t.tokens > budget[1]:
                out.append(
                    GateFailure(
                        rule=GateRule.TOOL_BUDGETS,
                        profile=p,
                        tool=t.name,
                        message=f"{t.name}: {t.tokens:,} tokens; its budget ({budget[0]}) is "
                        f"{budget[1]:,}",
                    )
                )
        out += _growth_failures(gates, check)
        for who, f in client_findings.get(p, ()):
            if not f.effect.breaks:
                continue
            where = f.tool if f.tool is not None else "the server"
            out.append(
                GateFailure(
                    rule=GateRule.CLIENTS,
                    profile=p,
                    tool=f.tool,
                    message=f"{who} {f.effect} {where}: {f.rule} "
                    f"(limit {f.limit}, actual {f.actual}; {f.confidence}, {f.source})",
                )
            )
    return tuple(out)
