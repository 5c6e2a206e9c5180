"""The job summary: everything the comment has, without the row cap, kept under 1 MiB (pure);
on a run without a base side (a server's own repository), each server through each client's
lens, as ``mcpcost measure --client all`` shows it."""

from __future__ import annotations

from typing import Any

from mcpcost.action.comment import NAME_LIMIT, context, render_template, server_cells
from mcpcost.action.outcome import Outcome, ServerLensView
from mcpcost.action.runner_files import SUMMARY_LIMIT, fit_summary
from mcpcost.core.markdown import code_span, md_text
from mcpcost.render.markdown_report import lens_finding_line
from mcpcost.render.text_format import thousands


def server_lens_table(x: ServerLensView) -> dict[str, Any]:
    """One server through each client's lens: a row per client (up front, deferred, regime,
    how many findings), then each client's findings, one line each with its fix."""
    rows = []
    findings = []
    for c in x.clients:
        v = c.view
        count = str(len(v.findings)) if v.rules_on_record else "no rule on record"
        rows.append(
            {
                "client": md_text(c.label, 60),
                "upfront": thousands(v.upfront_tokens),
                "deferred": thousands(v.deferred_tokens),
                "regime": md_text(v.regime, 60),
                "findings": count,
            }
        )
        label = md_text(c.label, 60)
        # the finding's list item, led by its client: "- Cursor: ❌ **drops** ..."
        findings += [f"- {label}: {lens_finding_line(f, NAME_LIMIT)[2:]}" for f in v.findings]
    return {
        "server": code_span(x.server, NAME_LIMIT),
        "wire": thousands(x.wire_tokens),
        "rows": rows,
        "findings": findings,
    }


def render_summary(outcome: Outcome, *, limit: int = SUMMARY_LIMIT) -> str:
    ctx = context(outcome, key="summary", max_rows=None, tool_rows=None, lens_rows=None)
    ctx["all_rows"] = [server_cells(c, r) for c in outcome.configs for r in c.servers]
    ctx["server_lenses"] = [server_lens_table(x) for x in outcome.server_lenses]
    return fit_summary(render_template("summary.md.j2", ctx), limit)
