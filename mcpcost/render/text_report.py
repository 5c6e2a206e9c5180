"""Human audit output: ``render_text(report, diff=None, gates=None) -> str``, and ``render``,
the ``Renderer`` of ``OutputFormat.TEXT`` (``render.renderer``).

Layout: a header line; the overview (``render.text_overview``: a row per client session with
what it loads up front, what it defers, servers measured / not and its heaviest server, then one
line per thing to act on, each ending with its fix); then each session, most important first,
compact by default (its server table, its deferral verdict in a line, what has no number and
why) and whole with ``details`` (the full deferral verdict, heaviest tools, trim advice, the
column legend); servers that several clients load, once; configs without live servers,
unresolved references, problems, the gates, the baseline diff and a short footer. Boilerplate
is said once, with a pointer to docs/AUDIT.md. Column widths follow the content; signed
numbers use a real minus sign. Every line passes ``mcpcost.escaping.terminal.terminal_line`` on
the way out: a name, note or path from a config or a server cannot carry a control sequence, a
bidi override or a line break into the terminal; a long line wraps (``fit_width``), and only a
table row is cut.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING

from mcpcost.audit.gates import UPFRONT, GateResult, session_cost
from mcpcost.audit.report_model import AuditReport, ConfigResult, first_line
from mcpcost.configs.clients.presentation import DeferralMode
from mcpcost.core.model import METHODOLOGY_URL
from mcpcost.core.plural import counted
from mcpcost.escaping.terminal import terminal_line
from mcpcost.render.deferral_lines import deferral_block
from mcpcost.render.gate_lines import (
    _with_reasons,
    budget_block,
    budget_verdict,
    diff_block,
    increase_block,
    increase_verdict,
)
from mcpcost.render.report_layout import DEFAULT_WIDTH, Layout
from mcpcost.render.text_format import share_percent, table, thousands
from mcpcost.render.text_overview import (
    OVERVIEW_KEY,
    act_on,
    overview_table,
    passed_gates,
    sessions_by_weight,
    upfront_cell,
)

if TYPE_CHECKING:  # the diff module loads only with a baseline, which is when a diff exists
    from mcpcost.audit.diff import AuditDiff

from mcpcost.render.session_lines import (
    RULE,
    client_session_block,
    compact_session_block,
    cut,
    heaviest_lines,
    session_start_cell,
    shared_servers,
)

MIN_WIDTH = 60


def server_table(c: ConfigResult, anthropic: bool) -> list[str]:
    head = ["server", "tools", "tokens", "share", "start"] + (["claude"] if anthropic else [])
    rows: list[list[str]] = [head]
    for s in c.servers:
        row = [
            s.name,
            thousands(s.tool_count or 0),
            thousands(s.tokens or 0),
            share_percent(s.share or 0.0),
            session_start_cell(s),
        ]
        if anthropic:
            row.append(thousands(s.anthropic_tokens) if s.anthropic_tokens is not None else "—")
        rows.append(row)
    total = ["total", thousands(c.tool_count), thousands(c.total_tokens), "", ""] + (
        [""] if anthropic else []
    )
    right = [False] + [True] * (len(head) - 1)
    lines = table([*rows, total], right)
    width = max(len(x) for x in lines) - 2
    return [*lines[:-1], "  " + RULE * width, lines[-1]]


def config_block(c: ConfigResult, report: AuditReport, shown: set[int]) -> list[str]:
    anthropic = report.anthropic_divergence is not None
    out = [f"{c.client}  {c.source}"]
    if c.servers:
        out += server_table(c, anthropic)
        out.append("")
    floor = "at least " if c.skipped else ""
    out.append(
        f"  {floor}{thousands(c.total_tokens)} tokens of tool schemas — {share_percent(c.context_share)} of a "
        f"{thousands(report.context_window)}-token context window."
    )
    if c.deferral is not None and id(c.deferral) not in shown:
        shown.add(id(c.deferral))
        out += deferral_block(c.deferral, report.context_window)
        out.append(f"  Its session's verdict: {c.deferral.verdict}.")
    elif c.deferral is not None:
        out.append(f"  (deferral: see {c.deferral.sources[0]} above — one session)")
    out += heaviest_lines(c.heaviest_tools, c.trim_advice, "config")
    if c.skipped:
        out += ["", "  not measured"]
        rows = [[s.name, f"{s.status} — {first_line(s.notes) or 'no detail'}"] for s in c.skipped]
        out += table(rows, [False, False], indent="    ")
    notes = [(s.name, note) for s in (*c.servers, *c.skipped) for note in s.config_notes]
    if notes:
        out += ["", "  notes"] + [f"    {name}: {note}" for name, note in notes]
    if c.disabled:
        out += ["", f"  switched off: {', '.join(_with_reasons(c.disabled, c.disabled_reasons))}"]
    return out


def summary_block(report: AuditReport, gates: GateResult | None, by_file: bool) -> list[str]:
    """A few lines before the detail: sessions, servers, the config files that cannot be read,
    the heaviest session, gate verdicts."""
    measured = {(e.source, e.server.name) for s in report.sessions for e in s.servers}
    unmeasured = {(e.source, e.server.name) for s in report.sessions for e in s.skipped}
    count = len(report.sessions)
    out = [
        f"{count} client session{'s' if count != 1 else ''} from {len(report.configs)} config "
        f"file{'s' if len(report.configs) != 1 else ''}; {len(measured)} server"
        f"{'s' if len(measured) != 1 else ''} measured, {len(unmeasured)} not."
    ]
    # a file the audit could not read hides a client's servers: said first, and the run fails
    out += [f"Cannot be read (exit 2): {u.sentence()}" for u in report.unreadable]
    if report.sessions:
        top = report.sessions[0]
        mv = top.model_view
        cell = upfront_cell(top, session_cost(top, UPFRONT))
        out.append(
            f"Heaviest session: {top.label}, {cell} tokens up front on every request "
            f"({share_percent(top.context_share)} of the context window; verdict {mv.verdict}; "
            f"wire {thousands(mv.wire_tokens)})."
        )
    if gates is not None and gates.budget is not None:
        out.append(budget_verdict(gates.budget))
    if gates is not None and gates.increase is not None:
        out.append(increase_verdict(gates.increase))
    if by_file:
        out.append("Below: each config file on its own (--by-file); sessions add them up.")
    return out


LEGEND = (
    "Columns: tools = tools the server lists; up front, deferred = its tool definitions as the "
    "client's model gets them ({encoding} tokens, the client lens), under the session's verdict; "
    "wire = its tools/list definitions as measured; share = of the {unit}'s projected total; "
    "start = what it costs at session start even when definitions are deferred (tool names and "
    "instructions; ≥ when only partly known){claude}{source}. Long notes are cut to the width; "
    "--json has them whole."
)
LEGEND_BY_FILE = (
    "Columns: tools = tools the server lists; tokens = its tools/list definitions in {encoding} "
    "tokens (wire, as measured); share = of the config's wire total; start = what it costs at "
    "session start even when definitions are deferred (tool names and instructions; ≥ when only "
    "partly known){claude}. Long notes are cut to the width; --json has them whole."
)


def legend(report: AuditReport, by_file: bool) -> str:
    claude = (
        "; claude = Anthropic request tokens, from the run named below"
        if (report.anthropic_divergence is not None)
        else ""
    )
    if by_file:
        return LEGEND_BY_FILE.format(encoding=report.encoding, claude=claude)
    source = "; from = the file that declares it, numbered above the table"
    return LEGEND.format(encoding=report.encoding, unit="session", claude=claude, source=source)


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
            out.append(cut(line, width))
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


def count_line(report: AuditReport) -> str:
    """How many sessions, files and servers the report covers."""
    measured = {(e.source, e.server.name) for s in report.sessions for e in s.servers}
    unmeasured = {(e.source, e.server.name) for s in report.sessions for e in s.skipped}
    return (
        f"{counted(len(report.sessions), 'client session')} from "
        f"{counted(len(report.configs), 'config file')}; {len(measured)} server"
        f"{'s' if len(measured) != 1 else ''} measured, {len(unmeasured)} not."
    )


def overview(report: AuditReport, gates: GateResult | None) -> list[str]:
    """The first screen: the counts, a row per session, then what to act on."""
    out = [count_line(report), ""]
    if report.sessions:
        out += [*overview_table(report), ""]
    acts = act_on(report, gates)
    if acts:
        out.append("To act on, most important first:")
        out += [f"  - {line}" for line in acts]
    else:
        out.append("Nothing to act on.")
    out += passed_gates(gates)
    return out


def render_text(
    report: AuditReport,
    diff: AuditDiff | None = None,
    gates: GateResult | None = None,
    *,
    width: int = DEFAULT_WIDTH,
    by_file: bool = False,
    details: bool = False,
) -> str:
    """The human report (stdout), within ``width``: the overview (a row per client session and
    the things to act on), then one block per client session, most important first
    (``by_file``: per config file), what was not audited, the gates and the diff. ``details``
    shows every part there is (the full deferral verdicts, heaviest tools, the column legend)."""
    width = max(width, MIN_WIDTH)
    out = [
        f"mcp-context-cost audit · methodology {report.methodology_version} · {report.encoding} · "
        f"context window {thousands(report.context_window)}",
        "",
        *overview(report, gates),
        "",
    ]
    if by_file:
        out.append("Below: each config file on its own (--by-file); sessions add them up.")
    if details or by_file:
        out.append(legend(report, by_file))
    else:
        out.append(
            f"{OVERVIEW_KEY} Below, each session, most important first; --details shows "
            "everything, docs/AUDIT.md explains each part."
        )
    files = {(c.client, c.source): c for c in report.configs}
    if by_file:
        shown: set[int] = set()
        for c in report.configs:
            out.append("")
            out += config_block(c, report, shown)
    else:
        for s in sessions_by_weight(report.sessions):
            out.append("")
            if details:
                out += client_session_block(s, report, files, width)
            else:
                out += compact_session_block(s, report, files, width)
    shared = shared_servers(report)
    if shared:
        out += ["", *shared]
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
    if report.anthropic_divergence is not None:
        cd = report.anthropic_divergence
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
    out.append("")
    if not details and any(
        s.model_view.loading.mode is DeferralMode.NONE_ON_RECORD for s in report.sessions
    ):
        out.append(
            "* No deferral is on record for that client: an absence of a record about it, not a "
            "measurement of it (docs/AUDIT.md, deferral)."
        )
    out += [
        f"Up front and deferred are {report.encoding} tokens of what each client's model gets "
        f"(the client lens); wire is {report.encoding} of the tools/list definitions as measured.",
        f"Methodology {report.methodology_version}: {METHODOLOGY_URL}.",
    ]
    safe = [terminal_line(line.rstrip()) for line in out]
    return "\n".join(line.rstrip() for line in fit_width(safe, width)) + "\n"


def render(
    report: AuditReport, diff: AuditDiff | None, gates: GateResult | None, layout: Layout
) -> str:
    return render_text(
        report, diff, gates, width=layout.width, by_file=layout.by_file, details=layout.details
    )
