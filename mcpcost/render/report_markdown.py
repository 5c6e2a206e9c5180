"""The one Markdown renderer of the audit's JSON report (pure): the pull-request comment and the
job summary, with the template parts they share with ``audit --markdown``
(``mcpcost/templates/``, the sandboxed environment of ``mcpcost.runtime.templating``).

It reads only the report document (``run_report``'s, checked against the schema when it comes
from elsewhere: ``report_reader``) and each session's truth through ``session_truth``. Server
and tool names, notes and paths come from the pull request, so every such string passes
``mcpcost.escaping.markdown`` (names as ``code_span``, other text as ``md_text``): no @mentions, no
HTML, links, entities or bare URLs, nothing that breaks a table row.

The comment's own parts: the sticky marker (its first line), the base-vs-head tables, and the
fit under GitHub's 65,536-character limit (rows are dropped, with a note, until it fits; the
job summary carries them all).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from mcpcost.audit.diff import INEXACT_KINDS, DiffKind
from mcpcost.configs.clients.presentation import Confidence, Effect, LoadVerdict
from mcpcost.escaping.markdown import code_span, code_text, md_text
from mcpcost.render.session_truth import SessionTruth, session_truth
from mcpcost.render.text_format import signed, thousands
from mcpcost.runtime.templating import render

COMMENT_TARGET = 60_000  # under GitHub's 65,536-character limit, with room for the marker
NAME_LIMIT = 80
NOTE_CELL_LIMIT = 160  # a note in a table cell
TOOL_ROWS = 50
LENS_FINDINGS = 20  # client-lens findings per session in the comment (the summary has all)
MARKER_PREFIX = "<!-- mcp-context-cost:v1 key="

Doc = Mapping[str, Any]

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
_SHAPES = {
    "anthropic": "the Anthropic tool shape",
    "openai-function": "the OpenAI function shape",
    "gemini-function": "Gemini function declarations",
}
_MARKS = {True: "❌", False: "ℹ️"}  # a finding that breaks (drops, rejects, cuts), or not


def marker(key: str) -> str:
    """The hidden first line that identifies our comment for one ``comment-key``."""
    return f"{MARKER_PREFIX}{key} -->"


# --------------------------------------------------------------------------- sessions


def lens_finding_line(f: Mapping[str, Any], name_limit: int | None = None) -> str:
    """One client-lens finding (the report's ``lensFinding``): what the client does to which
    tool, the rule with its limit and this session's value, the fix; a rule only users report
    is marked as such. ``name_limit`` cuts server and tool names (the comment)."""
    server, tool = f["server"], f["tool"]
    if tool is not None and server is not None:
        what = f"{code_span(server, name_limit)} / {code_span(tool, name_limit)}"
    elif server is not None or tool is not None:
        what = code_span(server or tool or "", name_limit)
    else:
        what = "the session's tools"
    bounds = ", ".join(
        part
        for part in (
            f"limit {md_text(str(f['limit']))}" if f["limit"] is not None else "",
            f"here {md_text(str(f['actual']))}" if f["actual"] is not None else "",
        )
        if part
    )
    effect = Effect(f["effect"])
    reported = " _(reported, not documented)_" if f["confidence"] == Confidence.REPORTED else ""
    return (
        f"- {_MARKS[effect.breaks]} **{effect}** {what} — `{f['kind']}`: {md_text(f['rule'])}"
        f"{f' ({bounds})' if bounds else ''}.{reported} Fix: {md_text(f['fix'])}"
    )


def model_gets(t: SessionTruth) -> str:
    """One sentence: what the session's model gets up front and what is deferred, under which
    verdict and why, with the wire number as the labelled second figure (``≥``: a server has
    no number, so each figure is a floor)."""
    shape = _SHAPES.get(t.api_shape or "", "the wire definitions")
    if not t.rules_on_record:
        shape += f": no rule is on record for how {md_text(t.label, 120)} presents tools"
    why = md_text(t.condition, 300)
    at_least = "≥" if t.is_floor else ""
    upfront = f"{at_least}{thousands(t.upfront_tokens)}"
    wire = f"wire {at_least}{thousands(t.wire_tokens)}"
    if t.verdict is LoadVerdict.CANNOT_BE_SAID:
        return (
            f"**What the model gets: {upfront} tokens up front if everything loads** "
            f"({shape}; {wire}). Verdict: cannot be said — {why}"
        )
    deferred = f", {thousands(t.deferred_tokens)} deferred" if t.deferred_tokens else ""
    regime = f"; regime {md_text(t.regime, 60)}" if t.regime else ""
    return (
        f"**What the model gets: {upfront} tokens up front**{deferred} "
        f"({shape}{regime}; {wire}). Verdict: {t.verdict.words} — {why}"
    )


def session_part(
    t: SessionTruth, per_session: int | None, name_limit: int | None
) -> dict[str, Any]:
    """The template part ``session_truth.md.j2``'s values for one session."""
    findings = t.findings if t.rules_on_record else ()
    shown = findings if per_session is None else findings[:per_session]
    return {
        "label": md_text(t.label, 120),
        "gets": model_gets(t),
        "verdict": str(t.verdict),
        "findings": [lens_finding_line(f, name_limit) for f in shown],
        "more": len(findings) - len(shown),
    }


def shown_sessions(doc: Doc) -> list[SessionTruth]:
    """The sessions through the client lens, of the run's clients when it names some."""
    clients = (doc.get("run") or {}).get("clients") or []
    return [
        t
        for t in (session_truth(s) for s in doc["sessions"])
        if t.regime is not None and (not clients or t.client in clients)
    ]


# --------------------------------------------------------------------------- config rows


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerRow:
    """One server of a config, base against head (or head alone with no base side)."""

    source: str
    change: str | None
    name: str
    kind: DiffKind
    base: int | None
    head: int | None
    delta: int | None
    base_status: str | None
    head_status: str | None
    note: str | None
    known_unknown: bool
    tools: tuple[Mapping[str, Any], ...]

    @property
    def unknown(self) -> bool:
        if self.kind in INEXACT_KINDS or self.kind is DiffKind.UNMEASURED:
            return True
        return self.kind is DiffKind.ADDED and self.head is None

    @property
    def unchanged(self) -> bool:
        return self.kind in (DiffKind.UNCHANGED, DiffKind.MEASURED)


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfigRow:
    source: str
    client: str
    base: int | None  # None: no such config on base
    head: int | None  # None: no such config on head
    delta: int | None
    exact: bool
    change: str | None
    problem: str | None
    servers: tuple[ServerRow, ...]

    @property
    def percent(self) -> float | None:
        if not self.base or self.delta is None:
            return None
        return self.delta * 100.0 / self.base

    @property
    def changed(self) -> bool:
        return any(not s.unchanged for s in self.servers) or self.base != self.head


def _first_line(text: str | None) -> str | None:
    return text.strip().splitlines()[0] if text and text.strip() else None


def _head_servers(doc: Doc, source: str) -> dict[str, Mapping[str, Any]]:
    for c in doc["configs"]:
        if c["source"] == source:
            return {s["name"]: s for s in (*c["servers"], *c["skipped"])}
    return {}


def _compared(doc: Doc, c: Mapping[str, Any]) -> ConfigRow:
    head = _head_servers(doc, c["source"])
    change = c.get("change")
    if c["matchedBy"] == "unmatched":  # a config new on head: every server in it is added
        rows = [
            ServerRow(
                source=c["source"],
                change=change,
                name=s["name"],
                kind=DiffKind.ADDED,
                base=None,
                head=s["tokens"],
                delta=s["tokens"],
                base_status=None,
                head_status=s["status"],
                note=_first_line(s.get("notes")),
                known_unknown=False,
                tools=(),
            )
            for s in head.values()
        ]
    else:
        rows = []
        for s in c["servers"]:
            now = head.get(s["name"])
            note = now.get("notes") if now is not None and now["tokens"] is None else None
            rows.append(
                ServerRow(
                    source=c["source"],
                    change=change,
                    name=s["name"],
                    kind=DiffKind(s["kind"]),
                    base=s["before"],
                    head=s["after"],
                    delta=s["delta"],
                    base_status=s["beforeStatus"],
                    head_status=s["afterStatus"],
                    note=_first_line(note) or s.get("note"),
                    known_unknown=bool(s.get("knownUnknown")),
                    tools=tuple(s.get("toolChanges", ())),
                )
            )
    return ConfigRow(
        source=c["source"],
        client=c["client"],
        base=c["beforeTotal"],
        head=c["afterTotal"],
        delta=c["delta"],
        exact=c["exact"],
        change=change,
        problem=None,
        servers=tuple(rows),
    )


def _current(c: Mapping[str, Any]) -> ConfigRow:
    rows = [
        ServerRow(
            source=c["source"],
            change=None,
            name=s["name"],
            kind=DiffKind.MEASURED if s["tokens"] is not None else DiffKind.UNMEASURED,
            base=None,
            head=s["tokens"],
            delta=None,
            base_status=None,
            head_status=s["status"],
            note=_first_line(s.get("notes")),
            known_unknown=False,
            tools=(),
        )
        for s in (*c["servers"], *c["skipped"])
    ]
    return ConfigRow(
        source=c["source"],
        client=c["client"],
        base=None,
        head=c["totalTokens"],
        delta=None,
        exact=not c["skipped"],
        change=None,
        problem=None,
        servers=tuple(rows),
    )


def config_rows(doc: Doc) -> list[ConfigRow]:
    """One row per config on either side, sorted by path."""
    diff = doc.get("diff")
    if diff is None:
        rows = [_current(c) for c in doc["configs"]]
    else:
        rows = [_compared(doc, c) for c in diff["configs"]]
        rows += [
            ConfigRow(
                source=d["source"],
                client=d["client"],
                base=d["totalTokens"],
                head=None,
                delta=None,
                exact=False,
                change=None,
                problem=None,
                servers=(),
            )
            for d in diff["droppedConfigs"]
        ]
    rows += [
        ConfigRow(
            source=e["source"],
            client=e["client"],
            base=None,
            head=None,
            delta=None,
            exact=False,
            change=None,
            problem=_first_line(e["error"]),
            servers=(),
        )
        for e in doc["emptyConfigs"]
        if e.get("error")
    ]
    return sorted(rows, key=lambda r: r.source)


def headline(doc: Doc, rows: list[ConfigRow] | None = None) -> ConfigRow | None:
    """The config the headline (and the scalar outputs) speak for: the largest increase, or
    without a base side the heaviest. A context belongs to one client: one config's numbers."""
    rows = config_rows(doc) if rows is None else rows
    if not rows:
        return None
    if "diff" in doc:
        return max(rows, key=lambda c: (c.delta or 0, c.head or 0))
    return max(rows, key=lambda c: c.head or 0)


# --------------------------------------------------------------------------- verdict


def failures(doc: Doc) -> list[Mapping[str, Any]]:
    return [f for f in doc.get("findings", ()) if f["level"] == "error"]


def passed(doc: Doc) -> bool:
    return not failures(doc)


def unreadable(doc: Doc) -> bool:
    """A config cannot be read: bad input (the step's status is error, exit 2)."""
    return any(f["gate"] == "unreadable" for f in failures(doc))


def changed(doc: Doc) -> bool:
    return any(c.changed for c in config_rows(doc))


def budget_use(doc: Doc) -> str | None:
    """What share of the budget the heaviest session's judged figure is."""
    b = doc.get("budget")
    if not b or not b["limit"] or not b["sessions"]:
        return None
    used = max(s["judgedTokens"] for s in b["sessions"])
    what = "up front" if b["judged"] == "upfront" else "in full"
    return (
        f"{used * 100 / b['limit']:.0f}% of the {thousands(b['limit'])} budget "
        f"(heaviest session, {what})"
    )


# --------------------------------------------------------------------------- the context


def arrow(base: int | None, head: int | None) -> str:
    if base is None and head is None:
        return "—"
    return f"{thousands(base) if base is not None else '—'} → {thousands(head) if head is not None else '—'}"


def change_percent(percent: float | None) -> str:
    """A change already in percent, signed: ``+12.5%`` (empty when unknown)."""
    return "" if percent is None else f"{percent:+.1f}%"


def _icon(row: ServerRow) -> str:
    if row.known_unknown:
        return "known unknown: not measured on either side, launched the same way"
    if row.kind is DiffKind.CHANGED:
        return "🔺" if (row.delta or 0) > 0 else "🔽"
    return KIND_ICONS[row.kind]


def server_cells(row: ServerRow) -> dict[str, str]:
    why = ""
    if row.unknown:
        side = row.base_status if row.kind is DiffKind.UNMEASURED_BEFORE else row.head_status
        why = md_text(f"{side}: {row.note}" if row.note else str(side), NOTE_CELL_LIMIT)
    whole = (
        f" · {row.change}" if row.change and row.kind in (DiffKind.ADDED, DiffKind.REMOVED) else ""
    )
    return {
        "config": code_span(row.source, 120),
        "server": code_span(row.name, NAME_LIMIT),
        "base": thousands(row.base) if row.base is not None else "—",
        "head": thousands(row.head) if row.head is not None else "—",
        "delta": signed(row.delta) if row.delta is not None else "?",
        "what": _icon(row) + (f" ({why})" if why else "") + whole,
    }


def _limits(doc: Doc) -> dict[str, str | None]:
    budget = (doc.get("budget") or {}).get("limit")
    inc = doc.get("increaseGate") or {}
    pct = inc.get("limitPercent")
    return {
        "budget": thousands(budget) if budget is not None else None,
        "max_increase": thousands(inc["limit"]) if inc.get("limit") is not None else None,
        "max_increase_percent": f"{pct:g}%" if pct is not None else None,
    }


def context(
    doc: Doc,
    *,
    key: str,
    max_rows: int | None,
    tool_rows: int | None,
    lens_rows: int | None = LENS_FINDINGS,
    configs: list[ConfigRow] | None = None,
) -> dict[str, Any]:
    """The values of ``comment.md.j2`` and ``summary.md.j2`` for one report (``configs``: its
    ``config_rows``, when the caller renders it several times)."""
    configs = config_rows(doc) if configs is None else configs
    head = headline(doc, configs)
    rows = [r for c in configs for r in c.servers]
    moved = [r for r in rows if not r.unchanged]
    same = [r for r in rows if r.unchanged]
    shown = moved if max_rows is None else moved[:max_rows]
    tools = [(r, t) for r in moved for t in r.tools]
    tools.sort(key=lambda x: (-abs((x[1]["after"] or 0) - (x[1]["before"] or 0)), x[0].name))
    shown_tools = tools if tool_rows is None else tools[:tool_rows]
    found = doc.get("findings", ())
    warnings = [f for f in found if f["level"] == "warning" and f["gate"] != "known-unknown"]
    run = doc.get("run") or {}
    return {
        "marker": marker(key),
        "passed": passed(doc),
        "compared": "diff" in doc,
        "headline": head,
        "delta": signed(head.delta) if head is not None and head.delta is not None else None,
        "arrow": arrow(head.base, head.head) if head is not None else "—",
        "percent": (head.change or change_percent(head.percent)) if head is not None else "",
        "budget_use": budget_use(doc),
        "config_count": len(configs),
        "configs": [
            {
                "source": code_span(c.source, 120) + (f" ({c.change})" if c.change else ""),
                "client": md_text(c.client, 40),
                "arrow": arrow(c.base, c.head),
                "delta": signed(c.delta) if c.delta is not None else "?",
                "percent": change_percent(c.percent),
                "exact": c.exact,
                "problem": md_text(c.problem, NOTE_CELL_LIMIT) if c.problem else None,
            }
            for c in configs
        ],
        "rows": [server_cells(r) for r in shown],
        # every row, for the summary only (the comment's renders would pay for it each time)
        "all_rows": [server_cells(r) for r in rows] if max_rows is None else [],
        "dropped": len(moved) - len(shown),
        "unchanged_count": len(same),
        "unchanged": [
            f"{code_span(r.source, 120)} {code_span(r.name, NAME_LIMIT)} ({thousands(r.head or 0)})"
            for r in (same if max_rows is None else same[:max_rows])
        ],
        "tools": [
            {
                "server": code_span(r.name, NAME_LIMIT),
                "tool": code_span(t["tool"], NAME_LIMIT),
                "base": thousands(t["before"]) if t["before"] is not None else "🆕",
                "head": thousands(t["after"]) if t["after"] is not None else "🗑️",
                "delta": signed((t["after"] or 0) - (t["before"] or 0)),
            }
            for r, t in shown_tools
        ],
        "tools_dropped": len(tools) - len(shown_tools),
        "failures": [md_text(f["text"], 300) for f in failures(doc)],
        # a client-lens finding is in its session's lines: the warnings only count them
        "warnings": [md_text(f["text"], 300) for f in warnings if f["lensKind"] is None],
        "lens_warnings": sum(1 for f in warnings if f["lensKind"] is not None),
        "known_unknowns": [
            md_text(f["text"], 300)
            for f in found
            if f["gate"] == "known-unknown" and f["level"] != "error"
        ],
        "problems": [md_text(p, 300) for p in doc["problems"]],
        "encoding": code_text(doc["encoding"], 40),
        "lenses": [session_part(t, lens_rows, NAME_LIMIT) for t in shown_sessions(doc)],
        "server_lenses": [server_lens_table(x) for x in doc.get("serverLenses", ())],
        "versions": [("mcp-context-cost", md_text(doc["mcpcostVersion"], 60))],
        "base_sha": md_text(run.get("baseSha") or "", 40),
        "head_sha": md_text(run.get("headSha") or "", 40),
        "run_url": run.get("runUrl"),
        **_limits(doc),
    }


def server_lens_table(x: Mapping[str, Any]) -> dict[str, Any]:
    """One server through each client's lens: a row per client (up front, deferred, regime,
    how many findings), then each client's findings, one line each with its fix."""
    rows = []
    findings = []
    for c in x["clients"]:
        v = c["modelView"]
        label = md_text(c["label"], 60)
        rows.append(
            {
                "client": label,
                "upfront": thousands(v["upfrontTokens"]),
                "deferred": thousands(v["deferredTokens"]),
                "regime": md_text(v["regime"], 60),
                "findings": str(len(v["findings"])) if v["rulesOnRecord"] else "no rule on record",
            }
        )
        # the finding's list item, led by its client: "- Cursor: ❌ **drops** ..."
        findings += [f"- {label}: {lens_finding_line(f, NAME_LIMIT)[2:]}" for f in v["findings"]]
    return {
        "server": code_span(x["server"], NAME_LIMIT),
        "wire": thousands(x["wireTokens"]),
        "rows": rows,
        "findings": findings,
    }


# --------------------------------------------------------------------------- renders


@dataclass(frozen=True, slots=True)
class Rendered:
    body: str
    dropped_rows: int


def render_rows(
    doc: Doc,
    key: str,
    rows: int | None,
    tools: int | None,
    configs: list[ConfigRow] | None = None,
) -> Rendered:
    ctx = context(doc, key=key, max_rows=rows, tool_rows=tools, configs=configs)
    return Rendered(render("comment.md.j2", ctx), ctx["dropped"])


def _most_that_fit(count: int, fits: Callable[[int], bool]) -> int:
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


def render_comment(doc: Doc, *, key: str, limit: int = COMMENT_TARGET) -> Rendered:
    """The comment body, at most ``limit`` characters.

    Tool-level rows go first, then server rows, and only as many as needed: the most rows that
    still fit are kept (with a note pointing at the job summary for the rest).
    """
    configs = config_rows(doc)
    full = render_rows(doc, key, None, TOOL_ROWS, configs)
    if len(full.body) <= limit:
        return full
    moved = [r for c in configs for r in c.servers if not r.unchanged]
    tools = sum(len(r.tools) for r in moved)
    kept_tools = _most_that_fit(
        min(tools, TOOL_ROWS),
        lambda k: len(render_rows(doc, key, None, k, configs).body) <= limit,
    )
    body = render_rows(doc, key, None, kept_tools, configs)
    if len(body.body) <= limit:
        return body
    kept_rows = _most_that_fit(
        len(moved), lambda k: len(render_rows(doc, key, k, 0, configs).body) <= limit
    )
    body = render_rows(doc, key, kept_rows, 0, configs)
    if len(body.body) <= limit:
        return body
    # even with no rows the text does not fit (e.g. a flood of failure reasons): cut it
    note = "\n\n> Comment cut to fit GitHub's size limit; see the job summary.\n"
    return Rendered(body.body[: limit - len(note)] + note, len(moved))


def render_summary(doc: Doc) -> str:
    """The job summary: everything the comment has, without the row caps (the caller keeps it
    under the runner's size limit)."""
    ctx = context(doc, key="summary", max_rows=None, tool_rows=None, lens_rows=None)
    return render("summary.md.j2", ctx)
