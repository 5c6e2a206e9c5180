"""One report, every output: ``audit --markdown``, the comment and the job summary show the same per-session up-front,
deferred and verdict as the report's session truth, and ``audit --sarif``'s writer and the
Action's write the same SARIF log (client-lens findings included) for one report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcpcost.action.publishing import write_sarif_file
from mcpcost.action.settings import Settings
from mcpcost.audit.compose import Audit
from mcpcost.audit.gates import Gate, evaluate_gates
from mcpcost.cli.audit_cmd import write_sarif
from mcpcost.render.markdown_report import render_markdown
from mcpcost.render.report_markdown import model_gets, render_comment, render_summary
from mcpcost.render.run_report import run_report
from mcpcost.render.session_truth import sessions_truth
from tests.helpers.audit_builders import TABLE, config, entry, report_for
from tests.helpers.lens_views import CUT, DROPPED, HIDDEN, TOO_MANY, view, with_views


def _audit() -> Audit:
    r = report_for(
        [
            config("cursor", ".cursor/mcp.json", entry("alpha"), entry("gamma")),
            config("vscode", ".vscode/mcp.json", entry("alpha")),
            config("claude-code", ".mcp.json", entry("beta")),
        ],
        TABLE,
    )
    r = with_views(r, {"cursor": view(DROPPED, CUT, HIDDEN), "vscode": view(TOO_MANY, upfront=900)})
    return Audit(report=r, diff=None, gates=evaluate_gates(r, None, limits=True))


def test_markdown_comment_and_summary_show_each_sessions_truth_of_the_report() -> None:
    audit = _audit()
    doc = run_report(audit, lines={}, fail_on=Settings().fail_on)
    comment = render_comment(doc, key="k", limit=10**6).body
    summary = render_summary(doc)
    markdown = render_markdown(audit.report, None, audit.gates)
    truths = [t for t in sessions_truth(doc) if t.regime is not None]
    assert len(truths) == 3
    for t in truths:
        line = f"- {t.label}: {model_gets(t)}"
        for shown in (comment, summary, markdown):
            assert line in shown.splitlines()
        assert f"{t.upfront_tokens:,} tokens up front" in line
        assert ("Verdict: " + t.verdict.replace("-", " ")) in line


def test_the_cli_and_the_action_write_one_sarif_log(tmp_path: Path) -> None:
    audit = _audit()
    files = [
        config("cursor", ".cursor/mcp.json", entry("alpha"), entry("gamma")),
        config("vscode", ".vscode/mcp.json", entry("alpha")),
        config("claude-code", ".mcp.json", entry("beta")),
    ]
    failing = tuple(f for f in audit.gates.findings if f.gate is Gate.LIMITS)
    assert failing
    cli = tmp_path / "cli.sarif"
    write_sarif(str(cli), audit, files, failing, tmp_path)
    doc = run_report(audit, lines={}, fail_on={Gate.LIMITS})
    write_sarif_file("action.sarif", doc, str(tmp_path))
    a: dict[str, Any] = json.loads(cli.read_text())
    b: dict[str, Any] = json.loads((tmp_path / "action.sarif").read_text())
    a["runs"][0].pop("originalUriBaseIds", None)
    assert a == b
    levels = {r["ruleId"]: r["level"] for r in b["runs"][0]["results"]}
    assert levels["mcpcost/lens/hidden-from-model"] == "note"
    assert levels["mcpcost/lens/name-too-long"] == "error"
