"""The client lens in every output, from hand-made model views: ``audit --json``'s
``modelView`` (valid against the report schema), the Markdown report's lines per finding with
the fix, SARIF's rule per finding kind at the server's config line, and the Action's comment,
summary, outputs and saved outcome."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from mcpcost.action.comment import LENS_FINDINGS, render_comment
from mcpcost.action.judge import judgement_of, lens_views, verdict_of
from mcpcost.action.outcome import Outcome, VerdictView
from mcpcost.action.publishing import scalar_outputs
from mcpcost.action.settings import Settings, SettingsError
from mcpcost.action.summary import render_summary
from mcpcost.audit.compose import Audit
from mcpcost.audit.gates import Gate, evaluate_gates
from mcpcost.audit.limits_gate import lens_findings
from mcpcost.audit.model_view import Effect, FindingKind
from mcpcost.configs.clients import KNOWN_CLIENTS
from mcpcost.core.record import replace
from mcpcost.render.json_report import report_to_json
from mcpcost.render.markdown_report import render_markdown
from mcpcost.render.sarif_report import locate, render_sarif
from tests.helpers.audit_builders import TABLE, config, entry, report_for
from tests.helpers.lens_views import (
    CUT,
    DROPPED,
    HIDDEN,
    TOO_MANY,
    finding,
    lens_report,
    view,
    with_views,
)
from tests.helpers.report_schema import SCHEMA
from tests.helpers.sarif_checks import validate as validate_sarif


def validate(obj: Any) -> None:
    jsonschema.Draft202012Validator(SCHEMA).validate(obj)


# --------------------------------------------------------------------- JSON


def test_each_session_carries_its_model_view() -> None:
    r = lens_report(DROPPED, CUT, TOO_MANY, HIDDEN)
    obj = report_to_json(r)
    validate(obj)
    (session,) = obj["sessions"]
    mv = session["modelView"]
    assert mv["apiShape"] == "openai-function" and mv["upfrontTokens"] == 1234
    assert mv["deferredTokens"] == 0 and mv["regime"] == "hand-made"
    assert mv["verdict"] == "loaded-up-front" and mv["condition"] == "a hand-made verdict"
    assert mv["rulesOnRecord"] is True
    assert [f["kind"] for f in mv["findings"]] == [
        "name-too-long",
        "description-truncated",
        "too-many-tools",
        "hidden-from-model",
    ]
    first = mv["findings"][0]
    assert first == {
        "kind": "name-too-long",
        "effect": "drops",
        "server": "alpha",
        "tool": "a_0",
        "limit": 60,
        "actual": 65,
        "rule": "the name-too-long rule",
        "fix": "rename the tool",
        "source": DROPPED.source,
        "date": "2026-11",
        "confidence": "documented",
    }
    assert mv["findings"][2]["server"] is None and mv["findings"][3]["limit"] == "visibility app"


def test_a_session_without_a_client_cannot_be_said_and_is_valid() -> None:
    r = report_for([config("explicit", "/c.json", entry("alpha"))], TABLE)
    obj = report_to_json(r)
    validate(obj)
    mv = obj["sessions"][0]["modelView"]
    assert mv["verdict"] == "cannot-be-said" and mv["regime"] == "client-unknown"
    assert mv["upfrontTokens"] == mv["wireTokens"] == obj["sessions"][0]["totalTokens"]


def test_the_schema_refuses_an_unknown_kind_or_effect() -> None:
    obj = report_to_json(lens_report(DROPPED))
    for key, bad in (("kind", "name-too-short"), ("effect", "explodes"), ("confidence", "vibes")):
        broken = json.loads(json.dumps(obj))
        broken["sessions"][0]["modelView"]["findings"][0][key] = bad
        with pytest.raises(jsonschema.ValidationError):
            validate(broken)
    broken = json.loads(json.dumps(obj))
    del broken["sessions"][0]["modelView"]["upfrontTokens"]
    with pytest.raises(jsonschema.ValidationError):
        validate(broken)


def test_the_limits_gate_is_in_the_json_gates() -> None:
    r = lens_report(DROPPED, HIDDEN)
    g = evaluate_gates(r, None, limits=True)
    obj = report_to_json(r, None, g)
    validate(obj)
    assert obj["gates"]["passed"] is False
    assert obj["gates"]["reasons"] == [lens_findings(r)[0].text]


# --------------------------------------------------------------------- Markdown


def test_markdown_leads_each_session_with_what_the_model_gets() -> None:
    r = lens_report(DROPPED, CUT, HIDDEN)
    md = render_markdown(r)
    assert "**What the model gets: 1,234 tokens up front** (the OpenAI function shape" in md
    lines = md.splitlines()
    dropped = next(x for x in lines if "`name-too-long`" in x)
    assert dropped.startswith("- ❌ **drops** `alpha` / `a_0`")
    assert "(limit 60, here 65)" in dropped and dropped.endswith("Fix: rename the tool")
    cut = next(x for x in lines if "`description-truncated`" in x)
    assert "_(reported, not documented)_" in cut and "Fix: trim the description" in cut
    hidden = next(x for x in lines if "`hidden-from-model`" in x)
    assert hidden.startswith("- ℹ️ **hides** `gamma` / `g_2`")
    assert "reported" not in dropped and "reported" not in hidden
    # the lens comes before the server table of its session
    assert md.index("What the model gets") < md.index("| server | tools |")


def test_markdown_says_when_nothing_is_on_record() -> None:
    r = report_for([config("cursor", "/p/mcp.json", entry("alpha"))], TABLE)
    blank = replace(view(upfront=10), api_shape=None, rules_on_record=False)
    md = render_markdown(with_views(r, {"cursor": blank}))
    assert "No rule is on record for how Cursor presents tools to its model" in md
    assert "What the model gets" not in md


def test_markdown_escapes_hostile_tool_names_in_lens_lines() -> None:
    hostile = finding(FindingKind.NAME_INVALID, Effect.DROPS, tool="x`<img src=1>@here|")
    md = render_markdown(lens_report(hostile))
    line = next(x for x in md.splitlines() if "`name-invalid`" in x)
    assert "<img" not in line.replace("`x'<img src=1>", "")  # only inside the code span
    assert "`x'<img src=1>@here\\|`" in line  # a backtick cannot end the span, a pipe the row


def test_markdown_shows_the_limits_gate_failure() -> None:
    r = lens_report(DROPPED)
    md = render_markdown(r, None, evaluate_gates(r, None, limits=True))
    assert "**Gate failed:**" in md and "Cursor drops tool a\\_0 of alpha" in md


# --------------------------------------------------------------------- SARIF


def _sarif(report: Any, lines: dict[tuple[str, str], int], gated: bool) -> dict[str, Any]:
    failing = evaluate_gates(report, None, limits=True).findings if gated else ()
    ungated = [f for f in lens_findings(report, breaking=True) if f not in failing]
    log = render_sarif(
        locate(failing, report, lines),
        locate(ungated, report, lines),
        notes=locate(lens_findings(report, breaking=False), report, lines),
    )
    return json.loads(log)  # type: ignore[no-any-return]


def test_sarif_has_one_rule_per_kind_located_at_the_servers_line() -> None:
    r = lens_report(DROPPED, CUT, TOO_MANY, HIDDEN)
    lines = {("/p/mcp.json", "alpha"): 3, ("/p/mcp.json", "gamma"): 9}
    log = _sarif(r, lines, gated=True)
    validate_sarif(log)
    rules = [rule["id"] for rule in log["runs"][0]["tool"]["driver"]["rules"]]
    assert [x for x in rules if x.startswith("mcpcost/lens/")] == [
        f"mcpcost/lens/{k}" for k in FindingKind
    ]
    assert len(rules) == len(set(rules))
    results = log["runs"][0]["results"]
    got = [
        (
            x["ruleId"],
            x["level"],
            x["locations"][0]["physicalLocation"]["region"]["startLine"],
            rules[x["ruleIndex"]],
        )
        for x in results
    ]
    heaviest = r.sessions[0].servers[0].server.name
    assert got == [
        ("mcpcost/lens/name-too-long", "error", 3, "mcpcost/lens/name-too-long"),
        ("mcpcost/lens/description-truncated", "error", 9, "mcpcost/lens/description-truncated"),
        ("mcpcost/lens/too-many-tools", "error", lines[("/p/mcp.json", heaviest)], got[2][3]),
        ("mcpcost/lens/hidden-from-model", "note", 9, "mcpcost/lens/hidden-from-model"),
    ]
    prints = {x["partialFingerprints"]["mcpcostFinding/v1"] for x in results}
    assert len(prints) == len(results)  # two findings on one server keep separate identities


def test_sarif_lens_findings_are_warnings_when_the_gate_was_not_asked() -> None:
    r = lens_report(DROPPED, HIDDEN)
    log = _sarif(r, {("/p/mcp.json", "alpha"): 3}, gated=False)
    validate_sarif(log)
    levels = [(x["ruleId"], x["level"]) for x in log["runs"][0]["results"]]
    assert levels == [
        ("mcpcost/lens/name-too-long", "warning"),
        ("mcpcost/lens/hidden-from-model", "note"),
    ]


def test_a_session_without_a_lens_fails_under_the_limits_rule() -> None:
    r = report_for([config("explicit", "/c.json", entry("alpha"))], TABLE)
    log = json.loads(render_sarif(locate(evaluate_gates(r, None, limits=True).findings, r, {})))
    validate_sarif(log)
    (result,) = log["runs"][0]["results"]
    assert result["ruleId"] == "limits" and result["level"] == "error"


# --------------------------------------------------------------------- the Action


def _outcome(report: Any, fail_on: frozenset[Gate], clients: tuple[str, ...] = ()) -> Outcome:
    limits = Gate.LIMITS in fail_on
    audit = Audit(report=report, diff=None, gates=evaluate_gates(report, None, limits=limits))
    j = judgement_of(audit)
    return Outcome(
        configs=(),
        verdict=verdict_of(j, fail_on, {("/p/mcp.json", "alpha"): 3}, clients),
        compared=False,
        head_sha="abc",
        lenses=lens_views(j, clients),
    )


def test_the_action_warns_on_limits_unless_fail_on_lists_them() -> None:
    r = lens_report(DROPPED, CUT, HIDDEN)
    warned = _outcome(r, Settings().fail_on)
    assert warned.verdict.passed
    assert [w.lens_kind for w in warned.verdict.warnings] == [
        FindingKind.NAME_TOO_LONG,
        FindingKind.DESCRIPTION_TRUNCATED,
    ]
    assert warned.verdict.warnings[0].line == 3 and warned.verdict.warnings[0].tool == "a_0"
    failed = _outcome(r, frozenset({Gate.LIMITS}))
    assert not failed.verdict.passed and len(failed.verdict.failures) == 2
    assert not failed.verdict.warnings
    assert scalar_outputs(failed)["limit-findings"] == "2"
    assert scalar_outputs(failed)["status"] == "fail"


def test_the_clients_input_picks_whose_limits_are_reported() -> None:
    r = report_for(
        [
            config("cursor", "/p/.cursor/mcp.json", entry("alpha")),
            config("vscode", "/p/.vscode/mcp.json", entry("alpha")),
        ],
        TABLE,
    )
    r = with_views(r, {"cursor": view(DROPPED), "vscode": view(TOO_MANY)})
    both = _outcome(r, frozenset({Gate.LIMITS}))
    assert len(both.verdict.failures) == 2 and len(both.lenses) == 2
    cursor = _outcome(r, frozenset({Gate.LIMITS}), ("cursor",))
    assert [f.lens_kind for f in cursor.verdict.failures] == [FindingKind.NAME_TOO_LONG]
    assert [x.client for x in cursor.lenses] == ["cursor"]


def test_comment_and_summary_show_each_session_with_its_findings() -> None:
    many = tuple(
        finding(FindingKind.NAME_TOO_LONG, Effect.DROPS, tool=f"t{i}")
        for i in range(LENS_FINDINGS + 3)
    )
    o = _outcome(lens_report(CUT, *many), Settings().fail_on)
    body = render_comment(o, key="k", limit=10**6).body
    assert "**What each client's model gets**" in body
    assert "- Cursor: **What the model gets: 1,234 tokens up front**" in body
    assert "  - ❌ **cuts** `gamma` / `g_1` — `description-truncated`" in body
    assert "_(reported, not documented)_" in body and "Fix: trim the description" in body
    assert "… and 4 more findings (see the job summary)" in body
    assert body.count("`name-too-long`") == LENS_FINDINGS - 1
    # the breaking ones are warnings, counted once rather than listed a second time
    assert f"⚠️ {LENS_FINDINGS + 4} client-lens findings where a client drops" in body
    assert "Warnings (" not in body and "Cursor drops tool" not in body
    summary = render_summary(o)
    assert "### What each client's model gets" in summary
    assert summary.count("`name-too-long`") == LENS_FINDINGS + 3 and "more findings" not in summary


def test_the_saved_outcome_keeps_the_lens() -> None:
    o = _outcome(lens_report(DROPPED, CUT, TOO_MANY, HIDDEN), Settings().fail_on)
    back = Outcome.from_dict(json.loads(json.dumps(o.to_dict())))
    assert back.to_dict()["lenses"] == o.to_dict()["lenses"] and back.verdict == o.verdict
    bad = o.to_dict()
    bad["lenses"][0]["modelView"]["findings"][0]["kind"] = "name-too-short"
    with pytest.raises(Exception, match="saved outcome is malformed"):
        Outcome.from_dict(bad)
    old = o.to_dict()
    del old["lenses"]
    assert Outcome.from_dict(old).lenses == ()
    assert VerdictView().passed


def test_settings_read_limits_and_clients() -> None:
    s = Settings.from_environ({"INPUT_FAIL-ON": "budget, limits", "INPUT_CLIENTS": "cursor,vscode"})
    assert s.fail_on == {Gate.BUDGET, Gate.LIMITS} and s.clients == ("cursor", "vscode")
    assert Gate.LIMITS not in Settings().fail_on and Settings().clients == ()
    assert Settings.from_environ({"INPUT_CLIENTS": "all"}).clients == ()
    assert set(KNOWN_CLIENTS) >= {"cursor", "vscode"}
    with pytest.raises(SettingsError, match="input clients"):
        Settings.from_environ({"INPUT_CLIENTS": "cursr"})


def test_the_schema_enums_are_the_codes_enums() -> None:
    from mcpcost.audit.model_view import ApiShape
    from mcpcost.configs.clients.presentation import Confidence

    defs = SCHEMA["$defs"]
    assert defs["modelView"]["properties"]["apiShape"]["enum"] == [*map(str, ApiShape), None]
    finding_props = defs["lensFinding"]["properties"]
    assert finding_props["kind"]["enum"] == [*map(str, FindingKind)]
    assert finding_props["effect"]["enum"] == [*map(str, Effect)]
    assert finding_props["confidence"]["enum"] == [*map(str, Confidence)]
    assert set(finding_props) == set(defs["lensFinding"]["required"])


def test_a_server_alone_through_each_client_is_kept_and_summarised() -> None:
    from mcpcost.action.outcome import ServerLensView, SessionLensView

    alone = ServerLensView(
        server="srv",
        wire_tokens=900,
        clients=(
            SessionLensView(client="cursor", label="Cursor", view=view(DROPPED, upfront=800)),
            SessionLensView(client="vscode", label="VS Code", view=view()),
        ),
    )
    o = Outcome(
        configs=(), verdict=VerdictView(), compared=False, head_sha="a", server_lenses=(alone,)
    )
    back = Outcome.from_dict(json.loads(json.dumps(o.to_dict())))
    assert back.to_dict()["serverLenses"] == o.to_dict()["serverLenses"]
    summary = render_summary(o)
    assert "### `srv` through each client's lens" in summary and "900 tokens on the wire" in summary
    assert "| Cursor | 800 | 0 | hand-made | 1 |" in summary
    assert "| VS Code | 1,234 | 0 | hand-made | 0 |" in summary
    assert "- Cursor: ❌ **drops** `alpha` / `a_0` — `name-too-long`" in summary
