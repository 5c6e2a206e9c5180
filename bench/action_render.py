"""Figures for the one Markdown renderer of the audit's JSON report: the Action's comment and
summary for large reports.

Prints rows, render time and sizes; the comment must stay under 65,536 characters and the
summary under 1 MiB (after ``fit_summary``) however many servers change.
"""

from __future__ import annotations

import time
from typing import Any

from mcpcost.action.runner_files import fit_summary
from mcpcost.render.report_markdown import render_comment, render_summary


def report(servers: int) -> dict[str, Any]:
    """A base-against-head report document with ``servers`` changed servers, hostile names."""
    rows = [
        {
            "name": f"server-{i}-@someone-<b>x</b>",
            "kind": "changed",
            "before": 1000 + i,
            "after": 1100 + 2 * i,
            "delta": 100 + i,
            "beforeStatus": "measured",
            "afterStatus": "measured",
            "toolChanges": [{"tool": "t|x", "before": 10, "after": 20}],
        }
        for i in range(servers)
    ]
    config = {
        "client": "claude-code",
        "source": ".mcp.json",
        "baselineSource": ".mcp.json",
        "matchedBy": "source",
        "beforeTotal": sum(r["before"] for r in rows),
        "afterTotal": sum(r["after"] for r in rows),
        "delta": sum(r["delta"] for r in rows),
        "exact": True,
        "servers": rows,
    }
    return {
        "encoding": "o200k_base",
        "mcpcostVersion": "bench",
        "configs": [],
        "sessions": [],
        "emptyConfigs": [],
        "problems": [],
        "diff": {"configs": [config], "droppedConfigs": []},
        "findings": [],
        "run": {"headSha": "a" * 40, "baseSha": "b" * 40, "prNumber": 1, "runUrl": None},
    }


def main() -> None:
    for n in (10, 1_000, 10_000):
        doc = report(n)
        t0 = time.perf_counter()
        comment = render_comment(doc, key="default")
        t1 = time.perf_counter()
        summary = fit_summary(render_summary(doc))
        t2 = time.perf_counter()
        print(
            f"{n:>6} servers: comment {len(comment.body):>6} chars ({comment.dropped_rows} rows dropped) "
            f"in {1000 * (t1 - t0):7.1f} ms; summary {len(summary.encode()):>8} bytes in {1000 * (t2 - t1):7.1f} ms"
        )


if __name__ == "__main__":
    main()
