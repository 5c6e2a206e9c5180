"""``audit --markdown``: the report as GitHub-flavoured Markdown (PR comments, job summaries).

``render_markdown(report, diff=None, gates=None, by_file=False) -> str``, and ``render``, the
``Renderer`` of ``OutputFormat.MARKDOWN`` (``render.renderer``). A summary, then one
section per client session (the files one client loads together; ``by_file``: per config file):
what the client's model gets up front under the session's load verdict and one line per
client-lens finding with its fix (the template part the Action's comment shares), the wire
definitions as the labelled second figure, a table of measured servers (up front, deferred,
wire) with the file each comes from, what was not measured, then budget, diff and gate
results, causes first. Untrusted text is
escaped exactly as the Action's comment escapes it (``mcpcost.escaping.markdown``): names and paths as
code spans, everything else as inert Markdown. Commands and URLs never appear, only server names.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mcpcost.audit.gates import GateResult
from mcpcost.audit.report_model import AuditReport, ClientSession, ConfigResult, first_line
from mcpcost.core.measure import SessionStart
from mcpcost.core.model import METHODOLOGY_URL
from mcpcost.escaping.markdown import code_span, md_text
from mcpcost.render.gate_lines import budget_verdict, increase_verdict
from mcpcost.render.json_report import report_to_json
from mcpcost.render.report_markdown import session_part
from mcpcost.render.session_truth import session_truth
from mcpcost.render.text_format import share_percent, signed, thousands
from mcpcost.render.text_report import summary_block
from mcpcost.runtime.templating import render as render_template

if TYPE_CHECKING:  # the diff module loads only with a baseline, which is when a diff exists
    from mcpcost.audit.diff import AuditDiff
    from mcpcost.render.report_layout import Layout


def name(text: str) -> str:
    """A server name, file or variable: a code span, as in the Action's comment."""
    return code_span(text)


def prose(text: str) -> str:
    """Any other untrusted text: inert Markdown (no HTML, links, images, entities, mentions)."""
    return md_text(text)


def _config(c: ConfigResult, report: AuditReport) -> list[str]:
    claude = report.anthropic_divergence is not None
    floor = "≥ " if c.skipped else ""
    out = [
        f"### {prose(c.client)} · {name(c.source)}",
        "",
        f"**{floor}{thousands(c.total_tokens)} tokens** of tool schemas — {share_percent(c.context_share)} of a "
        f"{thousands(report.context_window)}-token context window.",
        "",
    ]
    if c.servers:
        head = "| server | tools | tokens | share | session start |" + (
            " claude |" if claude else ""
        )
        out += [head, "|---|---:|---:|---:|---:|" + ("---:|" if claude else "")]
        for s in c.servers:
            ss = s.session_start
            start = (
                "—"
                if ss is None
                else (f"≥{thousands(ss.total)}" if ss.is_floor else thousands(ss.total))
            )
            row = f"| {name(s.name)} | {thousands(s.tool_count or 0)} | {thousands(s.tokens or 0)} | {share_percent(s.share or 0)} | {start} |"
            if claude:
                row += (
                    f" {thousands(s.anthropic_tokens) if s.anthropic_tokens is not None else '—'} |"
                )
            out.append(row)
        out.append("")
    if c.skipped:
        out += ["Not measured:", ""]
        out += [
            f"- {name(s.name)}: {prose(s.status)} — {prose(first_line(s.notes) or 'no detail')}"
            for s in c.skipped
        ]
        out.append("")
    notes = [(s.name, note) for s in (*c.servers, *c.skipped) for note in s.config_notes]
    if notes:
        out += ["Notes:", ""] + [f"- {name(who)}: {prose(note)}" for who, note in notes] + [""]
    if c.disabled_reasons:
        out += ["Switched off:", ""]
        out += [f"- {name(who)}: {prose(why)}" for who, why in c.disabled_reasons]
        out.append("")
    if c.deferral is not None:
        out += [prose(c.deferral.condition), ""]
    return out


def _start(ss: SessionStart | None) -> str:
    return (
        "—" if ss is None else (f"≥{thousands(ss.total)}" if ss.is_floor else thousands(ss.total))
    )


def truth_lines(session: Mapping[str, Any]) -> list[str]:
    """The session's truth from its JSON report entry, in the template part the Action's
    comment and summary share (``session_truth.md.j2``): what its model gets, the verdict and
    its condition, then one line per client-lens finding with its fix."""
    part = session_part(session_truth(session), None, None)
    return [render_template("session_truth.md.j2", {"l": part, "more_note": ""}).rstrip("\n"), ""]


def _client_session(s: ClientSession, report: AuditReport, session: Mapping[str, Any]) -> list[str]:
    """One session from its JSON report entry's model view (what its model gets, per server
    too), with the wire definitions as the labelled second figure."""
    claude = report.anthropic_divergence is not None
    floor = "≥" if s.skipped else ""
    numbered = {src: i for i, src in enumerate(s.sources, start=1)}
    loads = {v["name"]: v for v in session["modelView"]["servers"]}
    out = [
        f"### {prose(s.label)}",
        "",
        *truth_lines(session),
        f"Wire definitions (`tools/list` as measured): {floor}{thousands(s.total_tokens)} tokens, "
        f"{share_percent(s.context_share)} of a {thousands(report.context_window)}-token context "
        "window.",
        "",
        "Files: " + " · ".join(f"{numbered[src]}. {name(src)}" for src in s.sources),
        "",
    ]
    if s.servers:
        head = "| server | tools | up front | deferred | wire | share | session start |"
        head += (" claude |" if claude else "") + " from |"
        out += [head, "|---|---:|---:|---:|---:|---:|---:|" + ("---:|" if claude else "") + "---:|"]
        for e in s.servers:
            v = e.server
            load = loads.get(v.name)
            up, held = (
                (thousands(load["upfrontTokens"]), thousands(load["deferredTokens"]))
                if load is not None
                else ("—", "—")
            )
            row = (
                f"| {name(v.name)} | {thousands(v.tool_count or 0)} | {up} | {held} | "
                f"{thousands(v.tokens or 0)} | {share_percent(v.share or 0)} | "
                f"{_start(v.session_start)} |"
            )
            if claude:
                row += (
                    f" {thousands(v.anthropic_tokens) if v.anthropic_tokens is not None else '—'} |"
                )
            out.append(row + f" {numbered[e.source]} |")
        out.append("")
    if s.skipped:
        out += ["Not measured:", ""]
        out += [
            f"- {name(e.server.name)} ({numbered[e.source]}): {prose(e.server.status)} — "
            f"{prose(first_line(e.server.notes) or 'no detail')}"
            for e in s.skipped
        ]
        out.append("")
    notes = [(e, note) for e in (*s.servers, *s.skipped) for note in e.server.config_notes]
    if notes:
        out += ["Notes:", ""]
        out += [f"- {name(e.server.name)}: {prose(note)}" for e, note in notes]
        out.append("")
    by_file = {(c.client, c.source): c for c in report.configs}
    off = [
        r
        for src in s.sources
        if (s.client, src) in by_file
        for r in by_file[(s.client, src)].disabled_reasons
    ]
    if off:
        out += ["Switched off:", ""]
        out += [f"- {name(who)}: {prose(why)}" for who, why in off]
        out.append("")
    if s.overridden:
        out += ["Declared twice, loaded once:", ""]
        out += [
            f"- {name(o.name)} ({numbered.get(o.source, '?')}): not loaded — {prose(o.why)}"
            for o in s.overridden
        ]
        out.append("")
    return out


def render_markdown(
    report: AuditReport,
    diff: AuditDiff | None = None,
    gates: GateResult | None = None,
    *,
    by_file: bool = False,
) -> str:
    out = [
        "## MCP context cost",
        "",
        f"methodology {report.methodology_version} · {report.encoding} · context window "
        f"{thousands(report.context_window)}",
        "",
        *(f"- {prose(line)}" for line in summary_block(report, gates, by_file)),
        "",
    ]
    if by_file:
        for c in report.configs:
            out += _config(c, report)
    else:
        doc = report_to_json(report, diff, gates)
        for s, session in zip(report.sessions, doc["sessions"], strict=True):
            out += _client_session(s, report, session)
    if report.empty_configs:
        out += ["Configs with no live server:", ""]
        out += [
            f"- {prose(e.client)} {name(e.source)} ({prose(e.state)})" for e in report.empty_configs
        ]
        out.append("")
    if report.problems:
        out += ["Problems:", ""] + [f"- {prose(p)}" for p in report.problems] + [""]
    if diff is not None:
        out += [f"#### Diff vs baseline ({prose(diff.baseline_generated_at)})", ""]
        out += ["| config | before | after | change | exact |", "|---|---:|---:|---:|---|"]
        for d in diff.configs:
            before = "—" if d.before_total is None else thousands(d.before_total)
            change = "—" if d.delta is None else signed(d.delta)
            out.append(
                f"| {name(d.source)} | {before} | {thousands(d.after_total)} | {change} | {'yes' if d.exact else 'no'} |"
            )
        for dropped in diff.dropped_configs:
            out.append(
                f"| {name(dropped.source)} | {thousands(dropped.total_tokens)} | not found | — | no |"
            )
        out.append("")
    if gates is not None:
        if gates.passed:
            out.append("**Gates passed.**")
        else:
            out += ["**Gate failed:**", ""]
            if gates.budget is not None and not gates.budget.passed:
                out.append(f"- {prose(budget_verdict(gates.budget))}")
                out += [f"  - {prose(f.text)}" for f in gates.budget.findings]
            if gates.increase is not None and not gates.increase.passed:
                out.append(f"- {prose(increase_verdict(gates.increase))}")
                out += [f"  - {prose(f.text)}" for f in gates.increase.findings]
            shown = {
                *(gates.budget.findings if gates.budget else ()),
                *(gates.increase.findings if gates.increase else ()),
            }
            out += [f"- {prose(f.text)}" for f in gates.findings if f not in shown]
        if gates.known_unknowns:
            out += ["", "**Known unknowns, carried over (not failed):**", ""]
            out += [f"- {prose(f.text)}" for f in gates.known_unknowns]
        out.append("")
    out.append(
        f"<sub>Up front and deferred: {report.encoding} tokens of what each client's model gets "
        f"(the client lens); wire: the tools/list definitions as measured · methodology "
        f"{report.methodology_version}: "
        f"[spec/METHODOLOGY.md]({METHODOLOGY_URL})</sub>"
    )
    return "\n".join(out).rstrip() + "\n"


def render(
    report: AuditReport, diff: AuditDiff | None, gates: GateResult | None, layout: Layout
) -> str:
    return render_markdown(report, diff, gates, by_file=layout.by_file)
