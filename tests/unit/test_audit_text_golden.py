"""The reports as a person and a program read them: a golden file each.

The text report at 80 and 120 columns, and a report with every optional part (a signed-in remote,
a container, unresolved and unlaunchable entries, env variants, files that are unreadable or
switched off, the --claude join, a diff and every gate) as ``audit --json``, as Markdown per
session and per file, and as text per file. The reports are built from fixed tool arrays (no
launches), with the shell and the settings files fixed, so every byte is deterministic.
Regenerate after an intended change with ``MCPCOST_UPDATE_GOLDEN=1`` and read the diff before
committing it.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

import pytest

from mcpcost.audit.compose import AuditInputs, AuditOptions, run_audit
from mcpcost.audit.diff import diff_reports
from mcpcost.audit.gates import evaluate_gates
from mcpcost.configs.clients.claude_code import TOOL_SEARCH
from mcpcost.configs.clients.settings_files import (
    ClientSettings,
    ReadState,
    SettingsLayer,
    SettingsText,
)
from mcpcost.configs.config_file import ConfigEntry, ConfigFile, ConfigState
from mcpcost.core.divergence import parse_divergence
from mcpcost.core.jsonvalue import stringify
from mcpcost.core.measure import measure_tools
from mcpcost.core.model import Measurement
from mcpcost.core.spec import ServerSpec
from mcpcost.render.json_report import render_json
from mcpcost.render.markdown_report import render_markdown
from mcpcost.render.text_report import render_text
from tests.helpers.audit_builders import (
    TABLE,
    as_baseline,
    config,
    entry,
    measure_from,
    report_for,
    tools,
)
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
    return report_for(_configs(extra), table, shell_environ={}, settings={})


def _render(width: int, details: bool = False) -> str:
    before, after = _report(False), _report(True)
    diff = diff_reports(as_baseline(before), after)
    gates = evaluate_gates(after, diff, budget=200, max_increase=100)
    return render_text(after, diff, gates, width=width, details=details)


@pytest.mark.parametrize(("width", "details"), [(80, False), (120, False), (100, True)])
def test_text_report_matches_its_golden_file(width: int, details: bool) -> None:
    text = _render(width, details)
    path = GOLDEN / (f"audit_text_{width}.txt" if not details else "audit_text_details.txt")
    if os.environ.get("MCPCOST_UPDATE_GOLDEN"):
        path.write_text(text, "utf-8")
    assert text == path.read_text("utf-8")


@pytest.mark.parametrize("width", [80, 120])
def test_every_line_fits_the_width_but_an_unbreakable_word(width: int) -> None:
    for line in _render(width).splitlines():
        assert len(line) <= width or " " not in line.strip()[-width:], line


def test_the_overview_comes_first_with_every_session_and_what_to_act_on() -> None:
    lines = _render(120).splitlines()
    assert lines[2] == "3 client sessions from 5 config files; 7 servers measured, 1 not."
    table = lines[4:8]
    assert table[0].split() == [
        "client",
        "session",
        "up",
        "front",
        "deferred",
        "servers",
        "heaviest",
    ]
    after = _report(True)
    rows = {s.label: s for s in after.sessions}
    shown = []
    for row in table[1:]:
        label = next(name for name in rows if row.startswith(f"  {name} "))
        cells = row[len(label) + 2 :].replace(" (all)", "").split()
        mv = rows[label].model_view
        assert cells[0] == f"{mv.upfront_tokens:,}"
        assert ("(all)" in row) is mv.ceiling  # a ceiling is labelled as one
        assert cells[1] == (
            "?" if mv.ceiling else f"{mv.deferred_tokens:,}" if mv.deferred_tokens else "—"
        )
        shown.append(mv.upfront_tokens)
    assert shown == sorted(shown, reverse=True) and len(shown) == len(rows)  # most important first
    act = lines.index("To act on, most important first:")
    assert lines[act + 1].startswith("  - Budget 200 on tokens loaded up front per request: FAILED")
    assert lines[act + 2].startswith("  - Increase limit 100 tokens: FAILED")
    assert sum(1 for x in lines if x.startswith("Columns: ")) == 0  # the legend is --details'
    assert sum(1 for x in _render(120, True).splitlines() if x.startswith("Columns: ")) == 1


def test_details_show_what_the_default_leaves_out() -> None:
    short, full = _render(100), _render(100, True)
    for part in ("heaviest tools", "The full number is paid where deferral does not apply"):
        assert part not in short and part in full
    assert "0.20" not in full and "1.92" not in full  # the published band is gone


REMOTE = "https://mcp.example.test/mcp"
RICH_TABLE: dict[str, Any] = {**TABLE_G, REMOTE: tools("r", 2, 7)}


def _rich_measure(spec: ServerSpec) -> Measurement:
    """The fixed tool arrays, with the remote measured signed in and alpha run in a container
    (both through the measurement.json form, as a published record carries them)."""
    measured = measure_from(RICH_TABLE)(spec)
    doc = measured.to_dict()
    if spec.url is not None:
        doc["authorization"] = "oauth"
    elif spec.argv[-1] == "alpha":
        doc["isolation"] = {"docker": True, "image": "node:22-slim", "network": "bridge"}
    return Measurement.from_dict(doc)


def _rich_configs(extra: bool) -> list[ConfigFile]:
    remote = ServerSpec.remote("remote", REMOTE, headers={"X-Api-Key": "k-123"})
    project = [
        entry("gamma"),
        ConfigEntry(name="vsc", spec=None, unresolved=("${input:pat}",)),
        ConfigEntry(name="broken", spec=None, problem="no command or url"),
    ]
    if extra:
        project.append(entry("delta"))
    return [
        config(
            "claude-code",
            "/home/ana/.claude.json",
            entry("alpha", always_load=True),
            replace(entry("beta"), notes=("asks for approval before its first use",)),
            entry("dead"),
        ),
        replace(config("claude-code", "/work/shop/.mcp.json", *project), scope="project"),
        config(
            "cursor",
            "/home/ana/.cursor/mcp.json",
            ConfigEntry(name="remote", spec=remote),
            entry("gh", "alpha", env={"T": "1"}),
            entry("gh2", "alpha", env={"T": "2"}),
        ),
        ConfigFile(
            client="zed",
            source="/home/ana/.config/zed/settings.json",
            state=ConfigState.ERROR,
            error="bad JSON",
        ),
        ConfigFile(
            client="cursor",
            source="/work/shop/.cursor/mcp.json",
            state=ConfigState.ALL_DISABLED,
            entries=(replace(entry("x", disabled=True), disabled_reason="off in settings"),),
        ),
    ]


def _rich_report(extra: bool) -> Any:
    alpha = measure_tools(TABLE["alpha"])  # type: ignore[arg-type]
    divergence = parse_divergence(
        {
            "method": "tools-delta/v1",
            "model": "claude-test",
            "measuredAt": "2026-08-18",
            "servers": {
                "alpha-published": {
                    "o200kFull": alpha.total_tokens,
                    "claudeDelta": alpha.total_tokens // 2,
                    "capturedSha256": alpha.canonical.sha256,
                    "toolCount": alpha.tool_count,
                }
            },
        }
    )
    user = SettingsText(
        layer=SettingsLayer.USER,
        path="/home/ana/.claude/settings.json",
        state=ReadState.READ,
        text=stringify({"env": {TOOL_SEARCH: "auto"}}).encode(),
    )
    inputs = AuditInputs(
        configs=tuple(_rich_configs(extra)),
        settings={"claude-code": ClientSettings(files=(user,))},
        problems=("a problem the run met",),
    )
    options = AuditOptions(
        concurrency=4, generated_at="2026-11-30T00:00:00.000Z", divergence=divergence
    )
    report = run_audit(inputs, measure=_rich_measure, options=options).report
    return replace(report, mcpcost_version="0.0.0-golden")


def _rich_outputs() -> dict[str, str]:
    before, after = _rich_report(False), _rich_report(True)
    diff = diff_reports(as_baseline(before), after)
    gates = evaluate_gates(
        after, diff, budget=300, max_increase=100, max_increase_percent=5.0, require_measured=True
    )
    return {
        "audit_report.json": render_json(after, diff, gates),
        "audit_markdown.md": render_markdown(after, diff, gates),
        "audit_markdown_by_file.md": render_markdown(after, diff, gates, by_file=True),
        "audit_text_by_file.txt": render_text(after, diff, gates, width=100, by_file=True),
    }


@pytest.mark.parametrize("name", sorted(_rich_outputs()))
def test_every_output_of_a_rich_report_matches_its_golden_file(name: str) -> None:
    output = _rich_outputs()[name]
    path = GOLDEN / name
    if os.environ.get("MCPCOST_UPDATE_GOLDEN"):
        path.write_text(output, "utf-8")
    assert output == path.read_text("utf-8")


def test_the_rich_report_has_every_optional_part() -> None:
    import json

    obj = json.loads(_rich_outputs()["audit_report.json"])
    assert {"budget", "diff", "increaseGate", "gates", "claudeDivergence"} <= set(obj)
    assert obj["unresolved"] and obj["envVariants"] and len(obj["emptyConfigs"]) == 2
    servers = [s for c in obj["configs"] for s in (*c["servers"], *c["skipped"])]
    assert {"authorization", "isolation", "configNotes", "claudeTokens"} <= {
        k for s in servers for k in s
    }
    assert {s["status"] for s in servers} >= {"measured", "startup-failure", "unresolved"}
    assert "not-launchable" in {s["status"] for s in servers}
