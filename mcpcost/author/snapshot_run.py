"""What ``mcpcost snapshot`` found, and that outcome as text, JSON, Markdown and SARIF. Pure:
an ``SnapshotRun`` in, text out. Names come from the server: text lines pass ``terminal_line`` at
the command's edge, Markdown passes ``escaping.markdown``, JSON and SARIF are data.

The configuration range: with more than one profile the outcome names the cheapest and the
dearest (``ProfileRange``), as ``1.9k-8.4k tokens`` with the profile at each end.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mcpcost.author.budget_gates import GateFailure, GateRule
from mcpcost.author.fixes import Fix
from mcpcost.author.snapshot import ProfileCheck, ProfileSnapshot
from mcpcost.core.attribution import attribution_lines, attribution_markdown, move_words
from mcpcost.core.badge import compact_thousands as thousands
from mcpcost.core.badge import render_range_badge
from mcpcost.core.digest import sha256_hex
from mcpcost.core.jsonvalue import stringify_pretty
from mcpcost.core.plural import counted
from mcpcost.escaping.markdown import code_span, md_text
from mcpcost.version import __version__


@dataclass(frozen=True, slots=True, kw_only=True)
class ProfileRange:
    """The cheapest and the dearest profile (the first in the file's order on a tie)."""

    low: ProfileSnapshot
    high: ProfileSnapshot

    @property
    def words(self) -> str:
        return (
            f"{thousands(self.low.total_tokens)}-{thousands(self.high.total_tokens)} tokens "
            f"({self.low.profile} - {self.high.profile})"
        )

    @property
    def badge(self) -> str:
        """The shields.io endpoint JSON of the range."""
        return render_range_badge(self.low.total_tokens, self.high.total_tokens)

    def to_dict(self) -> dict[str, Any]:
        return {
            "low": {"profile": self.low.profile, "totalTokens": self.low.total_tokens},
            "high": {"profile": self.high.profile, "totalTokens": self.high.total_tokens},
            "text": self.words,
        }


def profile_range(profiles: Sequence[ProfileSnapshot]) -> ProfileRange | None:
    """The range over two or more profiles (None with fewer)."""
    if len(profiles) < 2:
        return None
    low = min(profiles, key=lambda p: p.total_tokens)
    high = max(profiles, key=lambda p: p.total_tokens)
    return ProfileRange(low=low, high=high)


@dataclass(frozen=True, slots=True, kw_only=True)
class SnapshotRun:
    """One run of ``mcpcost snapshot``: the file, each profile's check, the gates' verdict.
    ``checking``: ``--check`` (a mismatch fails); ``failures``: the gates' reasons plus, under
    ``--check``, one ``snapshot`` failure per profile that no longer matches."""

    snapshot_path: str
    checks: tuple[ProfileCheck, ...]
    failures: tuple[GateFailure, ...]
    checking: bool
    gates_run: bool
    fixes: tuple[tuple[str, Fix], ...] = ()  # (profile, fix) with --fixes

    @property
    def matches(self) -> bool:
        return all(c.matches for c in self.checks)

    @property
    def passed(self) -> bool:
        return not self.failures

    @property
    def range(self) -> ProfileRange | None:
        return profile_range([c.live for c in self.checks if c.live is not None])


def mismatch_failures(checks: Sequence[ProfileCheck]) -> tuple[GateFailure, ...]:
    """Under ``--check``: one failure per profile that no longer matches its snapshot."""
    out: list[GateFailure] = []
    for c in checks:
        if c.matches:
            continue
        if c.committed is None:
            why = "a profile the snapshot does not have"
        elif c.live is None:
            why = "a profile in the snapshot that was not measured"
        else:
            why = "the server no longer matches the snapshot"
        out.append(GateFailure(rule=GateRule.SNAPSHOT, profile=c.profile, tool=None, message=why))
    return tuple(out)


def _side_lines(c: ProfileCheck) -> list[str]:
    """What moved besides the tools: instructions and listings."""
    out: list[str] = []
    if c.instructions is not None:
        a, b = c.instructions
        out.append(f"instructions {a or 0:,} -> {counted(b or 0, 'token')}")
    for kind, was, now in c.listings:
        before = "none" if was is None else f"{was.count} ({was.tokens:,} tokens)"
        after = "none" if now is None else f"{now.count} ({now.tokens:,} tokens)"
        out.append(f"{kind.words} {before} -> {after}")
    return out


def text_lines(o: SnapshotRun) -> list[str]:
    """The outcome as plain lines (the command escapes each for the terminal)."""
    lines: list[str] = []
    for c in o.checks:
        head = f"profile {c.profile}"
        if c.live is not None:
            head += f": {c.live.server}, {counted(c.live.total_tokens, 'token')}, "
            head += counted(c.live.tool_count, "tool")
        if c.committed is None:
            lines.append(f"{head} (not in {o.snapshot_path})")
            continue
        if c.live is None:
            lines.append(f"{head}: in {o.snapshot_path}, not measured")
            continue
        if c.matches:
            lines.append(f"{head}: matches {o.snapshot_path}")
            continue
        lines.append(f"{head}: differs from {o.snapshot_path}")
        if c.attribution is not None:
            lines += [f"  {line}" for line in attribution_lines(c.attribution)]
        lines += [f"  {line}" for line in _side_lines(c)]
    r = o.range
    if r is not None:
        lines.append(f"range: {r.words}")
    for f in o.failures:
        lines.append(f"FAIL {f.rule} [{f.profile}]: {f.message}")
    if o.gates_run or o.checking:
        lines.append("gates: pass" if o.passed else f"gates: {counted(len(o.failures), 'failure')}")
    for profile, fix in o.fixes:
        lines.append(
            f"fix [{profile}] {fix.kind}: saves {counted(fix.saving, 'token')} "
            f"({fix.before:,} -> {fix.after:,}) in {', '.join(fix.tools)}: {fix.detail}"
        )
        lines += [f"  {client}: saves {n:,} up front" for client, n in fix.per_client if n]
    if not o.matches:
        lines.append("record the change with: mcpcost snapshot --update")
    return lines


def outcome_dict(o: SnapshotRun) -> dict[str, Any]:
    """The ``--format json`` object."""
    profiles = []
    for c in o.checks:
        profiles.append(
            {
                "profile": c.profile,
                "matches": c.matches,
                "committed": None
                if c.committed is None
                else {"totalTokens": c.committed.total_tokens, "toolCount": c.committed.tool_count},
                "live": None
                if c.live is None
                else {
                    "server": c.live.server,
                    "totalTokens": c.live.total_tokens,
                    "toolCount": c.live.tool_count,
                    "canonicalSha256": c.live.canonical_sha256,
                },
                "attribution": None if c.attribution is None else c.attribution.to_dict(),
                "instructions": None
                if c.instructions is None
                else {"before": c.instructions[0], "after": c.instructions[1]},
                "listings": [
                    {
                        "kind": str(kind),
                        "before": None if was is None else was.to_dict(),
                        "after": None if now is None else now.to_dict(),
                    }
                    for kind, was, now in c.listings
                ],
            }
        )
    r = o.range
    return {
        "snapshot": o.snapshot_path,
        "matches": o.matches,
        "passed": o.passed,
        "profiles": profiles,
        "range": None if r is None else r.to_dict(),
        "failures": [f.to_dict() for f in o.failures],
        "fixes": [{"profile": p, **f.to_dict()} for p, f in o.fixes],
    }


def render_json(o: SnapshotRun) -> str:
    return stringify_pretty(outcome_dict(o)) + "\n"


def markdown_lines(o: SnapshotRun) -> list[str]:
    """The outcome as Markdown: per profile its attribution table, then the range and the
    gates' verdict (a PR comment or a job summary can carry these lines as they are)."""
    lines: list[str] = []
    for c in o.checks:
        name = f"profile {c.profile}"
        if c.matches and c.live is not None:
            lines.append(
                f"**{md_text(name)}**: {c.live.total_tokens:,} tokens, "
                f"{counted(c.live.tool_count, 'tool')}, matches the snapshot"
            )
        elif c.attribution is not None:
            lines += attribution_markdown(c.attribution, title=md_text(name))
            lines += [md_text(line) for line in _side_lines(c)]
        else:
            lines.append(f"**{md_text(name)}**: only on one side (committed or measured)")
        lines.append("")
    r = o.range
    if r is not None:
        lines += [f"Range: {md_text(r.words)}", ""]
    if o.failures:
        lines.append("| gate | profile | tool | why |")
        lines.append("|---|---|---|---|")
        lines += [
            f"| {f.rule} | {md_text(f.profile)} | {code_span(f.tool) if f.tool else ''} | "
            f"{md_text(f.message)} |"
            for f in o.failures
        ]
    elif o.gates_run or o.checking:
        lines.append("Gates: pass")
    return lines


# ---------------------------------------------------------------- SARIF

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
RULE_PREFIX = "mcpcost/author/"
_RULE_TEXT = {
    GateRule.SNAPSHOT: "The server no longer matches its committed snapshot",
    GateRule.MAX_TOTAL_TOKENS: "A profile's tool definitions exceed the total budget",
    GateRule.MAX_TOOL_COUNT: "A profile has more tools than allowed",
    GateRule.TOOL_BUDGETS: "A tool's definition exceeds its budget",
    GateRule.NO_NEW_TOOLS: "A tool was added",
    GateRule.NO_REMOVED_TOOLS: "A tool was removed",
    GateRule.MAX_GROWTH_TOKENS: "The total grew by more tokens than allowed",
    GateRule.MAX_GROWTH_PERCENT: "The total grew by a larger share than allowed",
    GateRule.MAX_TOOL_GROWTH_TOKENS: "A tool grew by more tokens than allowed",
    GateRule.CLIENTS: "A client would cut, drop or reject part of the server",
}


def _move_failures(o: SnapshotRun) -> list[GateFailure]:
    """Under ``--check``, each called-out move as its own result (on the tool's line)."""
    out: list[GateFailure] = []
    for c in o.checks:
        if c.attribution is None or c.matches:
            continue
        out += [
            GateFailure(
                rule=GateRule.SNAPSHOT, profile=c.profile, tool=m.name, message=move_words(m)
            )
            for m in c.attribution.moves
        ]
    return out


def sarif_log(
    o: SnapshotRun, lines: Mapping[tuple[str, str], int], profile_lines: Mapping[str, int]
) -> dict[str, Any]:
    """SARIF 2.1.0: each failure (and, under ``--check``, each move) at the snapshot's line of
    the tool's entry (``lines``: by profile and tool), else at its profile's line."""
    rules = [
        {
            "id": RULE_PREFIX + str(rule),
            "name": "".join(part.title() for part in str(rule).split("-")),
            "shortDescription": {"text": text},
            "defaultConfiguration": {"level": "error"},
        }
        for rule, text in _RULE_TEXT.items()
    ]
    index = {r["id"]: i for i, r in enumerate(rules)}
    found = list(o.failures)
    if o.checking:
        found += _move_failures(o)
    results = []
    for f in found:
        rule = RULE_PREFIX + str(f.rule)
        line = lines.get((f.profile, f.tool or ""), profile_lines.get(f.profile, 1))
        ident = "\n".join((str(f.rule), f.profile, f.tool or "", f.message))
        results.append(
            {
                "ruleId": rule,
                "ruleIndex": index[rule],
                "level": "error",
                "message": {"text": f"[{f.profile}] {f.message}"},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": o.snapshot_path},
                            "region": {"startLine": max(1, line)},
                        }
                    }
                ],
                "partialFingerprints": {"mcpcostAuthor/v1": sha256_hex(ident.encode("utf-8"))},
            }
        )
    run = {
        "tool": {"driver": {"name": "mcp-context-cost", "version": __version__, "rules": rules}},
        "results": results,
    }
    return {"$schema": SARIF_SCHEMA_URI, "version": SARIF_VERSION, "runs": [run]}
