"""Figures for the Action's pure rendering: comment and summary for large outcomes.

Prints rows, render time and sizes; the comment must stay under 65,536 characters and the
summary under 1 MiB however many servers change.
"""

from __future__ import annotations

import time

from mcpcost.action.comment import render_comment
from mcpcost.action.outcome import (
    ConfigDiffView,
    Outcome,
    ServerDiffView,
    ToolChange,
    VerdictView,
)
from mcpcost.action.summary import render_summary
from mcpcost.audit.diff import DiffKind


def outcome(servers: int) -> Outcome:
    rows = tuple(
        ServerDiffView(
            name=f"server-{i}-@someone-<b>x</b>",
            kind=DiffKind.CHANGED,
            base_tokens=1000 + i,
            head_tokens=1100 + 2 * i,
            delta=100 + i,
            base_status="measured",
            head_status="measured",
            line=i + 2,
            tool_changes=(ToolChange(server=f"s{i}", tool="t|x", base_tokens=10, head_tokens=20),),
        )
        for i in range(servers)
    )
    config = ConfigDiffView(
        source=".mcp.json",
        client="claude-code",
        base_total=sum(r.base_tokens or 0 for r in rows),
        head_total=sum(r.head_tokens or 0 for r in rows),
        delta=sum(r.delta or 0 for r in rows),
        servers=rows,
    )
    return Outcome(
        configs=(config,),
        verdict=VerdictView(),
        compared=True,
        head_sha="a" * 40,
        base_sha="b" * 40,
    )


def main() -> None:
    for n in (10, 1_000, 10_000):
        o = outcome(n)
        t0 = time.perf_counter()
        comment = render_comment(o, key="default")
        t1 = time.perf_counter()
        summary = render_summary(o)
        t2 = time.perf_counter()
        print(
            f"{n:>6} servers: comment {len(comment.body):>6} chars ({comment.dropped_rows} rows dropped) "
            f"in {1000 * (t1 - t0):7.1f} ms; summary {len(summary.encode()):>8} bytes in {1000 * (t2 - t1):7.1f} ms"
        )


if __name__ == "__main__":
    main()
