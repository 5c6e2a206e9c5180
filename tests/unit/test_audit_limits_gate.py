"""The limits gate (``--fail-on-limits``): client-lens findings that drop, reject or cut fail;
renames and hidden app-only tools do not; a session that cannot be judged fails."""

from __future__ import annotations

from mcpcost.audit.gates import Gate, evaluate_gates
from mcpcost.audit.limits_gate import lens_findings, lens_sentence
from mcpcost.audit.model_view import Effect, FindingKind
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


def test_breaking_findings_fail_and_name_client_effect_and_subject() -> None:
    r = lens_report(DROPPED, CUT, HIDDEN)
    g = evaluate_gates(r, None, limits=True)
    assert not g.passed
    limits = [f for f in g.findings if f.gate is Gate.LIMITS]
    assert [f.lens for f in limits] == [DROPPED, CUT]  # the hidden app-only tool is no failure
    dropped, cut = limits
    assert dropped.text.startswith("Cursor drops tool a_0 of alpha (name-too-long:")
    assert "limit 60, here 65" in dropped.text and dropped.text.endswith("Fix: rename the tool")
    assert dropped.source == "/p/mcp.json" and dropped.server == "alpha"
    assert "a reported rule, not documented" in cut.text  # reported rules say so
    assert "reported" not in dropped.text
    assert g.reasons == tuple(f.text for f in g.findings)


def test_only_renames_and_hidden_tools_pass() -> None:
    renamed = finding(FindingKind.NAME_INVALID, Effect.RENAMES, limit="^[a-zA-Z0-9_-]+$")
    g = evaluate_gates(lens_report(renamed, HIDDEN), None, limits=True)
    assert g.passed and not g.findings


def test_the_gate_is_off_unless_asked() -> None:
    g = evaluate_gates(lens_report(DROPPED, TOO_MANY), None)
    assert g.passed and not g.findings


def test_a_session_wide_rejection_points_at_the_heaviest_servers_file() -> None:
    g = evaluate_gates(lens_report(TOO_MANY), None, limits=True)
    (f,) = g.findings
    assert f.gate is Gate.LIMITS and f.server is None and f.source == "/p/mcp.json"
    assert "rejects, over the session's tools (too-many-tools:" in f.text
    assert "limit 128, here 140" in f.text


def test_each_session_reports_its_own_findings() -> None:
    r = report_for(
        [
            config("cursor", "/p/.cursor/mcp.json", entry("alpha")),
            config("vscode", "/p/.vscode/mcp.json", entry("alpha")),
        ],
        TABLE,
    )
    r = with_views(r, {"cursor": view(DROPPED), "vscode": view()})
    cursor = next(s for s in r.sessions if s.client == "cursor")
    found = lens_findings(r)
    assert len(found) == 1
    assert found[0].source == "/p/.cursor/mcp.json" and found[0].session == cursor.key


def test_a_session_without_a_lens_cannot_be_judged() -> None:
    r = report_for([config("explicit", "/c.json", entry("alpha"))], TABLE)
    g = evaluate_gates(r, None, limits=True)
    assert not g.passed
    (f,) = g.findings
    assert f.gate is Gate.LIMITS and "cannot be judged" in f.text and f.source == "/c.json"


def test_an_unmeasured_server_leaves_the_limits_unestablished() -> None:
    r = report_for([config("cursor", "/p/mcp.json", entry("alpha"), entry("dead"))], TABLE)
    r = with_views(r, {"cursor": view()})
    g = evaluate_gates(r, None, limits=True)
    (f,) = g.findings
    assert f.gate is Gate.UNMEASURED and "dead has no number" in f.text
    assert f.covers == (("/p/mcp.json", "dead"),)
    # with --fail-on-unmeasured as well, the server is not reported twice
    g = evaluate_gates(r, None, limits=True, require_measured=True)
    assert [x.gate for x in g.findings] == [Gate.UNMEASURED]


def test_lens_sentence_without_limit_or_server() -> None:
    f = finding(FindingKind.NAME_COLLISION, Effect.DROPS, server=None, tool="search", limit=None)
    text = lens_sentence("Windsurf", f)
    assert text.startswith("Windsurf drops tool search (name-collision: the name-collision rule")
    assert "limit" not in text and "here 65" in text
