"""The Claude estimate of a session (issue 26 item 3): shown only for a client that sends
Anthropic-shaped tools, always labelled, estimated through the reference calibration without
``--claude``; a threshold verdict judges it instead of the old 0.20x-1.92x band."""

from __future__ import annotations

import json

from mcpcost.audit.claude_estimate import REFERENCE_FIT, calibration_for, sends_anthropic_tools
from mcpcost.configs.clients.claude_code import TOOL_SEARCH
from mcpcost.configs.clients.presentation import DeferralMode, LoadVerdict
from mcpcost.render.json_report import render_json
from mcpcost.render.text_report import render_text
from tests.helpers.audit_builders import TABLE, config, entry, report_for


def _report(shell: dict[str, str] | None = None) -> object:
    return report_for(
        [
            config("claude-code", "/home/ana/.claude.json", entry("alpha"), entry("gamma")),
            config(
                "claude-desktop",
                "/home/ana/.config/Claude/claude_desktop_config.json",
                entry("beta"),
            ),
            config("cursor", "/home/ana/.cursor/mcp.json", entry("alpha")),
            config("explicit", "/tmp/x/mcp.json", entry("gamma")),
        ],
        TABLE,
        shell_environ=shell or {},
        settings={},
    )


def test_only_sessions_whose_client_sends_anthropic_tools_get_an_estimate() -> None:
    report = _report()
    shown = {s.label: s.claude_estimate for s in report.sessions}  # type: ignore[attr-defined]
    assert shown["Claude Code"] is not None and shown["Claude Desktop"] is not None
    assert shown["Cursor"] is None and shown["/tmp/x/mcp.json"] is None
    for s in report.sessions:  # type: ignore[attr-defined]
        assert sends_anthropic_tools(s.client) is (s.claude_estimate is not None)


def test_the_estimate_is_labelled_with_its_band_in_text_and_json() -> None:
    report = _report()
    est = next(s.claude_estimate for s in report.sessions if s.label == "Claude Code")  # type: ignore[attr-defined]
    assert est is not None and not est.exact and est.band_pct > 0
    assert est.model == REFERENCE_FIT.model and est.fixed_tokens == REFERENCE_FIT.fixed_tokens
    flat = " ".join(render_text(report, width=200).split())  # type: ignore[arg-type]
    assert f"about {est.tokens:,} Claude tokens (estimate, ±{est.band_pct}%;" in flat
    obj = json.loads(render_json(report))  # type: ignore[arg-type]
    claude = next(s for s in obj["sessions"] if s["label"] == "Claude Code")["claudeEstimate"]
    assert claude["tokens"] == est.tokens and claude["text"] == est.describe()
    assert all("claudeEstimate" not in s for s in obj["sessions"] if s["label"] == "Cursor")


def test_no_run_means_the_reference_fit() -> None:
    assert calibration_for(None) is REFERENCE_FIT
    assert REFERENCE_FIT.band_pct == 12 and round(REFERENCE_FIT.factor, 3) == 1.746


def test_a_threshold_verdict_judges_the_calibrated_estimate() -> None:
    report = _report({TOOL_SEARCH: "auto"})
    s = next(s for s in report.sessions if s.label == "Claude Code")  # type: ignore[attr-defined]
    v, est = s.model_view.loading, s.claude_estimate
    assert est is not None and v.mode is DeferralMode.THRESHOLD and v.request is not None
    assert v.request.ratio is None  # no ratio band: the estimate and its band
    assert v.request.to_dict() == {
        "low": est.tokens - est.band_tokens,
        "high": est.tokens + est.band_tokens,
        "exact": 0,
        "estimated": len(est.parts),
    }
    assert v.crosses is False  # a few hundred tokens, far under 10% of 200,000
    assert s.model_view.verdict is LoadVerdict.LOADED_UP_FRONT
    text = render_text(report, width=200, details=True)  # type: ignore[arg-type]
    assert "0.20" not in text and "1.92" not in text
