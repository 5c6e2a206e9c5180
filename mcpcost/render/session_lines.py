"""The text report's client session blocks: the server table, the compact block the default
report shows (figures, the deferral verdict in a line, the Claude tokens, what has no number and
why) and the whole block of ``--details``, and the servers several clients load. ``text_report``
lays them out; every line passes its escaping and width boundary there."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from mcpcost.audit.gates import UPFRONT, session_cost
from mcpcost.audit.model_view import LoadVerdict, ModelView
from mcpcost.audit.report_model import (
    AuditReport,
    ClientSession,
    ConfigResult,
    HeaviestTool,
    ServerResult,
    TrimAdvice,
    first_line,
)
from mcpcost.configs.clients.presentation import Confidence, DeferralMode
from mcpcost.configs.config_file import ClientName
from mcpcost.core.plural import counted
from mcpcost.render.deferral_lines import deferral_block, mechanism_words
from mcpcost.render.gate_lines import _with_reasons
from mcpcost.render.text_format import share_percent, table, thousands
from mcpcost.render.text_overview import upfront_cell

RULE = "─"


def upfront_line(mv: ModelView) -> str:
    """The view's up-front figure in a sentence, labelled as a ceiling where it is one."""
    floor = "at least " if mv.unmeasured else ""
    if mv.ceiling:
        return (
            f"  If everything loads: {floor}{thousands(mv.upfront_tokens)} tokens up front on "
            "every request (whether it defers them cannot be said)."
        )
    return f"  Loaded up front on every request: {floor}{thousands(mv.upfront_tokens)} tokens."


def session_start_cell(s: ServerResult) -> str:
    """A server's session-start cost as the tables show it (``≥`` when only partly known)."""
    ss = s.session_start
    if ss is None:
        return "—"
    return f"≥{thousands(ss.total)}" if ss.is_floor else thousands(ss.total)


# --------------------------------------------------------------------- sessions


def _files(sources: Sequence[str]) -> dict[str, str]:
    return {src: str(i) for i, src in enumerate(sources, start=1)}


def client_session_table(
    s: ClientSession, anthropic: bool, numbered: Mapping[str, str]
) -> list[str]:
    """The session's servers as its model gets them (the view's projected tokens up front and
    deferred), with each one's wire number and share of the projected total."""
    many = len(numbered) > 1
    mv = s.model_view
    loads = {x.name: x for x in mv.servers}
    head = ["server", "tools", "up front", "deferred", "wire", "share", "start"]
    head += (["claude"] if anthropic else []) + (["from"] if many else [])
    rows: list[list[str]] = [head]
    for e in s.servers:
        v = e.server
        load = loads.get(v.name)
        row = [
            v.name,
            thousands(v.tool_count or 0),
            thousands(load.upfront_tokens) if load is not None else "—",
            thousands(load.deferred_tokens) if load is not None else "—",
            thousands(v.tokens or 0),
            share_percent(v.share or 0.0),
            session_start_cell(v),
        ]
        if anthropic:
            row.append(thousands(v.anthropic_tokens) if v.anthropic_tokens is not None else "—")
        if many:
            row.append(numbered[e.source])
        rows.append(row)
    total = [
        "total",
        thousands(s.tool_count),
        thousands(mv.upfront_tokens),
        thousands(mv.deferred_tokens),
        thousands(mv.wire_tokens),
    ] + [""] * (len(head) - 5)
    right = [False] + [True] * (len(head) - 1)
    lines = table([*rows, total], right)
    width = max(len(x) for x in lines) - 2
    return [*lines[:-1], "  " + RULE * width, lines[-1]]


def session_figures(s: ClientSession) -> str:
    """The session's figures in its heading, all the view's: up front (a ceiling labelled as
    one), deferred, the verdict, and the wire number as a second figure."""
    cost = session_cost(s, UPFRONT)
    mv = s.model_view
    out = f"{upfront_cell(s, cost)} up front"
    if mv.deferred_tokens:
        out += f" · {thousands(mv.deferred_tokens)} kept back"
    wire = ("≥" if s.skipped else "") + thousands(mv.wire_tokens)
    return out + f" ({mv.verdict.words}) · wire {wire}"


def cut(text: str, width: int) -> str:
    """One line of at most ``width`` characters (a cut one ends in "…"; --json has it whole)."""
    return text if len(text) <= width else text[: width - 1] + "…"


def source_lines(
    s: ClientSession,
    by_file: Mapping[tuple[ClientName, str], ConfigResult],
    numbered: Mapping[str, str],
) -> list[str]:
    """The session's file, or its files numbered with their scopes."""
    if len(s.sources) == 1:
        return [f"  file: {s.sources[0]}"]
    scope = {src: by_file[(s.client, src)].scope for src in s.sources if (s.client, src) in by_file}
    return [f"  [{numbered[src]}] {src} ({scope.get(src, '?')})" for src in s.sources]


def switched_off(
    s: ClientSession, by_file: Mapping[tuple[ClientName, str], ConfigResult]
) -> list[tuple[str, str]]:
    """(name, source) of each server the session's files switch off, with why where known."""
    return [
        (name, src)
        for src in s.sources
        if (s.client, src) in by_file
        for name in _with_reasons(
            by_file[(s.client, src)].disabled, by_file[(s.client, src)].disabled_reasons
        )
    ]


def heaviest_lines(heaviest: Sequence[HeaviestTool], trim: TrimAdvice | None, of: str) -> list[str]:
    """The heaviest tools of a session or a config file (``of``), and what trimming recovers."""
    out: list[str] = []
    if heaviest:
        out += ["", "  heaviest tools"]
        rows = [[f"{h.server} · {h.tool}", thousands(h.tokens)] for h in heaviest]
        out += table(rows, [False, True], indent="    ")
    if trim:
        names = ", ".join(f"{h.server}·{h.tool}" for h in trim.tools)
        out += [
            "",
            f"  trim: disabling {counted(len(trim.tools), 'tool')} ({names}) would recover "
            f"{thousands(trim.recoverable_tokens)} tokens ({share_percent(trim.recoverable_share)} "
            f"of this {of}) — if your client supports per-tool filtering.",
        ]
    return out


def client_session_block(
    s: ClientSession,
    report: AuditReport,
    by_file: Mapping[tuple[ClientName, str], ConfigResult],
    width: int,
) -> list[str]:
    anthropic = report.anthropic_divergence is not None
    numbered = _files(s.sources)
    mv = s.model_view
    floor = "at least " if mv.unmeasured else ""
    files = f"{len(s.sources)} file{'s' if len(s.sources) != 1 else ''}"
    measured = f"{s.server_count} measured" + (f", {len(s.skipped)} not" if s.skipped else "")
    out = [f"{s.label} — {session_figures(s)} · {measured} · {files}"]
    out += source_lines(s, by_file, numbered)
    if s.servers:
        out += client_session_table(s, anthropic, numbered)
        out.append("")
    out.append(
        f"  {floor}{thousands(mv.upfront_tokens)} tokens up front — "
        f"{share_percent(s.context_share)} of a {thousands(report.context_window)}-token context "
        "window."
    )
    out += claude_line(s)
    out += lens_finding_lines(s)
    out += deferral_block(mv.loading, report.context_window)
    out.append(upfront_line(mv))

    def tag(source: str) -> str:
        return f" [{numbered[source]}]" if len(s.sources) > 1 else ""

    if s.overridden:
        out += ["", "  declared twice, loaded once"]
        out += [f"    {o.name}{tag(o.source)}: not loaded — {o.why}" for o in s.overridden]
        if s.precedence_source:
            out.append(f"    (source: {s.precedence_source})")
    out += heaviest_lines(s.heaviest_tools, s.trim_advice, "session")
    if s.skipped:
        out += ["", "  not measured"]
        for e in s.skipped:
            v = e.server
            # wrapped by fit_width, never cut: a consent note ends with the flag that runs it
            out.append(
                f"    {v.name}{tag(e.source)}: {v.status} — {first_line(v.notes) or 'no detail'}"
            )
    notes = [
        (e.server.name, e.source, note)
        for e in (*s.servers, *s.skipped)
        for note in e.server.config_notes
    ]
    if notes:
        out += ["", "  notes"] + [f"    {name}{tag(src)}: {note}" for name, src, note in notes]
    off = switched_off(s, by_file)
    if off:
        out += ["", "  switched off: " + ", ".join(f"{name}{tag(src)}" for name, src in off)]
    return out


def lens_finding_lines(s: ClientSession) -> list[str]:
    """Every client-lens finding of the session, one line each, ending in its fix; a rule users
    report but the vendor does not document says so. A client with nothing on record reads as
    such (docs/CLIENTS.md)."""
    mv = s.model_view
    if mv.loading.mode is DeferralMode.CLIENT_UNKNOWN:
        return []
    if not mv.rules_on_record:
        return [f"  client lens: no rule of {s.label}'s is on record (docs/CLIENTS.md)."]
    out: list[str] = []
    for f in mv.findings:
        where = ".".join(x for x in (f.server, f.tool) if x) or "the session"
        known = " (reported, not documented)" if f.confidence is Confidence.REPORTED else ""
        out.append(f"  {f.kind} {where}: {f.rule.rstrip('.')}{known}; fix: {f.fix.rstrip('.')}.")
    return out


def _deferral_line(s: ClientSession, width: int) -> list[str]:
    """The session's verdict in the default report: one line where it is a common one (the
    boilerplate is said once at the end), else the verdict as --details has it without where
    it was read."""
    v = s.model_view.loading
    if v.mode is DeferralMode.NONE_ON_RECORD:
        return [
            f"  deferral: none on record for {s.label}; whether it defers cannot be said, so the"
            " figure is the cost if everything loads.*"
        ]
    if v.mode is DeferralMode.CLIENT_UNKNOWN:
        return [
            "  deferral: which client reads this file is not known (--config); whether it defers"
            " cannot be said, so the figure is the cost if everything loads."
        ]
    if v.mode is DeferralMode.DEFERS_ALL and v.setting is not None:
        st = v.setting
        how = (
            f"; {st.variable}={st.value}"
            if st.read_from_machine
            else f"; {st.variable} unset, the documented default"
        )
        al = v.always_load
        pinned = ", ".join((*al.servers, *al.unmeasured))
        loads = f'; pinned "alwaysLoad": {pinned} (they stay up front)' if pinned else ""
        return [
            f"  deferral: {s.label} defers every MCP tool definition ({mechanism_words(v)}{how}){loads};"
            " where it does not apply: --details."
        ]
    if v.setting is None:
        return [f"  deferral: {v.condition}"]
    return [line for line in deferral_block(v, 0) if not line.startswith("  Where this was read")]


def claude_line(s: ClientSession) -> list[str]:
    """The session's Claude tokens, exact or estimated, always labelled (a client that sends
    Anthropic-shaped tools only)."""
    e = s.claude_estimate
    if e is None:
        return []
    deferring = s.model_view.verdict is LoadVerdict.DEFERRED
    when = "sent in full, these definitions are" if deferring else "these definitions are"
    floor = " (the servers with a number)" if s.skipped else ""
    return [f"  Claude: {when} {e.describe()}{floor}."]


def compact_session_block(
    s: ClientSession,
    report: AuditReport,
    by_file: Mapping[tuple[ClientName, str], ConfigResult],
    width: int,
) -> list[str]:
    """A session in the default report: its figures, its servers, its deferral in a line, and
    what has no number and why (wrapped, never cut)."""
    anthropic = report.anthropic_divergence is not None
    numbered = _files(s.sources)
    files = f"{len(s.sources)} file{'s' if len(s.sources) != 1 else ''}"
    measured = f"{s.server_count} measured" + (f", {len(s.skipped)} not" if s.skipped else "")
    out = [f"{s.label} — {session_figures(s)} · {measured} · {files}"]
    out += source_lines(s, by_file, numbered)
    if s.servers:
        out += client_session_table(s, anthropic, numbered)
    out += claude_line(s)
    out += _deferral_line(s, width)
    out += lens_finding_lines(s)

    def tag(source: str) -> str:
        return f" [{numbered[source]}]" if len(s.sources) > 1 else ""

    if s.overridden:
        out.append(
            "  declared twice, loaded once: "
            + ", ".join(f"{o.name}{tag(o.source)} not loaded ({o.why})" for o in s.overridden)
        )
    for e in s.skipped:
        v = e.server
        out.append(
            f"  not measured: {v.name}{tag(e.source)}: {v.status} — {first_line(v.notes) or 'no detail'}"
        )
    for e in (*s.servers, *s.skipped):
        for note in e.server.config_notes:
            out.append(f"  note: {e.server.name}{tag(e.source)}: {note}")
    off = switched_off(s, by_file)
    if off:
        out.append("  switched off: " + ", ".join(f"{name}{tag(src)}" for name, src in off))
    return out


def shared_servers(report: AuditReport) -> list[str]:
    """A server (one launch) that several clients load, once, with the clients that load it."""
    seen: dict[str, tuple[str, int | None, list[str]]] = {}
    for s in report.sessions:
        for e in (*s.servers, *s.skipped):
            key = e.server.launch_key
            if key is None:
                continue
            name, tokens, labels = seen.setdefault(key, (e.server.name, e.server.tokens, []))
            if s.label not in labels:
                labels.append(s.label)
    rows = [(name, tokens, labels) for name, tokens, labels in seen.values() if len(labels) > 1]
    if not rows:
        return []
    rows.sort(key=lambda r: (-(r[1] or 0), r[0]))
    out = ["servers loaded by more than one client (each pays it in full)"]
    for name, tokens, labels in rows:
        size = f"{thousands(tokens)} tokens" if tokens is not None else "no number"
        out.append(f"  {name} ({size}): {', '.join(labels)}")
    return out
