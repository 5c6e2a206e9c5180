"""The budget judges what a session loads up front per request (issue 25 item 2): a gate table
with and without deferral, the full definitions under --budget-full, and the command line and
the Action's audit agreeing on every row."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcpcost.action.measure_sides import _audit
from mcpcost.action.settings import Settings
from mcpcost.audit.compose import AuditInputs, AuditOptions, GateRequest, run_audit
from mcpcost.audit.gates import BudgetCost, evaluate_gates
from mcpcost.configs.clients.claude_code import TOOL_SEARCH
from mcpcost.configs.config_file import ConfigFile
from mcpcost.core.measure import measure_tools
from mcpcost.core.model import Measurement
from mcpcost.core.spec import ServerSpec
from mcpcost.core.status import Status
from mcpcost.render.json_report import render_json
from mcpcost.render.text_report import render_text
from tests.helpers.audit_builders import TABLE, config, entry, measure_from, report_for, tools

T: dict[str, list[Any] | Status] = {**TABLE, "big": tools("g", 12, 9)}
BIG = measure_tools(T["big"]).total_tokens  # type: ignore[arg-type]
ALPHA = measure_tools(T["alpha"]).total_tokens  # type: ignore[arg-type]
LIMIT = 200  # over alpha's definitions alone, under big's
LENS = -1  # the expected figure is the session view's up-front count
PROJECTED = -2  # ... its every projected definition, up front or deferred


def _claude(*, pinned: bool = False, dead: bool = False) -> list[ConfigFile]:
    entries = [entry("big"), entry("alpha", always_load=pinned)]
    if dead:
        entries.append(entry("dead"))
    return [config("claude-code", "/home/ana/.claude.json", *entries)]


def _one(client: str, source: str) -> list[ConfigFile]:
    return [config(client, source, entry("big"), entry("alpha"))]


# (case, configs, shell, judged, passed, judged tokens, basis)
TABLE_ROWS: list[tuple[str, list[ConfigFile], dict[str, str], BudgetCost, bool, int, str]] = [
    ("defers all: only names up front", _claude(), {}, "upfront", True, LENS, "upfront"),
    ("defers all, full asked", _claude(), {}, "full", False, PROJECTED, "full"),
    (
        "defers all, one pinned over the limit",
        _claude(pinned=True),
        {},
        "upfront",
        False,
        LENS,
        "upfront",
    ),
    (
        "tool search off: all up front",
        _claude(),
        {TOOL_SEARCH: "false"},
        "upfront",
        False,
        LENS,
        "upfront",
    ),
    (
        "defers all, an unmeasured server is deferred too",
        _claude(dead=True),
        {},
        "upfront",
        True,
        LENS,
        "upfront",
    ),
    (
        "threshold undecided with an unmeasured server: the ceiling judged",
        _claude(dead=True),
        {TOOL_SEARCH: "auto"},
        "upfront",
        False,
        LENS,
        "ceiling",
    ),
    (
        "no deferral rule on record: the ceiling judged",
        _one("gemini", "/home/ana/.gemini/settings.json"),
        {},
        "upfront",
        False,
        LENS,
        "ceiling",
    ),
    (
        "no deferral rule on record, full asked",
        _one("gemini", "/home/ana/.gemini/settings.json"),
        {},
        "full",
        False,
        PROJECTED,
        "full",
    ),
    (
        "an explicit file: the wire definitions, a ceiling",
        [config("explicit", "/tmp/x/mcp.json", entry("alpha"))],
        {},
        "upfront",
        True,
        ALPHA,
        "ceiling",
    ),
    (
        "an explicit file over the limit",
        [config("explicit", "/tmp/x/mcp.json", entry("big"))],
        {},
        "upfront",
        False,
        BIG,
        "ceiling",
    ),
]
IDS = [row[0] for row in TABLE_ROWS]


@pytest.mark.parametrize(
    ("case", "configs", "shell", "judged", "passed", "tokens", "basis"), TABLE_ROWS, ids=IDS
)
def test_budget_gate_table(
    case: str,
    configs: list[ConfigFile],
    shell: dict[str, str],
    judged: BudgetCost,
    passed: bool,
    tokens: int,
    basis: str,
) -> None:
    report = report_for(configs, T, shell_environ=shell, settings={})
    g = evaluate_gates(report, None, budget=LIMIT, budget_judges=judged)
    assert g.budget is not None
    (session,) = g.budget.sessions
    mv = report.sessions[0].model_view
    expected = {LENS: mv.upfront_tokens, PROJECTED: mv.projected_tokens}.get(tokens, tokens)
    assert (session.cost, session.basis, session.judged) == (expected, basis, judged)
    assert session.total == report.sessions[0].total_tokens
    assert g.passed is passed and g.budget.passed is passed
    assert session.deferred == mv.deferred_tokens


def test_the_gate_line_names_the_cost_it_judged() -> None:
    report = report_for(_claude(), T, shell_environ={}, settings={})
    up = evaluate_gates(report, None, budget=LIMIT)
    full = evaluate_gates(report, None, budget=LIMIT, budget_judges="full")
    up_text, full_text = render_text(report, None, up), render_text(report, None, full)
    assert f"Budget {LIMIT:,} on tokens loaded up front per request: every session fits" in up_text
    assert (
        f"Budget {LIMIT:,} on every tool definition, deferred or not (--budget-full)" in full_text
    )
    assert "FAILED" in full_text and "FAILED" not in up_text
    assert "(--budget-full)." in full.budget.reasons[0]  # type: ignore[union-attr]


def test_an_over_finding_says_what_loads_up_front_and_what_is_deferred() -> None:
    report = report_for(_claude(pinned=True), T, shell_environ={}, settings={})
    mv = report.sessions[0].model_view
    assert mv is not None and mv.upfront_tokens > LIMIT and mv.deferred_tokens > 0
    g = evaluate_gates(report, None, budget=LIMIT)
    assert g.budget is not None and not g.passed
    (text,) = g.budget.reasons
    assert text == (
        f"Claude Code loads {mv.upfront_tokens:,} tokens up front per request "
        f"({mv.deferred_tokens:,} more are deferred), {mv.upfront_tokens - LIMIT:,} over the "
        f"{LIMIT:,} budget."
    )
    # the plan drops the view's per-server up-front figures: the pinned server first
    fit = g.budget.sessions[0].fit
    assert fit is not None and fit.drop[0].name == "alpha" and fit.feasible


def test_a_drop_plan_where_the_figure_is_a_sum_of_servers() -> None:
    configs = [config("explicit", "/tmp/x/mcp.json", entry("big"), entry("alpha"))]
    g = evaluate_gates(report_for(configs, T), None, budget=LIMIT)
    fit = g.budget.sessions[0].fit  # type: ignore[union-attr]
    assert fit is not None and [s.name for s in fit.drop] == ["big"] and fit.feasible


def test_json_keeps_the_reference_fields_and_adds_what_was_judged() -> None:
    report = report_for(_claude(), T, shell_environ={}, settings={})
    g = evaluate_gates(report, None, budget=LIMIT)
    obj = json.loads(render_json(report, None, g))["budget"]
    assert obj["worstTotal"] == BIG + ALPHA  # the heaviest session's definitions, as before
    assert obj["limit"] == LIMIT and obj["passed"] is True and obj["over"] is False
    assert obj["judged"] == "upfront"
    (s,) = obj["sessions"]
    mv = report.sessions[0].model_view
    assert mv is not None
    assert (s["judged"], s["basis"], s["judgedTokens"], s["deferredTokens"]) == (
        "upfront",
        "upfront",
        mv.upfront_tokens,
        mv.deferred_tokens,
    )


def _measure(spec: ServerSpec, timeout: float) -> Measurement:
    return measure_from(T)(spec)


class _Log:
    def info(self, text: str) -> None:
        pass

    def warning(self, text: str) -> None:
        pass

    def error(self, text: str) -> None:
        pass


ACTION_ROWS = [row for row in TABLE_ROWS if not row[2]]  # the Action reads no shell variable


@pytest.mark.parametrize(
    ("case", "configs", "shell", "judged", "passed", "tokens", "basis"),
    ACTION_ROWS,
    ids=[row[0] for row in ACTION_ROWS],
)
def test_the_action_judges_as_the_command_line_does(
    case: str,
    configs: list[ConfigFile],
    shell: dict[str, str],
    judged: BudgetCost,
    passed: bool,
    tokens: int,
    basis: str,
) -> None:
    cli = run_audit(
        AuditInputs(configs=tuple(configs), settings={}, shell_environ={}),
        measure=measure_from(T),
        options=AuditOptions(gates=GateRequest(budget=LIMIT, budget_judges=judged)),
    ).gates
    settings = Settings(budget=LIMIT, budget_full=judged == "full")
    action = _audit(settings, configs, None, _measure, _Log()).gates  # type: ignore[arg-type]
    assert action.budget is not None and cli.budget is not None
    # the Action also fails every server without a number (require_measured): the budget agrees
    assert action.budget.passed is cli.budget.passed is passed
    assert [s.cost for s in action.budget.sessions] == [s.cost for s in cli.budget.sessions]
    assert action.budget.reasons == cli.budget.reasons


def test_the_comment_says_what_the_budget_judged() -> None:
    from mcpcost.render.report_markdown import context
    from mcpcost.render.run_report import run_report

    for judged, full in (("upfront", False), ("full", True)):
        audit = _audit(Settings(budget=4000, budget_full=full), _claude(), None, _measure, _Log())  # type: ignore[arg-type]
        assert audit.gates.budget is not None
        used = audit.gates.budget.sessions[0].cost
        doc = run_report(audit, lines={}, fail_on=Settings().fail_on)
        assert doc["budget"]["judged"] == judged
        shown = context(doc, key="k", max_rows=None, tool_rows=None)["budget_use"]
        what = "up front" if judged == "upfront" else "in full"
        percent = f"{used * 100 / 4000:.0f}%"
        assert shown == f"{percent} of the 4,000 budget (heaviest session, {what})"
