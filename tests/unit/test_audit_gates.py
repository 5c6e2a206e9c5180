"""Gates: the budget against the heaviest config with the heaviest-first fit plan, and the
increase gate failing whenever the increase cannot be established."""

from __future__ import annotations

from typing import Any

import pytest

from mcpcost.audit.baseline import parse_baseline
from mcpcost.audit.diff import diff_reports
from mcpcost.audit.gates import evaluate_gates, plan_fit
from mcpcost.core.status import Status
from mcpcost.render.json_report import report_to_json
from mcpcost.render.text_report import render_text
from tests.helpers.audit_builders import TABLE, as_baseline, config, entry, report_for, run, tools
from tests.helpers.audit_builders import TABLE_TOKENS as T

# --------------------------------------------------------------------- budget


def test_budget_ok_when_every_config_fits() -> None:
    r = run("/c.json", TABLE, "alpha", "beta")
    g = evaluate_gates(r, None, budget=T["alpha"] + T["beta"])
    assert g.passed and g.budget is not None and not g.budget.over
    assert "every session fits" in render_text(r, None, g)


def test_budget_is_judged_against_the_heaviest_config_not_a_sum() -> None:
    r = report_for(
        [config("cursor", "/a.json", entry("alpha")), config("vscode", "/b.json", entry("gamma"))],
        TABLE,
    )
    limit = max(T["alpha"], T["gamma"])
    g = evaluate_gates(r, None, budget=limit)
    assert g.passed  # the sum would be over; no session carries both
    g = evaluate_gates(r, None, budget=limit - 1)
    assert not g.passed and g.budget is not None and g.budget.over
    heavy = "/a.json" if T["alpha"] > T["gamma"] else "/b.json"
    assert g.budget.worst_source == heavy


def test_fit_plan_drops_heaviest_first() -> None:
    r = run("/c.json", TABLE, "alpha", "beta", "gamma")
    c = r.configs[0]
    order = [s.name for s in c.servers]
    pairs = [(s.name, s.tokens or 0) for s in c.servers]
    fit = plan_fit(c.total_tokens, pairs, c.servers[-1].tokens or 0)
    assert [s.name for s in fit.drop] == order[:-1]
    assert fit.feasible and fit.kept_count == 1 and fit.kept_tokens == c.servers[-1].tokens
    assert fit.over_by == c.total_tokens - (c.servers[-1].tokens or 0)
    assert fit.drop[0].remaining == c.total_tokens - (c.servers[0].tokens or 0)
    g = evaluate_gates(r, None, budget=1)
    assert g.budget is not None and g.budget.fit is not None
    text = render_text(r, None, g)
    assert "over the 1 budget" in text and "arithmetic, not advice" in text and "still over" in text


def test_an_unmeasured_server_makes_the_budget_unestablished() -> None:
    r = run("/c.json", TABLE, "alpha", "dead")
    g = evaluate_gates(r, None, budget=10**9)
    assert not g.passed and g.budget is not None and not g.budget.over
    assert g.budget.unestablished == ((r.sessions[0].label, ("dead",)),)
    assert any("cannot be established" in x for x in g.reasons)


def test_nothing_measured_fails_the_budget() -> None:
    r = run("/c.json", TABLE, "dead")
    g = evaluate_gates(r, None, budget=100)
    assert not g.passed and "no server was measured" in g.reasons[0]


# --------------------------------------------------------------------- increase


def gate(before: Any, after: Any, **kw: Any) -> Any:
    return evaluate_gates(after, diff_reports(as_baseline(before), after), **kw)


def test_increase_within_and_over_the_limit() -> None:
    before = run("/c.json", TABLE, "alpha")
    after = run("/c.json", TABLE, "alpha", "beta")
    ok = gate(before, after, max_increase=T["beta"])
    assert ok.passed and ok.increase is not None and ok.increase.increase == T["beta"]
    bad = gate(before, after, max_increase=T["beta"] - 1)
    assert not bad.passed
    assert bad.reasons == (
        f"/c.json: +{T['beta']:,} tokens per request, over the {T['beta'] - 1:,} allowed.",
    )
    assert "over the" in render_text(after, diff_reports(as_baseline(before), after), bad)


def test_percent_limit() -> None:
    before = run("/c.json", TABLE, "gamma")
    after = run("/c.json", TABLE, "gamma", "beta")
    pct = T["beta"] / T["gamma"] * 100
    assert gate(before, after, max_increase_percent=pct + 0.1).passed
    assert not gate(before, after, max_increase_percent=pct - 0.1).passed


def test_a_decrease_passes() -> None:
    before = run("/c.json", TABLE, "alpha", "beta")
    after = run("/c.json", TABLE, "alpha")
    g = gate(before, after, max_increase=0)
    assert g.passed and g.increase is not None and g.increase.increase == -T["beta"]


@pytest.mark.parametrize(
    ("before_t", "after_t", "needle"),
    [
        ({**TABLE}, {**TABLE, "alpha": Status.STARTUP_FAILURE}, "in one run and not the other"),
        ({**TABLE, "alpha": Status.TIMEOUT}, {**TABLE}, "in one run and not the other"),
    ],
)
def test_measuredness_changes_fail_the_gate(before_t: Any, after_t: Any, needle: str) -> None:
    before = run("/c.json", before_t, "alpha", "beta")
    after = run("/c.json", after_t, "alpha", "beta")
    g = gate(before, after, max_increase=10**9)
    assert not g.passed and any(needle in r for r in g.reasons)


def test_an_added_server_that_cannot_be_measured_fails_the_gate() -> None:
    before = run("/c.json", TABLE, "alpha")
    after = run("/c.json", TABLE, "alpha", "dead")
    g = gate(before, after, max_increase=10**9)
    assert not g.passed and any("was added without a number" in r for r in g.reasons)


def test_a_config_missing_on_either_side_fails_the_gate() -> None:
    before = report_for(
        [config("cursor", "/a.json", entry("alpha")), config("cursor", "/b.json", entry("beta"))],
        TABLE,
    )
    after = report_for(
        [config("cursor", "/a.json", entry("alpha")), config("cursor", "/c.json", entry("beta"))],
        TABLE,
    )
    g = gate(before, after, max_increase=10**9)
    assert not g.passed
    assert any("/c.json: no baseline" in r for r in g.reasons)
    assert any("/b.json: in the baseline, not found" in r for r in g.reasons)


def test_a_methodology_change_fails_the_gate() -> None:
    before = report_to_json(run("/c.json", TABLE, "alpha"))
    before["encoding"] = "cl100k_base"
    after = run("/c.json", TABLE, "alpha")
    g = evaluate_gates(after, diff_reports(parse_baseline(before), after), max_increase=10**9)
    assert not g.passed and "cannot be compared" in g.reasons[0]


def test_the_number_is_not_judged_while_the_increase_is_unknown() -> None:
    before = run("/c.json", TABLE, "alpha", "beta")
    after = run(
        "/c.json",
        {**TABLE, "beta": Status.TIMEOUT, "gamma": tools("g", 50)},
        "alpha",
        "beta",
        "gamma",
    )
    g = gate(before, after, max_increase=1)
    assert not g.passed and not any("per request, over" in r for r in g.reasons)


def test_an_increase_gate_needs_a_diff() -> None:
    with pytest.raises(ValueError, match="baseline"):
        evaluate_gates(run("/c.json", TABLE, "alpha"), None, max_increase=1)


def test_budget_and_increase_together() -> None:
    before = run("/c.json", TABLE, "alpha")
    after = run("/c.json", TABLE, "alpha", "beta")
    g = gate(before, after, budget=1, max_increase=10**9)
    assert not g.passed and g.budget is not None and g.increase is not None
    assert not g.budget.passed and g.increase.passed
