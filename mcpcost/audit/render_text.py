"""Human audit output: ``render_text(report, diff=None, gates=None) -> str``.

Layout (after the reference's, adapted): a header line; per config the server table (tools,
tokens, share, session-start cost, the Claude column with ``--claude``), the total, the share of
the context window, the deferral block (once per session), heaviest tools, trim advice, what was
not measured and why, switched-off servers; then configs without live servers, unresolved
references, problems, the budget, the baseline diff and the increase gate, and a two-line footer.
Column widths follow the content; signed numbers use a real minus sign. Every line passes
``mcpcost.core.terminal.terminal_line`` on the way out: a name, note or path from a config or a
server cannot carry a control sequence, a bidi override or a line break into the terminal.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence

from mcpcost.audit.deferral import (
    BASE_URL,
    DOCUMENTED_VALUES,
    PUBLISHED_BAND,
    SHELL_SOURCE,
    DeferralVerdict,
    upfront_tokens,
)
from mcpcost.audit.diff import AuditDiff, ConfigDiff
from mcpcost.audit.gates import BudgetFit, BudgetVerdict, Gate, GateResult, IncreaseGate
from mcpcost.audit.report import AuditReport, ConfigResult, ServerResult, SessionResult
from mcpcost.core.model import METHODOLOGY_URL
from mcpcost.core.terminal import terminal_line

RULE = "─"
DEFAULT_WIDTH = 100  # when the terminal's width is not known
MIN_WIDTH = 60


def n(value: int) -> str:
    return f"{value:,}"


def signed(value: int) -> str:
    return f"+{value:,}" if value > 0 else (f"−{-value:,}" if value < 0 else "±0")


def pct(share: float) -> str:
    return f"{share * 100:.1f}%"


def _table(rows: Sequence[Sequence[str]], right: Sequence[bool], indent: str = "  ") -> list[str]:
    rows = [[terminal_line(c) for c in r] for r in rows]  # widths of what is shown
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for r in rows:
        cells = [
            c.rjust(w) if right[i] else c.ljust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ]
        out.append((indent + "  ".join(cells)).rstrip())
    return out


def _session(s: ServerResult) -> str:
    ss = s.session_start
    if ss is None:
        return "—"
    return f"≥{n(ss.total)}" if ss.is_floor else n(ss.total)


def server_table(c: ConfigResult, claude: bool) -> list[str]:
    head = ["server", "tools", "tokens", "share", "start"] + (["claude"] if claude else [])
    rows: list[list[str]] = [head]
    for s in c.servers:
        row = [s.name, n(s.tool_count or 0), n(s.tokens or 0), pct(s.share or 0.0), _session(s)]
        if claude:
            row.append(n(s.claude_tokens) if s.claude_tokens is not None else "—")
        rows.append(row)
    total = ["total", n(c.tool_count), n(c.total_tokens), "", ""] + ([""] if claude else [])
    right = [False] + [True] * (len(head) - 1)
    lines = _table([*rows, total], right)
    width = max(len(x) for x in lines) - 2
    return [*lines[:-1], "  " + RULE * width, lines[-1]]


def _where_read(v: DeferralVerdict) -> list[str]:
    st = v.setting
    if st is None:
        return []
    out = [
        "  Where this was read (Claude Code takes these variables from the shell it starts in "
        "and from the env block of its own settings files):",
    ]
    absent = 0
    for src in st.sources:
        place = "this shell" if src.source == SHELL_SOURCE else src.source
        mark = "  ← decides" if st.source is not None and src.source == st.source else ""
        if src.state == "absent":
            absent += 1
            continue
        if src.state == "unreadable":
            out.append(f"    {place} — could not be read{mark}")
            continue
        sets = [x for x in src.sets if x not in src.unreadable]
        parts = []
        if sets:
            parts.append("sets " + ", ".join(sets))
        if src.unreadable:
            parts.append("sets " + ", ".join(src.unreadable) + " to something that is not a string")
        out.append(f"    {place} — {'; '.join(parts) if parts else 'sets none of them'}{mark}")
    if absent:
        out.append(f"    {absent} other settings file(s) it reads are not on this machine")
    if not st.settings_read:
        out.append("    warning: Claude Code's settings files were not read in this run")
    return out


def _exceptions(v: DeferralVerdict) -> list[str]:
    out = ["  The full number is paid where deferral does not apply:"]
    out += [f"    {e}" for e in v.exceptions]
    al = v.always_load
    if al.servers or al.unmeasured:
        names = ", ".join((*al.servers, *al.unmeasured))
        floor = "at least " if al.unmeasured else ""
        out.append(
            f'  Pinned "alwaysLoad": true in this config: {names} — {floor}{n(al.tokens)} '
            "tokens load at session start regardless."
        )
    else:
        out.append('  No server in this config is pinned "alwaysLoad": true.')
    return out


def deferral_block(v: DeferralVerdict, context_window: int) -> list[str]:
    out: list[str] = []
    if v.mode == "client-unknown":
        out.append(
            "  The client reading this file is not known (--config), so these tokens are read "
            "as loaded up front on every request."
        )
        return out
    if v.mode == "no-deferral-on-record":
        out.append(
            f"  No default deferral is on record for {v.client}, so every request carries these "
            "tokens before you type anything — an absence of a record about the client, not a "
            "measurement of it."
        )
        return out
    st = v.setting
    assert st is not None
    where = st.source if st.source and st.source != SHELL_SOURCE else "this shell"
    if v.mode == "setting-unresolved":
        if st.unresolved == "sources-disagree":
            why = f"{st.variable} is set to different values in this shell and in {st.source}"
        elif st.unresolved == "value-unreadable":
            why = f"{st.variable} is set in {st.source} to something that is not a string"
        else:
            why = f"{st.source} exists and could not be read"
        out.append(
            f"  {why}; whether {v.client} defers these tokens cannot be said from this machine."
        )
    elif v.mode == "setting-unrecognized":
        out.append(
            f"  {st.variable}={st.value} (read from {where}) is not a documented value "
            f"({', '.join(DOCUMENTED_VALUES)}), so nothing is claimed from it."
        )
    elif v.mode == "loads-upfront":
        if st.variable == BASE_URL:
            why = f"{BASE_URL} points at {st.value}"
        else:
            why = f"{st.variable}={st.value}"
        out.append(
            f"  {v.client} loads every tool definition up front here: tool search is off because "
            f"{why} (read from {where}). Every request carries these tokens."
        )
    elif v.mode == "defers-all":
        how = (
            f"{st.variable}={st.value} (read from {where})"
            if st.read_from_machine
            else "ENABLE_TOOL_SEARCH is unset here, which is the documented default"
        )
        out.append(
            f"  {v.client} defers every MCP tool definition (tool search), with no threshold — "
            f"{how}. These tokens are NOT loaded up front at any size; they load when the model "
            "reaches for a tool. Size decides nothing here."
        )
        out += _exceptions(v)
    elif v.mode == "threshold":
        out += _threshold(v, where)
    out += _where_read(v)
    return out


def _threshold(v: DeferralVerdict, where: str) -> list[str]:
    st = v.setting
    assert st is not None and v.threshold_tokens is not None and v.threshold_share is not None
    out = [
        f"  {v.client} defers tool definitions only once they reach {n(v.threshold_tokens)} tokens "
        f"({pct(v.threshold_share)} of the context window; {st.variable}={st.value}, read from "
        f"{where}).",
    ]
    wire = ("at least " if v.is_floor else "") + n(v.wire_tokens)
    out.append(f"  This session's wire total is {wire} tokens (o200k).")
    ct, band = v.client_tokens, v.ratio or PUBLISHED_BAND
    if ct is None:
        out.append(
            "  Its size in request tokens cannot be stated, so no side of the threshold is claimed."
        )
        return out
    if ct["estimated"] == 0:
        out.append(f"  Counted exactly for Anthropic requests: {n(ct['low'])} tokens.")
    else:
        out.append(
            f"  In request tokens that is {n(ct['low'])}–{n(ct['high'])} "
            f"(measured ratios {band.low:.2f}×–{band.high:.2f}× across {band.servers} servers)."
        )
    if v.crosses is True:
        out.append("  That is at or above the threshold: these definitions are deferred.")
        out += _exceptions(v)
    elif v.crosses is False:
        out.append("  That is under the threshold: every request carries these tokens.")
    else:
        reasons = []
        if v.is_floor:
            reasons.append("some servers could not be measured")
        if ct["high"] >= v.threshold_tokens > ct["low"]:
            reasons.append("the range straddles the threshold")
        out.append(f"  Which side it falls on cannot be said: {'; '.join(reasons)}.")
        if ct["estimated"]:
            out.append(
                "  --claude with a published divergence run can replace estimates with exact counts."
            )
    return out


def config_block(c: ConfigResult, report: AuditReport, shown: set[int]) -> list[str]:
    claude = report.claude_divergence is not None
    out = [f"{c.client}  {c.source}"]
    if c.servers:
        out += server_table(c, claude)
        out.append("")
    floor = "at least " if c.skipped else ""
    out.append(
        f"  {floor}{n(c.total_tokens)} tokens of tool schemas — {pct(c.context_share)} of a "
        f"{n(report.context_window)}-token context window."
    )
    if c.deferral is not None and id(c.deferral) not in shown:
        shown.add(id(c.deferral))
        out += deferral_block(c.deferral, report.context_window)
        up = upfront_tokens(c.deferral)
        if up is not None and c.deferral.mode not in ("no-deferral-on-record", "client-unknown"):
            out.append(f"  Loaded up front on every request: {n(up)} tokens.")
    elif c.deferral is not None:
        out.append(f"  (deferral: see {c.deferral.sources[0]} above — one session)")
    if c.heaviest_tools:
        out += ["", "  heaviest tools"]
        rows = [[f"{h.server} · {h.tool}", n(h.tokens)] for h in c.heaviest_tools]
        out += _table(rows, [False, True], indent="    ")
    if c.trim_advice:
        t = c.trim_advice
        names = ", ".join(f"{h.server}·{h.tool}" for h in t.tools)
        out += [
            "",
            f"  trim: disabling {len(t.tools)} tools ({names}) would recover "
            f"{n(t.recoverable_tokens)} tokens ({pct(t.recoverable_share)} of this config) — if "
            "your client supports per-tool filtering.",
        ]
    if c.skipped:
        out += ["", "  not measured"]
        rows = [[s.name, f"{s.status} — {s.notes or 'no detail'}"] for s in c.skipped]
        out += _table(rows, [False, False], indent="    ")
    notes = [(s.name, note) for s in (*c.servers, *c.skipped) for note in s.config_notes]
    if notes:
        out += ["", "  notes"] + [f"    {name}: {note}" for name, note in notes]
    if c.disabled:
        out += ["", f"  switched off: {', '.join(_with_reasons(c.disabled, c.disabled_reasons))}"]
    return out


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
        out.append(f"      drop {step.name} (−{n(step.tokens)}) → {n(step.remaining)}, {state}")
    if not fit.feasible:
        out.append(
            f"    No subset fits: with every measured server dropped, {n(fit.kept_tokens)} "
            "tokens remain."
        )
    elif fit.kept_count == 0:
        out.append("    Only dropping every server gets under the budget.")
    return out


def budget_verdict(b: BudgetVerdict) -> str:
    """The budget gate in one sentence (the summary's line)."""
    if b.worst_total is None:
        return f"Budget {n(b.limit)}: cannot be judged, because no server was measured."
    over, unknown = b.over_sessions, b.unestablished_sessions
    if b.passed:
        return (
            f"Budget {n(b.limit)}: every session fits; the heaviest, {b.worst_session}, has "
            f"{n(b.limit - b.worst_total)} tokens to spare."
        )
    parts = []
    if over:
        names = ", ".join(f"{s.label} at {n(s.total)}" for s in over)
        parts.append(f"{len(over)} session{'s' if len(over) != 1 else ''} over: {names}")
    if unknown:
        parts.append(f"{len(unknown)} cannot be judged")
    return f"Budget {n(b.limit)}: FAILED — {'; '.join(parts)}."


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
        out.append(f"    no baseline config to compare its {n(c.after_total)} tokens with")
        return out
    out.append(f"    {n(c.before_total)}  →  {n(c.after_total)}   {signed(c.delta)}")
    changed = [s for s in c.servers if s.kind != "unchanged"]
    if changed:
        rows = [
            [
                s.kind,
                s.name,
                "—" if s.before is None else n(s.before),
                "→",
                "—" if s.after is None else n(s.after),
                "" if s.delta is None else signed(s.delta),
            ]
            for s in changed
        ]
        out += _table(rows, [False, False, True, False, True, True], indent="    ")
    unchanged = len(c.servers) - len(changed)
    if unchanged:
        out.append(f"    ({unchanged} server{'s' if unchanged != 1 else ''} unchanged)")
    where = "this client" if c.client == "explicit" else c.client
    if not c.exact:
        out.append(
            "    Not a clean comparison: the measured total moved "
            f"{signed(c.delta)}, but that is not what your config did."
        )
        for s in c.servers:
            if s.note and s.kind != "removed":
                out.append(f"      {s.name}: {s.note}")
        if c.understated_by:
            out.append(
                f"      → true cost is at least {n(c.understated_by)} higher than the "
                f"{n(c.after_total)} measured now."
            )
        if c.overstated_by:
            out.append(
                f"      → up to {n(c.overstated_by)} was already being paid in the baseline."
            )
    elif c.delta == 0:
        out.append("    No change to what every request carries.")
    elif c.delta > 0:
        out.append(
            f"    This change adds {n(c.delta)} tokens to every request in {where} — "
            f"{pct(c.before_share or 0)} → {pct(c.after_share)} of a {n(context_window)}-token context window."
        )
    else:
        out.append(f"    This change removes {n(-c.delta)} tokens from every request in {where}.")
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
            f"  {dropped.source}: in the baseline ({n(dropped.total_tokens)} tokens), not found now"
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
        parts.append(f"{n(g.limit)} tokens")
    if g.limit_percent is not None:
        parts.append(f"{g.limit_percent:g}%")
    return " and ".join(parts)


def increase_verdict(g: IncreaseGate) -> str:
    """The increase gate in one sentence (the summary's line)."""
    if g.passed:
        grew = (
            "nothing grew"
            if g.increase is None or g.increase <= 0
            else f"the largest increase is {signed(g.increase)} tokens"
        )
        return f"Increase limit {_limits(g)}: passed; {grew}."
    causes = sum(1 for f in g.findings if f.gate is Gate.INCREASE and f.server is None)
    unknown = len(g.findings) - causes
    parts = []
    if causes:
        parts.append(f"{causes} over the limit")
    if unknown:
        parts.append(f"{unknown} change{'s' if unknown != 1 else ''} unknown")
    return f"Increase limit {_limits(g)}: FAILED — {', '.join(parts)}."


def increase_block(g: IncreaseGate) -> list[str]:
    """The causes first (a known increase over the limit), then what could not be established."""
    out = [increase_verdict(g)]
    over = [f for f in g.findings if f.gate is Gate.INCREASE and "allowed" in f.text]
    rest = [f for f in g.findings if f not in over]
    out += [f"  {f.text}" for f in over]
    if rest and over:
        out.append("  Also unknown, each a reason of its own:")
        out += [f"    {f.text}" for f in rest]
    else:
        out += [f"  {f.text}" for f in rest]
    return out


# --------------------------------------------------------------------- sessions


def _files(sources: Sequence[str]) -> dict[str, str]:
    return {src: str(i) for i, src in enumerate(sources, start=1)}


def session_table(s: SessionResult, claude: bool, numbered: Mapping[str, str]) -> list[str]:
    many = len(numbered) > 1
    head = ["server", "tools", "tokens", "share", "start"]
    head += (["claude"] if claude else []) + (["from"] if many else [])
    rows: list[list[str]] = [head]
    for e in s.servers:
        v = e.server
        row = [v.name, n(v.tool_count or 0), n(v.tokens or 0), pct(v.share or 0.0), _session(v)]
        if claude:
            row.append(n(v.claude_tokens) if v.claude_tokens is not None else "—")
        if many:
            row.append(numbered[e.source])
        rows.append(row)
    total = ["total", n(s.tool_count), n(s.total_tokens)] + [""] * (len(head) - 3)
    right = [False] + [True] * (len(head) - 1)
    lines = _table([*rows, total], right)
    width = max(len(x) for x in lines) - 2
    return [*lines[:-1], "  " + RULE * width, lines[-1]]


def _cut(text: str, width: int) -> str:
    """One line of at most ``width`` characters (a cut one ends in "…"; --json has it whole)."""
    return text if len(text) <= width else text[: width - 1] + "…"


def session_block(
    s: SessionResult,
    report: AuditReport,
    by_file: Mapping[tuple[str, str], ConfigResult],
    width: int,
) -> list[str]:
    claude = report.claude_divergence is not None
    numbered = _files(s.sources)
    floor = "at least " if s.skipped else ""
    count = f"{s.server_count} server{'s' if s.server_count != 1 else ''}"
    files = f"{len(s.sources)} file{'s' if len(s.sources) != 1 else ''}"
    out = [f"{s.label} — {floor}{n(s.total_tokens)} tokens · {count} measured · {files}"]
    if len(s.sources) == 1:
        out.append(f"  file: {s.sources[0]}")
    else:
        scope = {
            src: by_file[(s.client, src)].scope for src in s.sources if (s.client, src) in by_file
        }
        out += [f"  [{numbered[src]}] {src} ({scope.get(src, '?')})" for src in s.sources]
    if s.servers:
        out += session_table(s, claude, numbered)
        out.append("")
    out.append(
        f"  {floor}{n(s.total_tokens)} tokens of tool schemas — {pct(s.context_share)} of a "
        f"{n(report.context_window)}-token context window."
    )
    if s.deferral is not None:
        out += deferral_block(s.deferral, report.context_window)
        up = upfront_tokens(s.deferral)
        if up is not None and s.deferral.mode not in ("no-deferral-on-record", "client-unknown"):
            out.append(f"  Loaded up front on every request: {n(up)} tokens.")

    def tag(source: str) -> str:
        return f" [{numbered[source]}]" if len(s.sources) > 1 else ""

    if s.overridden:
        out += ["", "  declared twice, loaded once"]
        out += [f"    {o.name}{tag(o.source)}: not loaded — {o.why}" for o in s.overridden]
        if s.precedence_source:
            out.append(f"    (source: {s.precedence_source})")
    if s.heaviest_tools:
        out += ["", "  heaviest tools"]
        rows = [[f"{h.server} · {h.tool}", n(h.tokens)] for h in s.heaviest_tools]
        out += _table(rows, [False, True], indent="    ")
    if s.trim_advice:
        t = s.trim_advice
        names = ", ".join(f"{h.server}·{h.tool}" for h in t.tools)
        out += [
            "",
            f"  trim: disabling {len(t.tools)} tools ({names}) would recover "
            f"{n(t.recoverable_tokens)} tokens ({pct(t.recoverable_share)} of this session) — if "
            "your client supports per-tool filtering.",
        ]
    if s.skipped:
        out += ["", "  not measured"]
        for e in s.skipped:
            v = e.server
            line = f"    {v.name}{tag(e.source)}: {v.status} — {v.notes or 'no detail'}"
            out.append(_cut(line, width))
    notes = [
        (e.server.name, e.source, note)
        for e in (*s.servers, *s.skipped)
        for note in e.server.config_notes
    ]
    if notes:
        out += ["", "  notes"] + [f"    {name}{tag(src)}: {note}" for name, src, note in notes]
    off = [
        (name, src)
        for src in s.sources
        if (s.client, src) in by_file
        for name in _with_reasons(
            by_file[(s.client, src)].disabled, by_file[(s.client, src)].disabled_reasons
        )
    ]
    if off:
        out += ["", "  switched off: " + ", ".join(f"{name}{tag(src)}" for name, src in off)]
    return out


def summary_block(report: AuditReport, gates: GateResult | None, by_file: bool) -> list[str]:
    """A few lines before the detail: sessions, servers, the heaviest session, gate verdicts."""
    measured = {(e.source, e.server.name) for s in report.sessions for e in s.servers}
    unmeasured = {(e.source, e.server.name) for s in report.sessions for e in s.skipped}
    count = len(report.sessions)
    out = [
        f"{count} client session{'s' if count != 1 else ''} from {len(report.configs)} config "
        f"file{'s' if len(report.configs) != 1 else ''}; {len(measured)} server"
        f"{'s' if len(measured) != 1 else ''} measured, {len(unmeasured)} not."
    ]
    if report.sessions:
        top = report.sessions[0]
        floor = "at least " if top.skipped else ""
        up = upfront_tokens(top.deferral) if top.deferral is not None else None
        if up is None or up == top.total_tokens:
            paid = ""
        elif up == 0:
            paid = "; the client defers them all"
        else:
            paid = f"; {n(up)} of them load up front on every request"
        out.append(
            f"Heaviest session: {top.label}, {floor}{n(top.total_tokens)} tokens of tool "
            f"definitions ({pct(top.context_share)} of the context window){paid}."
        )
    if gates is not None and gates.budget is not None:
        out.append(budget_verdict(gates.budget))
    if gates is not None and gates.increase is not None:
        out.append(increase_verdict(gates.increase))
    if by_file:
        out.append("Below: each config file on its own (--by-file); sessions add them up.")
    return out


LEGEND = (
    "Columns: tools = tools the server lists; tokens = its tool definitions in "
    "{encoding} tokens; share = of the {unit} total; start = what it costs at session start "
    "even when definitions are deferred (tool names and instructions; ≥ when only partly "
    "known){claude}{source}. Long notes are cut to the width; --json has them whole."
)


def legend(report: AuditReport, by_file: bool) -> str:
    claude = (
        "; claude = Anthropic request tokens, from the run named below"
        if (report.claude_divergence is not None)
        else ""
    )
    source = "" if by_file else "; from = the file that declares it, numbered above the table"
    return LEGEND.format(
        encoding=report.encoding,
        unit="config's" if by_file else "session's",
        claude=claude,
        source=source,
    )


def fit_width(lines: Sequence[str], width: int) -> list[str]:
    """Every line within ``width``: prose wraps under its own indent (plus two), table rows and
    rules are cut."""
    out: list[str] = []
    for line in lines:
        if len(line) <= width:
            out.append(line)
            continue
        indent = line[: len(line) - len(line.lstrip(" "))]
        body = line.strip()
        if RULE in body or "  " in body:  # a table row or a rule: one line, cut
            out.append(_cut(line, width))
            continue
        out += textwrap.wrap(
            body,
            width=width,
            initial_indent=indent,
            subsequent_indent=indent + "  ",
            break_long_words=False,  # a path or URL stays whole, even past the width
            break_on_hyphens=False,
        )
    return out


def render_text(
    report: AuditReport,
    diff: AuditDiff | None = None,
    gates: GateResult | None = None,
    *,
    width: int = DEFAULT_WIDTH,
    by_file: bool = False,
) -> str:
    """The human report (stdout): a summary, then one block per client session (``by_file``:
    per config file), then what was not audited, the gates and the diff, within ``width``."""
    width = max(width, MIN_WIDTH)
    out = [
        f"mcp-context-cost audit · methodology {report.methodology_version} · {report.encoding} · "
        f"context window {n(report.context_window)}",
        "",
        *summary_block(report, gates, by_file),
        "",
        legend(report, by_file),
    ]
    files = {(c.client, c.source): c for c in report.configs}
    if by_file:
        shown: set[int] = set()
        for c in report.configs:
            out.append("")
            out += config_block(c, report, shown)
    else:
        for s in report.sessions:
            out.append("")
            out += session_block(s, report, files, width)
    if report.empty_configs:
        out += ["", "configs with no live server"]
        for e in report.empty_configs:
            if e.all_disabled:
                off = _with_reasons(e.all_disabled, e.disabled_reasons)
                why = f"every server is switched off: {', '.join(off)}"
            elif e.error:
                why = f"could not be read: {e.error}"
            else:
                why = "declares no server"
            out.append(f"  {e.client}  {e.source} — {why}")
    if report.unresolved:
        out += ["", "not launched: unresolved variable references"]
        for u in report.unresolved:
            out.append(f"  {u.name} ({u.source}): {', '.join(u.references)}")
    if report.env_variants:
        out += ["", "same command, different env or headers (each measured separately)"]
        for v in report.env_variants:
            names = ", ".join(f"{name} ({src})" for src, name in v.entries)
            out.append(f"  {v.launch}: {names}")
    if report.claude_divergence is not None:
        cd = report.claude_divergence
        out += [
            "",
            f"claude: Anthropic request tokens from the published divergence run ({cd.model}, "
            f"{cd.measured_at}), shown only where the capture hash matches this install; — "
            "otherwise.",
        ]
    if report.problems:
        out += ["", "problems"] + [f"  {p}" for p in report.problems]
    if gates is not None and gates.budget is not None:
        out += ["", *budget_block(gates.budget)]
    if gates is not None and gates.increase is not None:
        out += ["", *increase_block(gates.increase)]
    if diff is not None:
        out += ["", *diff_block(diff, report.context_window)]
    out += [
        "",
        f"These are wire tokens ({report.encoding}); measured Anthropic request ratios run "
        f"{PUBLISHED_BAND.low:.2f}×–{PUBLISHED_BAND.high:.2f}×.",
        f"Methodology {report.methodology_version}: {METHODOLOGY_URL}.",
    ]
    safe = [terminal_line(line.rstrip()) for line in out]
    return "\n".join(line.rstrip() for line in fit_width(safe, width)) + "\n"
