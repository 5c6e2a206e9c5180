"""The client lens in every output, from hand-made model views: ``audit --json``'s
``modelView`` (valid against the report schema), the Markdown report's lines per finding with
the fix, SARIF's rule per finding kind at the server's config line, and the Action's comment,
summary, outputs and the saved report (the audit's JSON report, read back against its schema)."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import jsonschema
import pytest

from mcpcost.action.publishing import scalar_outputs
from mcpcost.action.settings import Settings, SettingsError
from mcpcost.audit.compose import Audit
from mcpcost.audit.gates import Gate, evaluate_gates
from mcpcost.audit.limits_gate import lens_findings
from mcpcost.audit.model_view import Effect, FindingKind, LoadVerdict
from mcpcost.configs.clients import KNOWN_CLIENTS
from mcpcost.core.jsonvalue import stringify_pretty
from mcpcost.errors import InputError
from mcpcost.render.json_report import report_to_json
from mcpcost.render.markdown_report import render_markdown
from mcpcost.render.report_markdown import LENS_FINDINGS, render_comment, render_summary
from mcpcost.render.report_reader import read_report
from mcpcost.render.run_report import run_report
from mcpcost.render.sarif_report import render_sarif
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
    assert dropped.startswith("  - ❌ **drops** `alpha` / `a_0`")
    assert "(limit 60, here 65)" in dropped and dropped.endswith("Fix: rename the tool")
    cut = next(x for x in lines if "`description-truncated`" in x)
    assert "_(reported, not documented)_" in cut and "Fix: trim the description" in cut
    hidden = next(x for x in lines if "`hidden-from-model`" in x)
    assert hidden.startswith("  - ℹ️ **hides** `gamma` / `g_2`")
    assert "reported" not in dropped and "reported" not in hidden
    # the lens comes before the server table of its session
    assert md.index("What the model gets") < md.index("| server | tools |")


def test_markdown_says_when_nothing_is_on_record() -> None:
    r = report_for([config("cursor", "/p/mcp.json", entry("alpha"))], TABLE)
    blank = replace(
        view(upfront=10, verdict=LoadVerdict.CANNOT_BE_SAID), api_shape=None, rules_on_record=False
    )
    md = render_markdown(with_views(r, {"cursor": blank}))
    # nothing is claimed: the verdict cannot be said, and the number shown is the ceiling
    line = next(x for x in md.splitlines() if x.startswith("- Cursor: "))
    assert "10 tokens up front if everything loads** (the wire definitions: no rule" in line
    assert "no rule is on record for how Cursor presents tools" in line
    assert "Verdict: cannot be said — a hand-made verdict" in line


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
    gates = evaluate_gates(report, None, limits=gated)
    fail_on = {Gate.LIMITS} if gated else set()
    doc = run_report(Audit(report=report, diff=None, gates=gates), lines=lines, fail_on=fail_on)
    validate(doc)
    return json.loads(render_sarif(doc))  # type: ignore[no-any-return]


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
    log = _sarif(r, {}, gated=True)
    validate_sarif(log)
    (result,) = log["runs"][0]["results"]
    assert result["ruleId"] == "limits" and result["level"] == "error"


# --------------------------------------------------------------------- the Action


def _doc(report: Any, fail_on: frozenset[Gate], clients: tuple[str, ...] = ()) -> dict[str, Any]:
    """The Action's report document for a head-only run, valid against the schema."""
    limits = Gate.LIMITS in fail_on
    audit = Audit(report=report, diff=None, gates=evaluate_gates(report, None, limits=limits))
    keys = {s.key for s in report.sessions if s.client in clients} if clients else None
    run = {
        "repository": "o/r",
        "prNumber": None,
        "baseSha": None,
        "headSha": "a" * 40,
        "runUrl": None,
        "clients": list(clients),
    }
    lines = {("/p/mcp.json", "alpha"): 3}
    doc = run_report(audit, lines=lines, fail_on=fail_on, sessions=keys, run=run)
    validate(doc)
    return doc


def _level(doc: dict[str, Any], level: str) -> list[dict[str, Any]]:
    return [f for f in doc["findings"] if f["level"] == level]


def test_the_action_warns_on_limits_unless_fail_on_lists_them() -> None:
    r = lens_report(DROPPED, CUT, HIDDEN)
    warned = _doc(r, Settings().fail_on)
    assert _level(warned, "error") == []
    warnings = _level(warned, "warning")
    assert [w["lensKind"] for w in warnings] == ["name-too-long", "description-truncated"]
    assert warnings[0]["line"] == 3 and warnings[0]["tool"] == "a_0"
    assert [n["lensKind"] for n in _level(warned, "note")] == ["hidden-from-model"]
    failed = _doc(r, frozenset({Gate.LIMITS}))
    assert len(_level(failed, "error")) == 2 and not _level(failed, "warning")
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
    both = _doc(r, frozenset({Gate.LIMITS}))
    assert len(_level(both, "error")) == 2
    assert "- Cursor:" in render_summary(both) and "- VS Code:" in render_summary(both)
    cursor = _doc(r, frozenset({Gate.LIMITS}), ("cursor",))
    assert [f["lensKind"] for f in _level(cursor, "error")] == ["name-too-long"]
    summary = render_summary(cursor)
    assert "- Cursor:" in summary and "- VS Code:" not in summary


def test_comment_and_summary_show_each_session_with_its_findings() -> None:
    many = tuple(
        finding(FindingKind.NAME_TOO_LONG, Effect.DROPS, tool=f"t{i}")
        for i in range(LENS_FINDINGS + 3)
    )
    doc = _doc(lens_report(CUT, *many), Settings().fail_on)
    body = render_comment(doc, key="k", limit=10**6).body
    assert "**What each client's model gets**" in body
    assert "- Cursor: **What the model gets: 1,234 tokens up front**" in body
    assert "  - ❌ **cuts** `gamma` / `g_1` — `description-truncated`" in body
    assert "_(reported, not documented)_" in body and "Fix: trim the description" in body
    assert "… and 4 more findings (see the job summary)" in body
    assert body.count("`name-too-long`") == LENS_FINDINGS - 1
    # the breaking ones are warnings, counted once rather than listed a second time
    assert f"⚠️ {LENS_FINDINGS + 4} client-lens findings where a client drops" in body
    assert "Warnings (" not in body and "Cursor drops tool" not in body
    summary = render_summary(doc)
    assert "### What each client's model gets" in summary
    assert summary.count("`name-too-long`") == LENS_FINDINGS + 3 and "more findings" not in summary


def test_the_saved_report_keeps_the_lens_and_refuses_another_shape() -> None:
    doc = _doc(lens_report(DROPPED, CUT, TOO_MANY, HIDDEN), Settings().fail_on)
    back = read_report(stringify_pretty(doc).encode())
    assert back == json.loads(json.dumps(doc))
    bad = json.loads(json.dumps(doc))
    bad["sessions"][0]["modelView"]["findings"][0]["kind"] = "name-too-short"
    with pytest.raises(InputError, match="does not have the audit report's shape") as caught:
        read_report(json.dumps(bad).encode())
    assert "\n" not in str(caught.value) and "at /sessions/0/modelView" in str(caught.value)
    with pytest.raises(jsonschema.ValidationError):  # the schema itself says the same
        validate(bad)


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
    from mcpcost.render.json_report import model_view_to_json

    alone = {
        "server": "srv",
        "wireTokens": 900,
        "clients": [
            {
                "client": "cursor",
                "label": "Cursor",
                "modelView": model_view_to_json(view(DROPPED, upfront=800)),
            },
            {"client": "vscode", "label": "VS Code", "modelView": model_view_to_json(view())},
        ],
    }
    r = report_for([config("cursor", "/p/.cursor/mcp.json", entry("alpha"))], TABLE)
    doc = {**_doc(r, Settings().fail_on), "serverLenses": [alone]}
    back = read_report(json.dumps(doc).encode())
    assert back["serverLenses"] == [alone]
    summary = render_summary(back)
    assert "### `srv` through each client's lens" in summary and "900 tokens on the wire" in summary
    assert "| Cursor | 800 | 0 | hand-made | 1 |" in summary
    assert "| VS Code | 1,234 | 0 | hand-made | 0 |" in summary
    assert "- Cursor: ❌ **drops** `alpha` / `a_0` — `name-too-long`" in summary
