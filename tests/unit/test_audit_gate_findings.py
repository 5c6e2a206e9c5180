"""Gate findings: every gate reason also comes with its kind (budget, increase, unmeasured), and
``require_measured`` adds the unmeasured servers no other finding covers."""

from __future__ import annotations

from mcpcost.audit.diff import diff_reports
from mcpcost.audit.gates import Gate, evaluate_gates
from tests.helpers.audit_builders import TABLE, as_baseline, run
from tests.helpers.audit_builders import TABLE_TOKENS as T


def test_findings_mirror_reasons_with_kinds() -> None:
    before = run("/c.json", TABLE, "alpha")
    after = run("/c.json", TABLE, "alpha", "beta")
    diff = diff_reports(as_baseline(before), after)
    g = evaluate_gates(after, diff, budget=T["alpha"], max_increase=0)
    assert [f.text for f in g.findings] == list(g.reasons)
    assert [f.gate for f in g.findings] == [Gate.BUDGET, Gate.INCREASE]
    assert {f.source for f in g.findings} == {"/c.json"}


def test_unestablished_gates_are_unmeasured_findings() -> None:
    before = run("/c.json", TABLE, "alpha", "dead")
    after = run("/c.json", TABLE, "alpha", "dead", "beta")
    diff = diff_reports(as_baseline(before), after)
    g = evaluate_gates(after, diff, budget=10**6, max_increase=10**6)
    assert not g.passed
    assert {f.gate for f in g.findings} == {Gate.UNMEASURED}
    # the budget cannot be judged with dead unmeasured; the increase carries dead over
    assert any(("/c.json", "dead") in f.covers for f in g.findings)
    assert [(f.gate, f.server) for f in g.known_unknowns] == [(Gate.KNOWN_UNKNOWN, "dead")]


def test_require_measured_adds_only_what_is_not_covered() -> None:
    r = run("/c.json", TABLE, "alpha", "dead")
    plain = evaluate_gates(r, None)
    assert plain.passed and plain.findings == ()
    strict = evaluate_gates(r, None, require_measured=True)
    assert not strict.passed
    assert [(f.gate, f.server) for f in strict.findings] == [(Gate.UNMEASURED, "dead")]
    # the budget already says the config cannot be judged: no second finding for it
    both = evaluate_gates(r, None, budget=10**6, require_measured=True)
    assert [f.gate for f in both.findings] == [Gate.UNMEASURED]
    assert both.reasons == evaluate_gates(r, None, budget=10**6).reasons
