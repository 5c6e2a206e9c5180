"""The job summary: everything the comment has, without the row cap, kept under 1 MiB (pure)."""

from __future__ import annotations

from mcpcost.action.comment import context, render_template, server_cells
from mcpcost.action.outcome import Outcome
from mcpcost.action.runner_files import SUMMARY_LIMIT, fit_summary


def render_summary(outcome: Outcome, *, limit: int = SUMMARY_LIMIT) -> str:
    ctx = context(outcome, key="summary", max_rows=None, tool_rows=None, lens_rows=None)
    ctx["all_rows"] = [server_cells(c, r) for c in outcome.configs for r in c.servers]
    return fit_summary(render_template("summary.md.j2", ctx), limit)
