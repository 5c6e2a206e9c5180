"""The comment's size limit, and fail-on over the engine's gate findings (pure)."""

from __future__ import annotations

from mcpcost.action.comment import render_comment, render_rows
from mcpcost.action.judge import Judgement, verdict_of
from mcpcost.action.outcome import ConfigDiffView, Outcome, ServerDiffView, VerdictView
from mcpcost.audit.diff import DiffKind
from mcpcost.audit.gates import GateFinding, GateResult
from mcpcost.audit.report_model import AuditReport
from mcpcost.configs.clients.presentation import DeferralMode


def outcome(rows: int) -> Outcome:
    servers = tuple(
        ServerDiffView(
            name=f"server-{i:04d}", kind=DiffKind.ADDED, head_tokens=100 + i, delta=100 + i
        )
        for i in range(rows)
    )
    total = sum(s.head_tokens or 0 for s in servers)
    config = ConfigDiffView(
        source=".mcp.json",
        client="claude-code",
        base_total=0,
        head_total=total,
        delta=total,
        servers=servers,
        deferral=DeferralMode.DEFERS_ALL,  # the audit's verdict for the file, by default
        deferral_mechanism="tool-search",
    )
    return Outcome(
        configs=(config,),
        verdict=VerdictView(),
        compared=True,
        head_sha="h" * 40,
        base_sha="b" * 40,
        pr_number=1,
    )


def test_a_body_of_exactly_the_limit_is_kept_whole() -> None:
    o = outcome(40)
    full = render_comment(o, key="k", limit=10**6)
    assert full.dropped_rows == 0
    exact = render_comment(o, key="k", limit=len(full.body))
    assert exact.body == full.body and exact.dropped_rows == 0


def test_one_character_over_drops_one_row_not_half() -> None:
    o = outcome(40)
    full = render_comment(o, key="k", limit=10**6)
    limit = len(full.body) - 1
    cut = render_comment(o, key="k", limit=limit)
    # the note about dropped rows costs a row or so itself; never half the table
    assert 1 <= cut.dropped_rows <= 2 and len(cut.body) <= limit
    assert len(render_rows(o, "k", 40 - cut.dropped_rows + 1, 0).body) > limit
    assert "server-0037" in cut.body and "server-0039" not in cut.body
    assert f"{cut.dropped_rows} more rows are in the job summary" in cut.body


def test_only_as_many_rows_as_needed_are_dropped() -> None:
    o = outcome(300)
    size = len(render_comment(o, key="k", limit=10**6).body)
    for limit in (size // 3, size // 2, size - 1):
        r = render_comment(o, key="k", limit=limit)
        kept = 300 - r.dropped_rows
        assert 0 < kept < 300 and len(r.body) <= limit
        # one more row would not have fitted
        assert len(render_rows(o, "k", kept + 1, 0).body) > limit


def test_nothing_fits_then_the_text_is_cut_with_a_note() -> None:
    r = render_comment(outcome(5), key="k", limit=300)
    assert len(r.body) <= 300 and r.body.endswith("see the job summary.\n")


def _judgement(*findings: GateFinding) -> Judgement:
    report = AuditReport(
        methodology_version="1",
        encoding="o200k_base",
        generated_at="",
        context_window=200_000,
        configs=(),
    )
    gates = GateResult(
        passed=not findings, reasons=tuple(f.text for f in findings), findings=findings
    )
    return Judgement(head=report, base=None, diff=None, gates=gates)


def test_fail_on_sorts_the_engines_findings() -> None:
    j = _judgement(
        GateFinding(gate="budget", source=".mcp.json", text="over"),
        GateFinding(gate="unmeasured", source=".mcp.json", text="x failed", server="x"),
        GateFinding(gate="increase", source="a/.mcp.json", text="grew"),
    )
    lines = {(".mcp.json", "x"): 7}
    v = verdict_of(j, {"budget", "increase", "unmeasured"}, lines)
    assert not v.passed and [r.text for r in v.failures] == ["over", "x failed", "grew"]
    # a budget failure with no better line is annotated on line 1 of the judged file
    assert [(r.source, r.line) for r in v.failures] == [
        (".mcp.json", 1),
        (".mcp.json", 7),
        ("a/.mcp.json", 1),
    ]
    only_budget = verdict_of(j, {"budget"}, lines)
    assert [r.text for r in only_budget.failures] == ["over"]
    assert [r.text for r in only_budget.warnings] == ["x failed", "grew"]
    none = verdict_of(j, set(), lines)
    assert none.passed and len(none.warnings) == 3


def test_the_encoding_in_a_code_span_is_not_backslash_escaped() -> None:
    # a backslash inside a code span renders literally: o200k\_base would show the backslash
    body = render_comment(outcome(1), key="k", limit=10**6).body
    assert "`o200k_base`" in body and "o200k\\_base" not in body


def test_a_claude_code_config_says_the_client_defers_by_default() -> None:
    from dataclasses import replace

    body = render_comment(outcome(1), key="k", limit=10**6).body
    assert "> `claude-code` defers MCP tool definitions by default (tool search)" in body
    cursor = outcome(1)
    cursor = replace(
        cursor,
        configs=tuple(
            replace(
                c,
                client="cursor",
                deferral=DeferralMode.NONE_ON_RECORD,
                deferral_mechanism=None,
            )
            for c in cursor.configs
        ),
    )
    assert "defers MCP tool definitions" not in render_comment(cursor, key="k", limit=10**6).body
