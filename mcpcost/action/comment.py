"""The pull-request comment: rendered from an ``Outcome`` with a sandboxed Jinja template (pure).

Server and tool names, notes and paths come from the pull request (its config, the servers it
starts), so every such string passes an escaping filter: no @mentions, no HTML, nothing that
breaks a table row. The body always fits GitHub's 65,536-character limit: rows are dropped, with
a note, until it does; the job summary carries the full table.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from jinja2 import BaseLoader, TemplateNotFound
from jinja2.sandbox import SandboxedEnvironment

from mcpcost.action.outcome import ConfigDiff, Kind, Outcome, ServerRow
from mcpcost.action.verdict import fmt, signed

COMMENT_LIMIT = 65_536
COMMENT_TARGET = 60_000  # leave room for GitHub's own accounting and the marker
NAME_LIMIT = 80
NOTE_LIMIT = 160
MARKER_PREFIX = "<!-- mcp-context-cost:v1 key="
_ZWJ = "\u200d"
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|~>])")
_MENTION = re.compile(r"@(?=[A-Za-z0-9])")
_ISSUE_REF = re.compile(r"#(?=\d)")

KIND_ICONS = {
    Kind.ADDED: "🆕 added",
    Kind.REMOVED: "🗑️ removed",
    Kind.CHANGED: "changed",
    Kind.UNCHANGED: "unchanged",
    Kind.UNMEASURED: "❗ not measured",
    Kind.NEWLY_MEASURED: "❔ newly measured",
}


def marker(key: str) -> str:
    """The hidden first line that identifies our comment for one ``comment-key``."""
    return f"{MARKER_PREFIX}{key} -->"


def _one_line(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def escape_md(text: Any, limit: int = NOTE_LIMIT) -> str:
    """Untrusted text as inert markdown: one line, no HTML, no mentions, no table breaks."""
    s = _one_line(str(text), limit)
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    s = _MD_SPECIAL.sub(r"\\\1", s)
    s = _MENTION.sub("@" + _ZWJ, s)
    return _ISSUE_REF.sub("#" + _ZWJ, s)


def code(text: Any, limit: int = NAME_LIMIT) -> str:
    """Untrusted text as an inline code span (mentions and HTML are inert inside one)."""
    s = _one_line(str(text), limit).replace("`", "'").replace("|", "\\|")
    return f"`{s}`" if s else "` `"


def arrow(base: int | None, head: int | None) -> str:
    if base is None and head is None:
        return "—"
    return f"{fmt(base) if base is not None else '—'} → {fmt(head) if head is not None else '—'}"


def pct(value: float | None) -> str:
    return "" if value is None else f"{value:+.1f}%"


def _icon(row: ServerRow) -> str:
    if row.kind is Kind.CHANGED:
        return "🔺" if (row.delta or 0) > 0 else "🔽"
    return KIND_ICONS[row.kind]


def server_cells(config: ConfigDiff, row: ServerRow) -> dict[str, str]:
    delta = signed(row.delta) if row.delta is not None else "?"
    why = ""
    if row.kind in (Kind.UNMEASURED, Kind.NEWLY_MEASURED):
        side = row.head_status if row.kind is Kind.UNMEASURED else row.base_status
        why = escape_md(f"{side}: {row.note}" if row.note else str(side))
    return {
        "config": code(config.source, 120),
        "server": code(row.name),
        "base": fmt(row.base_tokens) if row.base_tokens is not None else "—",
        "head": fmt(row.head_tokens) if row.head_tokens is not None else "—",
        "delta": delta,
        "what": _icon(row) + (f" ({why})" if why else ""),
    }


def headline_config(outcome: Outcome) -> ConfigDiff | None:
    """The config the headline (and the scalar outputs) speak for: the largest increase."""
    if not outcome.configs:
        return None
    if outcome.compared:
        return max(outcome.configs, key=lambda c: (c.delta or 0, c.head_total or 0))
    return max(outcome.configs, key=lambda c: c.head_total or 0)


@dataclass(frozen=True)
class Rendered:
    body: str
    dropped_rows: int


def context(
    outcome: Outcome, *, key: str, max_rows: int | None, tool_rows: int | None
) -> dict[str, Any]:
    head = headline_config(outcome)
    changed = [(c, r) for c in outcome.configs for r in c.servers if r.kind is not Kind.UNCHANGED]
    unchanged = [(c, r) for c in outcome.configs for r in c.servers if r.kind is Kind.UNCHANGED]
    shown = changed if max_rows is None else changed[:max_rows]
    tools = [(c, r, t) for c, r in changed for t in r.tool_changes]
    tools.sort(key=lambda x: (-abs(x[2].delta), x[1].name, x[2].tool))
    shown_tools = tools if tool_rows is None else tools[:tool_rows]
    budget_use = None
    if outcome.budget and head is not None and head.head_total is not None:
        budget_use = (
            f"{head.head_total * 100 / outcome.budget:.0f}% of the {fmt(outcome.budget)} budget"
        )
    return {
        "marker": marker(key),
        "passed": outcome.verdict.passed,
        "compared": outcome.compared,
        "headline": head,
        "delta": signed(head.delta) if head is not None and head.delta is not None else None,
        "arrow": arrow(head.base_total, head.head_total) if head is not None else "—",
        "percent": pct(head.percent) if head is not None else "",
        "budget_use": budget_use,
        "config_count": len(outcome.configs),
        "configs": [
            {
                "source": code(c.source, 120),
                "client": escape_md(c.client, 40),
                "arrow": arrow(c.base_total, c.head_total),
                "delta": signed(c.delta) if c.delta is not None else "?",
                "percent": pct(c.percent),
                "exact": c.exact,
                "problem": escape_md(c.problem) if c.problem else None,
            }
            for c in outcome.configs
        ],
        "rows": [server_cells(c, r) for c, r in shown],
        "dropped": len(changed) - len(shown),
        "unchanged_count": len(unchanged),
        "unchanged": [
            f"{code(c.source, 120)} {code(r.name)} ({fmt(r.head_tokens or 0)})"
            for c, r in (unchanged if max_rows is None else unchanged[:max_rows])
        ],
        "tools": [
            {
                "server": code(r.name),
                "tool": code(t.tool),
                "base": fmt(t.base_tokens) if t.base_tokens is not None else "🆕",
                "head": fmt(t.head_tokens) if t.head_tokens is not None else "🗑️",
                "delta": signed(t.delta),
            }
            for _, r, t in shown_tools
        ],
        "tools_dropped": len(tools) - len(shown_tools),
        "failures": [escape_md(r.text, 300) for r in outcome.verdict.failures],
        "warnings": [escape_md(r.text, 300) for r in outcome.verdict.warnings],
        "problems": [escape_md(p, 300) for p in outcome.problems],
        "encoding": escape_md(outcome.encoding, 40),
        "versions": [
            (escape_md(k, 40), escape_md(v, 60)) for k, v in sorted(outcome.versions.items())
        ],
        "base_sha": escape_md(outcome.base_sha or "", 40),
        "head_sha": escape_md(outcome.head_sha, 40),
        "run_url": outcome.run_url,
        "budget": fmt(outcome.budget) if outcome.budget is not None else None,
        "max_increase": fmt(outcome.max_increase) if outcome.max_increase is not None else None,
        "max_increase_percent": f"{outcome.max_increase_percent:g}%"
        if outcome.max_increase_percent is not None
        else None,
    }


class _PackageLoader(BaseLoader):
    def get_source(self, environment: Any, template: str) -> tuple[str, None, Any]:
        try:
            text = resources.files("mcpcost.templates").joinpath(template).read_text("utf-8")
        except (FileNotFoundError, OSError):
            raise TemplateNotFound(template) from None
        return text, None, lambda: True


@cache
def environment() -> SandboxedEnvironment:
    env = SandboxedEnvironment(
        loader=_PackageLoader(),
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["md"] = escape_md
    env.filters["code"] = code
    return env


def render_template(name: str, ctx: dict[str, Any]) -> str:
    return environment().get_template(name).render(**ctx)


def render_comment(outcome: Outcome, *, key: str, limit: int = COMMENT_TARGET) -> Rendered:
    """The comment body, rows dropped (with a note) until it is under ``limit`` characters."""
    total = sum(1 for c in outcome.configs for r in c.servers if r.kind is not Kind.UNCHANGED)
    max_rows: int | None = None
    tool_rows: int | None = 50
    while True:
        ctx = context(outcome, key=key, max_rows=max_rows, tool_rows=tool_rows)
        body = render_template("comment.md.j2", ctx)
        if len(body) <= limit:
            return Rendered(body, ctx["dropped"])
        if tool_rows:
            tool_rows = tool_rows // 2
            continue
        max_rows = total // 2 if max_rows is None else max_rows // 2
        if max_rows == 0 and len(body) > limit:
            cut = body[: limit - 200]
            note = "\n\n> Comment cut to fit GitHub's size limit; see the job summary.\n"
            return Rendered(cut + note, total)
