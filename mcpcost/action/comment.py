"""The pull-request comment: rendered from an ``Outcome`` with a sandboxed Jinja template
(``mcpcost.runtime.templating``; pure).

Server and tool names, notes and paths come from the pull request (its config, the servers it
starts), so every such string passes ``mcpcost.core.markdown`` (names as ``code_span``, other text
as ``md_text``, exactly as ``audit --markdown`` does): no @mentions, no HTML, links, entities or
bare URLs, nothing that breaks a table row. The body always fits GitHub's 65,536-character limit: rows are dropped, with
a note, until it does; the job summary carries the full table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcpcost.action.outcome import ConfigDiffView, Outcome, ServerDiffView
from mcpcost.audit.diff import DiffKind
from mcpcost.configs.clients.presentation import DeferralMode
from mcpcost.core.markdown import code_span, code_text, md_text
from mcpcost.render.markdown_report import lens_finding_line, model_gets
from mcpcost.render.text_format import signed, thousands
from mcpcost.runtime.templating import render

COMMENT_TARGET = 60_000  # under GitHub's 65,536-character limit, with room for the marker
NAME_LIMIT = 80
NOTE_CELL_LIMIT = 160  # a note in a table cell
TOOL_ROWS = 50
MARKER_PREFIX = "<!-- mcp-context-cost:v1 key="

KIND_ICONS = {
    DiffKind.ADDED: "🆕 added",
    DiffKind.REMOVED: "🗑️ removed",
    DiffKind.CHANGED: "changed",
    DiffKind.UNCHANGED: "unchanged",
    DiffKind.UNMEASURED_NOW: "❗ not measured on head",
    DiffKind.UNMEASURED_BEFORE: "❔ not measured on base",
    DiffKind.UNMEASURED_BOTH: "❗ not measured on either side",
    DiffKind.MEASURED: "measured",
    DiffKind.UNMEASURED: "❗ not measured",
}


def marker(key: str) -> str:
    """The hidden first line that identifies our comment for one ``comment-key``."""
    return f"{MARKER_PREFIX}{key} -->"


def arrow(base: int | None, head: int | None) -> str:
    if base is None and head is None:
        return "—"
    return f"{thousands(base) if base is not None else '—'} → {thousands(head) if head is not None else '—'}"


def change_percent(percent: float | None) -> str:
    """A change already in percent, signed: ``+12.5%`` (empty when unknown)."""
    return "" if percent is None else f"{percent:+.1f}%"


def _icon(row: ServerDiffView) -> str:
    if row.known_unknown:
        return "known unknown: not measured on either side, launched the same way"
    if row.kind is DiffKind.CHANGED:
        return "🔺" if (row.delta or 0) > 0 else "🔽"
    return KIND_ICONS[row.kind]


def _whole(config: ConfigDiffView, row: ServerDiffView) -> str:
    """A row that comes from the pull request adding or deleting its whole config says so."""
    if config.change and row.kind in (DiffKind.ADDED, DiffKind.REMOVED):
        return f" · {config.change}"
    return ""


def server_cells(config: ConfigDiffView, row: ServerDiffView) -> dict[str, str]:
    delta = signed(row.delta) if row.delta is not None else "?"
    why = ""
    if row.unknown:
        side = row.base_status if row.kind is DiffKind.UNMEASURED_BEFORE else row.head_status
        why = md_text(f"{side}: {row.note}" if row.note else str(side), NOTE_CELL_LIMIT)
    return {
        "config": code_span(config.source, 120),
        "server": code_span(row.name, NAME_LIMIT),
        "base": thousands(row.base_tokens) if row.base_tokens is not None else "—",
        "head": thousands(row.head_tokens) if row.head_tokens is not None else "—",
        "delta": delta,
        "what": _icon(row) + (f" ({why})" if why else "") + _whole(config, row),
    }


def headline_config(outcome: Outcome) -> ConfigDiffView | None:
    """The config the headline (and the scalar outputs) speak for: the largest increase.

    A context belongs to one client, so this is one config's numbers, never a sum.
    """
    if not outcome.configs:
        return None
    if outcome.compared:
        return max(outcome.configs, key=lambda c: (c.delta or 0, c.head_total or 0))
    return max(outcome.configs, key=lambda c: c.head_total or 0)


def _unchanged(row: ServerDiffView) -> bool:
    return row.kind in (DiffKind.UNCHANGED, DiffKind.MEASURED)


def deferring_clients(outcome: Outcome) -> list[dict[str, str]]:
    """The clients whose configs the audit's verdict says defer every tool definition (the
    Action reads no settings file, so that is the client's documented default)."""
    found = {
        (c.client, (c.deferral_mechanism or "deferral").replace("-", " "))
        for c in outcome.configs
        if c.deferral is DeferralMode.DEFERS_ALL
    }
    return [
        {"client": code_span(client, 40), "mechanism": md_text(mechanism, 40)}
        for client, mechanism in sorted(found)
    ]


LENS_FINDINGS = 20  # client-lens findings per session in the comment (the summary has all)


def lens_context(outcome: Outcome, per_session: int | None) -> list[dict[str, Any]]:
    """Each head session through the client lens: what its model gets up front and one line
    per finding with its fix (``audit --markdown``'s wording and escaping)."""
    out = []
    for x in outcome.lenses:
        findings = x.view.findings
        shown = findings if per_session is None else findings[:per_session]
        out.append(
            {
                "label": md_text(x.label, 120),
                "gets": model_gets(x.label, x.view),
                "findings": [lens_finding_line(f, NAME_LIMIT) for f in shown],
                "more": len(findings) - len(shown),
            }
        )
    return out


@dataclass(frozen=True, slots=True)
class Rendered:
    body: str
    dropped_rows: int


def context(
    outcome: Outcome,
    *,
    key: str,
    max_rows: int | None,
    tool_rows: int | None,
    lens_rows: int | None = LENS_FINDINGS,
) -> dict[str, Any]:
    head = headline_config(outcome)
    changed = [(c, r) for c in outcome.configs for r in c.servers if not _unchanged(r)]
    unchanged = [(c, r) for c in outcome.configs for r in c.servers if _unchanged(r)]
    shown = changed if max_rows is None else changed[:max_rows]
    tools = [(c, r, t) for c, r in changed for t in r.tool_changes]
    tools.sort(key=lambda x: (-abs(x[2].delta), x[1].name, x[2].tool))
    shown_tools = tools if tool_rows is None else tools[:tool_rows]
    budget_use = None
    if outcome.budget and outcome.budget_used is not None:
        what = "up front" if outcome.budget_judged == "upfront" else "in full"
        budget_use = (
            f"{outcome.budget_used * 100 / outcome.budget:.0f}% of the "
            f"{thousands(outcome.budget)} budget (heaviest session, {what})"
        )
    return {
        "marker": marker(key),
        "passed": outcome.verdict.passed,
        "compared": outcome.compared,
        "headline": head,
        "delta": signed(head.delta) if head is not None and head.delta is not None else None,
        "arrow": arrow(head.base_total, head.head_total) if head is not None else "—",
        "percent": (head.change or change_percent(head.percent)) if head is not None else "",
        "budget_use": budget_use,
        "config_count": len(outcome.configs),
        "configs": [
            {
                "source": code_span(c.source, 120) + (f" ({c.change})" if c.change else ""),
                "client": md_text(c.client, 40),
                "arrow": arrow(c.base_total, c.head_total),
                "delta": signed(c.delta) if c.delta is not None else "?",
                "percent": change_percent(c.percent),
                "exact": c.exact,
                "problem": md_text(c.problem, NOTE_CELL_LIMIT) if c.problem else None,
            }
            for c in outcome.configs
        ],
        "rows": [server_cells(c, r) for c, r in shown],
        "dropped": len(changed) - len(shown),
        "unchanged_count": len(unchanged),
        "unchanged": [
            f"{code_span(c.source, 120)} {code_span(r.name, NAME_LIMIT)} ({thousands(r.head_tokens or 0)})"
            for c, r in (unchanged if max_rows is None else unchanged[:max_rows])
        ],
        "tools": [
            {
                "server": code_span(r.name, NAME_LIMIT),
                "tool": code_span(t.tool, NAME_LIMIT),
                "base": thousands(t.base_tokens) if t.base_tokens is not None else "🆕",
                "head": thousands(t.head_tokens) if t.head_tokens is not None else "🗑️",
                "delta": signed(t.delta),
            }
            for _, r, t in shown_tools
        ],
        "tools_dropped": len(tools) - len(shown_tools),
        "failures": [md_text(r.text, 300) for r in outcome.verdict.failures],
        # a client-lens finding is in its session's lines above: the warnings only count them
        "warnings": [md_text(r.text, 300) for r in outcome.verdict.warnings if r.lens_kind is None],
        "lens_warnings": sum(1 for r in outcome.verdict.warnings if r.lens_kind is not None),
        "known_unknowns": [md_text(r.text, 300) for r in outcome.verdict.known_unknowns],
        "problems": [md_text(p, 300) for p in outcome.problems],
        "encoding": code_text(outcome.encoding, 40),
        "deferring_clients": deferring_clients(outcome),
        "lenses": lens_context(outcome, lens_rows),
        "versions": [(md_text(k, 40), md_text(v, 60)) for k, v in sorted(outcome.versions.items())],
        "base_sha": md_text(outcome.base_sha or "", 40),
        "head_sha": md_text(outcome.head_sha, 40),
        "run_url": outcome.run_url,
        "budget": thousands(outcome.budget) if outcome.budget is not None else None,
        "max_increase": thousands(outcome.max_increase)
        if outcome.max_increase is not None
        else None,
        "max_increase_percent": f"{outcome.max_increase_percent:g}%"
        if outcome.max_increase_percent is not None
        else None,
    }


def render_template(name: str, ctx: dict[str, Any]) -> str:
    """``name`` rendered in the shared environment (``mcpcost.runtime.templating``)."""
    return render(name, ctx)


def render_rows(outcome: Outcome, key: str, rows: int | None, tools: int | None) -> Rendered:
    ctx = context(outcome, key=key, max_rows=rows, tool_rows=tools)
    return Rendered(render_template("comment.md.j2", ctx), ctx["dropped"])


def _most_that_fit(count: int, fits: Any) -> int:
    """The largest ``k`` in ``0..count`` with ``fits(k)``, given ``fits`` is monotone and
    ``fits(0)`` holds (binary search: a handful of renders, not one per row)."""
    lo, hi = 0, count
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def render_comment(outcome: Outcome, *, key: str, limit: int = COMMENT_TARGET) -> Rendered:
    """The comment body, at most ``limit`` characters.

    Tool-level rows go first, then server rows, and only as many as needed: the most rows that
    still fit are kept (with a note pointing at the job summary for the rest).
    """
    full = render_rows(outcome, key, None, TOOL_ROWS)
    if len(full.body) <= limit:
        return full
    tools = sum(len(r.tool_changes) for c in outcome.configs for r in c.servers)
    kept_tools = _most_that_fit(
        min(tools, TOOL_ROWS), lambda k: len(render_rows(outcome, key, None, k).body) <= limit
    )
    if len(render_rows(outcome, key, None, kept_tools).body) <= limit:
        return render_rows(outcome, key, None, kept_tools)
    rows = sum(1 for c in outcome.configs for r in c.servers if not _unchanged(r))
    kept_rows = _most_that_fit(rows, lambda k: len(render_rows(outcome, key, k, 0).body) <= limit)
    body = render_rows(outcome, key, kept_rows, 0)
    if len(body.body) <= limit:
        return body
    # even with no rows the text does not fit (e.g. a flood of failure reasons): cut it
    note = "\n\n> Comment cut to fit GitHub's size limit; see the job summary.\n"
    return Rendered(body.body[: limit - len(note)] + note, rows)
