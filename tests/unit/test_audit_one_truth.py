"""One truth per client session (issue 33): the reproductions of the issue, and agreement as a
property. Every session's up-front and deferred figures and its verdict come from its one
``ModelView``; the text report, the JSON report and the Markdown say the same, and the budget
follows them."""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpcost.audit.compose import Audit
from mcpcost.audit.gates import Gate, evaluate_gates
from mcpcost.audit.model_view import LoadVerdict
from mcpcost.configs.clients.claude_code import TOOL_SEARCH
from mcpcost.core.status import Status
from mcpcost.render.json_report import render_json
from mcpcost.render.markdown_report import render_markdown
from mcpcost.render.report_markdown import render_comment, render_summary
from mcpcost.render.run_report import run_report
from mcpcost.render.sarif_report import render_sarif
from mcpcost.render.text_report import render_text
from tests.helpers.audit_builders import config, entry, report_for, tools
from tests.helpers.report_schema import SCHEMA

WORDS = {
    "loaded up front": LoadVerdict.LOADED_UP_FRONT,
    "deferred": LoadVerdict.DEFERRED,
    "cannot be said": LoadVerdict.CANNOT_BE_SAID,
}
HEADING = re.compile(
    r"^(?P<label>.+?) — (?P<floor>≥)?(?P<up>[\d,]+)(?P<all> \(all\))? up front"
    r"(?: · (?P<back>[\d,]+) kept back)? \((?P<verdict>[a-z ]+)\) · wire"
)


def validate(obj: Any) -> None:
    jsonschema.Draft202012Validator(SCHEMA).validate(obj)


def _n(text: str | None) -> int:
    return int(text.replace(",", "")) if text else 0


def text_sessions(text: str) -> dict[str, tuple[int, int, LoadVerdict, bool]]:
    """Each session heading of the text report: (up front, deferred, verdict, ceiling)."""
    out = {}
    for line in text.splitlines():
        m = HEADING.match(line)
        if m:
            verdict = WORDS[m["verdict"]]
            out[m["label"]] = (_n(m["up"]), _n(m["back"]), verdict, m["all"] is not None)
    return out


def overview_rows(text: str, labels: list[str]) -> dict[str, str]:
    """The overview table's up-front cell per session label."""
    out = {}
    for line in text.splitlines():
        for label in labels:
            if line.startswith(f"  {label} ") and label not in out:
                out[label] = line[len(label) + 2 :].split("  ")[0].strip() or line.split()[1]
    return out


def agree(report: Any, limit: int) -> None:
    """Text, JSON and Markdown agree with each session's view, and the budget follows it."""
    gates = evaluate_gates(report, None, budget=limit)
    obj = json.loads(render_json(report, None, gates))
    validate(obj)
    text = render_text(report, None, gates, width=200)
    shown = text_sessions(text)
    md = render_markdown(report)
    budget = {b["key"]: b for b in obj["budget"]["sessions"]}
    for s, js in zip(report.sessions, obj["sessions"], strict=True):
        mv = s.model_view
        v = js["modelView"]
        assert (v["upfrontTokens"], v["deferredTokens"], v["verdict"]) == (
            mv.upfront_tokens,
            mv.deferred_tokens,
            mv.verdict,
        )
        assert v["wireTokens"] == s.total_tokens == sum(x["wireTokens"] for x in v["servers"])
        assert v["upfrontTokens"] == sum(x["upfrontTokens"] for x in v["servers"])
        assert shown[s.label] == (mv.upfront_tokens, mv.deferred_tokens, mv.verdict, mv.ceiling)
        if mv.verdict is not LoadVerdict.DEFERRED:
            assert mv.deferred_tokens == 0
        if mv.rules_on_record:
            floor = "≥" if mv.unmeasured else ""
            assert f"What the model gets: {floor}{mv.upfront_tokens:,} tokens up front" in md
        # per config, the reference-compatible deferral is the same view's
        for c in obj["configs"]:
            if c["client"] == s.client and c["source"] in s.sources:
                assert c["deferral"]["mode"] == mv.loading.mode
        b = budget[s.key]
        assert b["judgedTokens"] == mv.upfront_tokens
        assert b["basis"] == ("ceiling" if mv.ceiling else "upfront")
        assert b["over"] is (mv.upfront_tokens > limit)
    over = any(s.model_view.upfront_tokens > limit for s in report.sessions)
    if over:
        assert gates.budget is not None and not gates.budget.passed
    action_and_sarif_agree(report, gates)


def action_and_sarif_agree(report: Any, gates: Any) -> None:
    """The Action's document (the audit report plus the run's findings), read back as its second
    phase reads it, renders the comment, the summary and the SARIF log with each session's
    verdict and up-front figure from the same view."""
    audit = Audit(report=report, diff=None, gates=gates)
    doc = json.loads(json.dumps(run_report(audit, lines={}, fail_on=frozenset(Gate))))
    validate(doc)
    comment = render_comment(doc, key="k", limit=10**6).body
    summary = render_summary(doc)
    sarif = json.loads(render_sarif(doc))
    by_label = {x["label"]: x for x in sarif["runs"][0]["properties"]["sessions"]}
    for s in report.sessions:
        mv = s.model_view
        said = by_label[s.label]
        assert (said["verdict"], said["upfrontTokens"], said["deferredTokens"]) == (
            mv.verdict,
            mv.upfront_tokens,
            mv.deferred_tokens,
        )
        assert said["atLeast"] is bool(mv.unmeasured)
        if s.client == "explicit":
            continue  # no client lens: the comment lists what each client's model gets
        floor = "≥" if mv.unmeasured else ""
        gets = f"- {s.label}: **What the model gets: {floor}{mv.upfront_tokens:,} tokens up front"
        for body in (comment, summary):
            line = next(x for x in body.splitlines() if x.startswith(gets))
            assert f"Verdict: {mv.verdict.words} — " in line


# --------------------------------------------------------------------- the reproductions


def test_an_auto_threshold_judged_on_the_estimate_is_one_verdict_everywhere() -> None:
    """140 tools, ENABLE_TOOL_SEARCH=auto, a 20,000-token context, --budget 3000: the table, the
    verdict, the details and the budget said three different things (6,162 up front beside
    "these definitions are deferred")."""
    table: dict[str, list[Any] | Status] = {"big": tools("t", 140, 12)}
    report = report_for(
        [config("claude-code", "/home/u/.claude.json", entry("big"))],
        table,
        shell_environ={TOOL_SEARCH: "auto"},
        settings={},
        context_window=20_000,
    )
    (s,) = report.sessions
    mv = s.model_view
    assert s.claude_estimate is not None and mv.loading.request is not None
    assert mv.loading.request.low >= 2_000  # the estimate is past 10% of 20,000
    assert mv.verdict is LoadVerdict.DEFERRED and mv.upfront_tokens < mv.deferred_tokens
    gates = evaluate_gates(report, None, budget=3_000)
    assert gates.budget is not None and gates.budget.passed
    details = render_text(report, None, gates, width=200, details=True)
    assert "That is at or above the threshold: these definitions are deferred." in details
    assert f"Loaded up front on every request: {mv.upfront_tokens:,} tokens." in details
    agree(report, 3_000)


def test_codex_and_cursor_regimes_are_the_verdict_not_no_deferral_on_record() -> None:
    table: dict[str, list[Any] | Status] = {"many": tools("m", 100, 4), "few": tools("f", 3, 4)}
    report = report_for(
        [
            config("codex", "/home/u/.codex/config.toml", entry("many")),
            config("cursor", "/home/u/.cursor/mcp.json", entry("few")),
        ],
        table,
        shell_environ={},
        settings={},
    )
    obj = json.loads(render_json(report))
    for c in obj["configs"]:
        assert c["deferral"]["mode"] != "no-deferral-on-record"
    views = {s["client"]: s["modelView"] for s in obj["sessions"]}
    assert views["codex"]["verdict"] == views["cursor"]["verdict"] == "deferred"
    md = render_markdown(report)
    assert "No default deferral" not in md and "every request carries these tokens" not in md
    agree(report, 100)


def test_a_ceiling_is_one_number_labelled_as_one() -> None:
    """``≤5,248+`` in the table beside ``upfrontTokens`` 4,526: now one figure, the view's."""
    table: dict[str, list[Any] | Status] = {"a": tools("a", 5, 6), "dead": Status.STARTUP_FAILURE}
    report = report_for(
        [config("claude-code", "/home/u/.claude.json", entry("a"), entry("dead"))],
        table,
        shell_environ={TOOL_SEARCH: "auto"},
        settings={},
    )
    (s,) = report.sessions
    assert s.model_view.verdict is LoadVerdict.CANNOT_BE_SAID
    text = render_text(report, width=200)
    assert "≤" not in text and f"≥{s.model_view.upfront_tokens:,} (all)" in text
    agree(report, 10)


def test_shares_and_the_remedy_use_the_projected_numbers() -> None:
    table: dict[str, list[Any] | Status] = {"a": tools("a", 6, 30), "b": tools("b", 1, 3)}
    report = report_for(
        [config("gemini", "/home/u/.gemini/settings.json", entry("a"), entry("b"))],
        table,
        shell_environ={},
        settings={},
    )
    (s,) = report.sessions
    mv = s.model_view
    top = s.servers[0].server
    load = next(x for x in mv.servers if x.name == top.name)
    assert top.share == load.projected_tokens / mv.projected_tokens
    text = render_text(report, width=200)
    assert f"of its {mv.projected_tokens:,} tokens of definitions as its model gets them" in text


# --------------------------------------------------------------------- agreement as a property

CLIENTS = [
    "claude-code",
    "codex",
    "cursor",
    "copilot",
    "vscode",
    "gemini",
    "github-app",
    "windsurf",
    "zed",
    "goose",
    "explicit",
]
SHELLS = [
    {},
    {TOOL_SEARCH: "true"},
    {TOOL_SEARCH: "false"},
    {TOOL_SEARCH: "auto"},
    {TOOL_SEARCH: "auto:1"},
    {TOOL_SEARCH: "auto:50"},
    {TOOL_SEARCH: "sometimes"},
    {"CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS": "1"},
    {"ANTHROPIC_BASE_URL": "https://proxy.example.invalid"},
]
SOURCES = {
    "claude-code": "/home/u/.claude.json",
    "codex": "/home/u/.codex/config.toml",
    "cursor": "/home/u/.cursor/mcp.json",
    "copilot": "/home/u/.copilot/mcp-config.json",
    "vscode": "/w/.vscode/mcp.json",
    "gemini": "/home/u/.gemini/settings.json",
    "github-app": "/home/u/.copilot/mcp-config.json",
    "windsurf": "/home/u/.codeium/windsurf/mcp_config.json",
    "zed": "/home/u/.config/zed/settings.json",
    "goose": "/home/u/.config/goose/config.yaml",
    "explicit": "/tmp/x/mcp.json",
}


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    client=st.sampled_from(CLIENTS),
    shell=st.sampled_from(SHELLS),
    # sizes around each regime's threshold: 29/30 and 99/100 tools, and a context window that
    # puts auto thresholds on either side of the session
    counts=st.lists(st.sampled_from([1, 3, 29, 30, 70, 99, 100]), min_size=1, max_size=2),
    dead=st.booleans(),
    pinned=st.booleans(),
    window=st.sampled_from([2_000, 20_000, 200_000]),
    limit=st.sampled_from([0, 50, 500, 5_000]),
)
def test_every_format_agrees_on_every_session(
    client: str,
    shell: dict[str, str],
    counts: list[int],
    dead: bool,
    pinned: bool,
    window: int,
    limit: int,
) -> None:
    table: dict[str, list[Any] | Status] = {
        f"s{i}": tools(f"s{i}", n, 3) for i, n in enumerate(counts)
    }
    entries = [entry(name, always_load=pinned and i == 0) for i, name in enumerate(table)]
    if dead:
        table["dead"] = Status.STARTUP_FAILURE
        entries.append(entry("dead"))
    report = report_for(
        [config(client, SOURCES[client], *entries)],
        table,
        shell_environ=shell,
        settings={},
        context_window=window,
    )
    agree(report, limit)
