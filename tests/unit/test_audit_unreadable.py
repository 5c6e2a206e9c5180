"""A broken config is loud (issue 25, item 4): what the report says of a config file that cannot
be read or parsed, the clients' recorded behaviour (with provenance), the always-failing
``unreadable`` finding, and a ``--config`` file refused before anything is launched. The run
with real servers is tests/integration/test_audit_unreadable.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcpcost.audit.gates import Gate, evaluate_gates
from mcpcost.configs.clients import registry
from mcpcost.configs.config_file import ReadFailure
from mcpcost.configs.discovery import discover
from mcpcost.core.spec import ServerSpec
from tests.helpers.audit_builders import measured, report_for, tools
from tests.helpers.broken_homes import BROKEN, audit_at, home_with
from tests.servers.registry import fixture_argv


def test_an_unreadable_file_says_only_what_is_known(tmp_path: Path) -> None:
    """The records are of parse errors: a file that cannot even be read gets no client words."""
    home, cwd = home_with(tmp_path, {".config/Claude/claude_desktop_config.json": "\xff"})
    (home / ".config/Claude/claude_desktop_config.json").write_bytes(b"\xff\xfe{")
    found = discover(home=home, cwd=cwd, platform="linux", environ={})
    (bad,) = [f for f in found if f.client == "claude-desktop"]
    assert bad.failure is ReadFailure.UNREADABLE
    report = report_for(found, {fixture_argv("good")[-1]: tools("n", 2)})
    (u,) = report.unreadable
    assert u.client_says is None and u.line is None and "not UTF-8" in u.error
    assert "what Claude Desktop does with such a file is not on record" in u.sentence()
    # parsed, it would be Claude Desktop's own reported behaviour
    (home / ".config/Claude/claude_desktop_config.json").write_text('{"mcpServers": {')
    found = discover(home=home, cwd=cwd, platform="linux", environ={})
    report = report_for(found, {fixture_argv("good")[-1]: tools("n", 2)})
    (u,) = report.unreadable
    assert u.client_says is not None and u.client_says.startswith("Claude Desktop will not load")
    assert u.provenance is not None and u.provenance.confidence == "reported"


def test_unreadable_findings_fail_whatever_was_asked() -> None:
    home_report = report_for([], {})
    assert evaluate_gates(home_report, None).passed  # nothing asked, nothing broken
    from mcpcost.configs.config_file import ConfigFile, ConfigState

    broken = ConfigFile(
        client=registry.client_named("cursor").name,
        source="/h/.cursor/mcp.json",
        state=ConfigState.ERROR,
        error="not valid JSON: Expecting value at line 2 column 1",
        failure=ReadFailure.UNPARSABLE,
    )
    g = evaluate_gates(report_for([broken], {}), None)
    assert not g.passed
    (f,) = g.findings
    assert f.gate is Gate.UNREADABLE and "line 2" in f.text and f.source == "/h/.cursor/mcp.json"


def test_every_rule_carries_its_source_date_and_confidence() -> None:
    rules = [(c.name, r) for c in registry.CLIENTS for r in c.broken_files]
    assert {name for name, _ in rules} == {"claude-code", "claude-desktop"}
    for _, r in rules:
        assert r.provenance.source.startswith("https://") and len(r.provenance.date) >= 7
        assert r.says.split(" ", 2)[:2] in (["Claude", "Code"], ["Claude", "Desktop"])


def test_a_config_file_named_with_config_still_refuses_before_launching(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(BROKEN)
    calls: list[str] = []

    def measure(spec: ServerSpec) -> Any:
        calls.append(spec.name)
        return measured(spec, tools("x", 1))

    from mcpcost.errors import InputError

    with pytest.raises(InputError, match="line 4"):
        audit_at(tmp_path, tmp_path, "--config", str(path), measure=measure)
    assert calls == []


def test_sarif_carries_an_unreadable_config_as_an_error_without_any_gate(tmp_path: Path) -> None:
    home, cwd = home_with(tmp_path, {".cursor/mcp.json": BROKEN})
    sarif = tmp_path / "audit.sarif"

    def measure(spec: ServerSpec) -> Any:
        return measured(spec, tools("n", 2))

    code, _, err = audit_at(home, cwd, "--sarif", str(sarif), measure=measure)
    assert code == 2 and "UNREADABLE FAIL: Cursor: " in err
    (run,) = json.loads(sarif.read_text())["runs"]
    errors = [r for r in run["results"] if r["level"] == "error"]
    assert [r["ruleId"] for r in errors] == ["unreadable"]
    assert "line 4" in errors[0]["message"]["text"]
