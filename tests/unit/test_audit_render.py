"""Renderers: JSON validates against the report schema as the package ships it (with every
optional part present), the human layout, Markdown escaping, the --claude join by capture hash."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

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
from mcpcost.core.model import METHODOLOGY_URL
from mcpcost.core.status import Status
from mcpcost.render.json_report import render_json, report_to_json
from mcpcost.render.markdown_report import render_markdown
from mcpcost.render.text_report import render_text
from tests.helpers.audit_builders import TABLE, as_baseline, config, entry, report_for
from tests.helpers.paths import ROOT
from tests.helpers.report_schema import SCHEMA


def validate(obj: Any) -> None:
    jsonschema.Draft202012Validator(SCHEMA).validate(obj)


def rich_configs() -> list[ConfigFile]:
    return [
        config("claude-code", "/h/.claude.json", entry("alpha", always_load=True), entry("dead")),
        config("claude-code", "/w/.mcp.json", entry("gamma")),
        config(
            "cursor",
            "/h/.cursor/mcp.json",
            entry("beta"),
            ConfigEntry(name="vsc", spec=None, unresolved=("${input:pat}",)),
        ),
        config(
            "explicit",
            "./x.json",
            entry("gh", "alpha", env={"T": "1"}),
            entry("gh2", "alpha", env={"T": "2"}),
        ),
        ConfigFile(client="zed", source="/z.json", state=ConfigState.ERROR, error="bad JSON"),
        ConfigFile(
            client="cursor",
            source="/off.json",
            state=ConfigState.ALL_DISABLED,
            entries=(entry("x", disabled=True),),
        ),
    ]


def divergence_for(names: list[str]) -> Any:
    rows = {}
    for n in names:
        m = measure_tools(TABLE[n])  # type: ignore[arg-type]
        rows[n + "-published"] = {
            "o200kFull": m.total_tokens,
            "claudeDelta": m.total_tokens // 2,
            "capturedSha256": m.canonical.sha256,
            "toolCount": m.tool_count,
        }
    rows["stale"] = {"o200kFull": 10, "claudeDelta": 5, "capturedSha256": "0" * 64}
    return parse_divergence(
        {
            "method": "tools-delta/v1",
            "model": "claude-test",
            "measuredAt": "2026-08-18",
            "servers": rows,
        }
    )


def rich_report(**kw: Any) -> Any:
    user = SettingsText(
        layer=SettingsLayer.USER,
        path="/h/.claude/settings.json",
        state=ReadState.READ,
        text=stringify({"env": {TOOL_SEARCH: "auto"}}).encode(),
    )
    settings = {"claude-code": ClientSettings(files=(user,))}
    return report_for(rich_configs(), TABLE, settings=settings, shell_environ={}, **kw)


def test_plain_report_validates() -> None:
    validate(report_to_json(rich_report()))


def test_report_with_every_optional_part_validates() -> None:
    report = rich_report(divergence=divergence_for(["alpha"]))
    before = as_baseline(
        report_for([config("cursor", "/h/.cursor/mcp.json", entry("alpha"))], TABLE)
    )
    diff = diff_reports(before, report)
    gates = evaluate_gates(report, diff, budget=10, max_increase=0, max_increase_percent=1.0)
    obj = json.loads(render_json(report, diff, gates))
    validate(obj)
    assert {"budget", "diff", "increaseGate", "gates", "claudeDivergence"} <= set(obj)
    assert obj["budget"]["fit"]["drop"]


def test_schema_rejects_a_value_in_the_wrong_place() -> None:
    obj = report_to_json(rich_report())
    obj["configs"][0]["servers"][0]["env"] = {"T": "secret"}
    with pytest.raises(jsonschema.ValidationError):
        validate(obj)


def test_claude_join_is_by_capture_hash_not_by_name() -> None:
    report = rich_report(divergence=divergence_for(["alpha"]))
    servers = {s.name: s for c in report.configs for s in c.servers}
    alpha_total = measure_tools(TABLE["alpha"]).total_tokens  # type: ignore[arg-type]
    assert servers["alpha"].anthropic_tokens == alpha_total // 2  # row is named "alpha-published"
    assert servers["gamma"].anthropic_tokens is None
    obj = report_to_json(report)
    assert all("claudeTokens" in s for c in obj["configs"] for s in c["servers"])
    assert "claudeTokens" not in report_to_json(rich_report())["configs"][0]["servers"][0]
    headers = [x for x in render_text(report).splitlines() if x.startswith("  server")]
    assert headers and all("claude" in x for x in headers)


def test_claude_code_files_share_one_verdict_printed_once() -> None:
    report = rich_report()
    cc = [c for c in report.configs if c.client == "claude-code"]
    assert len(cc) == 2 and cc[0].deferral is cc[1].deferral
    assert cc[0].deferral is not None and cc[0].deferral.mode == "threshold"
    assert set(cc[0].deferral.sources) == {"/h/.claude.json", "/w/.mcp.json"}
    assert cc[0].deferral.is_floor  # "dead" could not be measured
    text = render_text(report)
    assert text.count("defers tool definitions only once they reach") == 1
    lines = text.splitlines()
    head = next(i for i, x in enumerate(lines) if x.startswith("Claude Code — "))
    assert lines[head + 1].startswith("  [1] /h/.claude.json")
    assert lines[head + 2].startswith("  [2] /w/.mcp.json")
    by_file = render_text(report, by_file=True)
    assert by_file.count("defers tool definitions only once they reach") == 1
    assert "one session" in by_file


def test_text_layout() -> None:
    text = render_text(rich_report(), by_file=True)
    lines = text.splitlines()
    assert (
        lines[0] == "mcp-context-cost audit · methodology 1.0 · o200k_base · context window 200,000"
    )
    assert "claude-code  /h/.claude.json" in lines
    assert any(
        line.startswith("  server") and "tokens" in line and "start" in line for line in lines
    )
    assert any(line.strip().startswith("total") for line in lines)
    assert "tokens of tool schemas —" in text and "of a 200,000-token context window." in text
    # Cursor's names-only loading is a regime of the one model: deferred, at any size
    assert "Cursor keeps every MCP tool definition back (dynamic context discovery)" in text
    assert "The client reading this file is not known (--config)" in text
    assert "not measured" in text and "startup-failure — boom" in text
    assert "vsc" in text and "${input:pat}" in text
    assert "zed  /z.json — could not be read: bad JSON" in text
    assert "every server is switched off: x" in text
    assert "same command, different env or headers" in text
    assert all(line == line.rstrip() for line in lines)
    assert "at least" in text  # the claude-code config with a failed server is a floor


def test_markdown_escapes_cells_and_shows_no_commands() -> None:
    cfg = config("cursor", "/a.json", entry("we|ird`name", "alpha"))
    md = render_markdown(report_for([cfg], TABLE))
    assert "we\\|ird'name" in md and "server-bin" not in md
    assert md.startswith("## MCP context cost")
    assert "Cursor keeps every MCP tool definition back" in md


def test_markdown_with_diff_and_gate() -> None:
    before = report_for([config("cursor", "/a.json", entry("alpha"))], TABLE)
    after = report_for(
        [config("cursor", "/a.json", entry("alpha"), entry("dead"))],
        {**TABLE, "dead": Status.TIMEOUT},
    )
    diff = diff_reports(as_baseline(before), after)
    md = render_markdown(after, diff, evaluate_gates(after, diff, max_increase=100))
    assert "Diff vs baseline" in md and "**Gate failed:**" in md and "| no |" in md


# --------------------------------------------------------------------- methodology link, versions


def test_methodology_link_is_the_one_constant_in_every_output() -> None:
    assert METHODOLOGY_URL.endswith("/blob/main/spec/METHODOLOGY.md")
    assert METHODOLOGY_URL.startswith("https://github.com/mcp-context-cost/mcp-context-cost/")
    report = rich_report()
    text, md = render_text(report), render_markdown(report)
    obj = report_to_json(report)
    assert text.splitlines()[-1] == f"Methodology 1.0: {METHODOLOGY_URL}."
    assert f"[spec/METHODOLOGY.md]({METHODOLOGY_URL})" in md
    assert obj["methodologyUrl"] == METHODOLOGY_URL
    for output in (text, md, render_json(report)):
        assert "docs/METHODOLOGY" not in output
        rest = output.replace(METHODOLOGY_URL, "").replace("[spec/METHODOLOGY.md]", "")
        assert "METHODOLOGY" not in rest  # no other spelling of the link


def test_report_version_is_stable_and_schema_checked() -> None:
    obj = report_to_json(rich_report())
    assert obj["reportVersion"] == 2 and "$schema" not in obj
    assert list(obj)[:3] == ["reportVersion", "methodologyVersion", "methodologyUrl"]
    validate(obj)
    obj["reportVersion"] = 3
    with pytest.raises(jsonschema.ValidationError):
        validate(obj)


def test_the_report_schema_is_one_file_the_package_ships() -> None:
    copies = [
        p.relative_to(ROOT).as_posix()
        for top in ("mcpcost", "spec", "docs", "action", "examples")
        if (ROOT / top).is_dir()
        for p in (ROOT / top).rglob("*.json")
        if p.name == "audit-report.schema.json"
    ]
    assert copies == ["mcpcost/schemas/audit-report.schema.json"]
    assert SCHEMA["$id"].endswith("/" + copies[0])


def test_every_format_has_one_renderer_that_writes_what_its_module_writes() -> None:
    from mcpcost.render.renderer import RENDERERS
    from mcpcost.render.report_layout import Layout, OutputFormat

    report = rich_report()
    gates = evaluate_gates(report, None, budget=10)
    assert set(RENDERERS) == set(OutputFormat)
    for by_file, width in ((False, 100), (True, 72)):
        layout = Layout(by_file=by_file, width=width)
        made = {form: RENDERERS[form]()(report, None, gates, layout) for form in OutputFormat}
        assert made == {
            OutputFormat.TEXT: render_text(report, None, gates, width=width, by_file=by_file),
            OutputFormat.JSON: render_json(report, None, gates),
            OutputFormat.MARKDOWN: render_markdown(report, None, gates, by_file=by_file),
        }
