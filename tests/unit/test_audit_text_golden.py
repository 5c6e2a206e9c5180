"""The text report as a person reads it, at 80 and 120 columns: a golden file each.

The report is built from fixed tool arrays (no launches), with the shell and the settings files
fixed, so every line is deterministic. Regenerate after an intended change with
``MCPCOST_UPDATE_GOLDEN=1`` and read the diff before committing it.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from mcpcost.audit.diff import diff_reports
from mcpcost.audit.gates import evaluate_gates
from mcpcost.core.record import replace
from mcpcost.render.text_report import render_text
from tests.helpers.audit_builders import TABLE, as_baseline, config, entry, report_for, tools
from tests.helpers.paths import TEST_FIXTURES

GOLDEN = TEST_FIXTURES / "golden"
TABLE_G: dict[str, Any] = {**TABLE, "delta": tools("d", 8, 6)}


def _configs(extra: bool) -> list[Any]:
    mcp_json = [entry("gamma"), entry("alpha", "alpha-project"), entry("dead")]
    if extra:
        mcp_json.append(entry("delta"))
    return [
        config(
            "claude-code",
            "/home/ana/.claude.json",
            entry("alpha"),
            replace(entry("beta"), scope="local"),
        ),
        replace(config("claude-code", "/work/shop/.mcp.json", *mcp_json), scope="project"),
        config("cursor", "/home/ana/.cursor/mcp.json", entry("beta"), entry("gamma")),
        replace(
            config("cursor", "/work/shop/.cursor/mcp.json", entry("gamma", "gamma-project")),
            scope="project",
        ),
        config("gemini", "/home/ana/.gemini/settings.json", entry("alpha")),
    ]


def _report(extra: bool) -> Any:
    table = {**TABLE_G, "alpha-project": TABLE["alpha"], "gamma-project": TABLE["gamma"]}
    return report_for(_configs(extra), table, shell_environ={}, settings=[])


def _render(width: int) -> str:
    before, after = _report(False), _report(True)
    diff = diff_reports(as_baseline(before), after)
    gates = evaluate_gates(after, diff, budget=300, max_increase=100)
    return render_text(after, diff, gates, width=width)


@pytest.mark.parametrize("width", [80, 120])
def test_text_report_matches_its_golden_file(width: int) -> None:
    text = _render(width)
    path = GOLDEN / f"audit_text_{width}.txt"
    if os.environ.get("MCPCOST_UPDATE_GOLDEN"):
        path.write_text(text, "utf-8")
    assert text == path.read_text("utf-8")


@pytest.mark.parametrize("width", [80, 120])
def test_every_line_fits_the_width_but_an_unbreakable_word(width: int) -> None:
    for line in _render(width).splitlines():
        assert len(line) <= width or " " not in line.strip()[-width:], line


def test_summary_comes_before_the_detail_and_names_the_verdicts() -> None:
    lines = _render(120).splitlines()
    end = lines.index("", 2)
    summary = [x for x in lines[2:end] if not x.startswith("  ")]  # wrapped lines indent
    assert summary[0] == "3 client sessions from 5 config files; 7 servers measured, 1 not."
    assert summary[1].startswith("Heaviest session: Claude Code, at least ")
    assert summary[2].startswith("Budget 300: FAILED — 2 sessions over: Claude Code at ")
    assert summary[3].startswith("Increase limit 100 tokens: FAILED — 1 over the limit")
    assert len(summary) == 4
    assert sum(1 for x in lines if x.startswith("Columns: ")) == 1
