"""A broken config is loud (issue 25, item 4): a discovered config file that cannot be read or
parsed is named in the summary, with what its client does with such a file where that is on
record, is carried by ``--json`` and fails the run with exit 2 (unreadable input).

Real servers for the healthy file (our stdio fixture), a temporary home and project.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from mcpcost.audit.gates import Gate, evaluate_gates
from mcpcost.cli import audit_cmd
from mcpcost.configs.clients import registry
from mcpcost.configs.config_file import ReadFailure
from mcpcost.configs.discovery import discover
from mcpcost.core.spec import ServerSpec
from tests.servers.registry import fixture_argv
from tests.test_audit_render import SCHEMA
from tests.test_audit_report import measured, report_for, tools

BROKEN = '{\n  "mcpServers": {\n    "docs": {"command": "docs-mcp"}\n    "search": {}\n  }\n}\n'


def home_with(tmp: Path, broken: dict[str, str]) -> tuple[Path, Path]:
    """A home whose ~/.claude.json declares one real server, plus the broken files given
    (path relative to home -> text); the project directory is empty."""
    home, cwd = tmp / "home", tmp / "home" / "shop"
    cwd.mkdir(parents=True)
    argv = fixture_argv("good")
    good = {"mcpServers": {"notes": {"command": argv[0], "args": argv[1:]}}}
    (home / ".claude.json").write_text(json.dumps(good))
    for rel, text in broken.items():
        path = home / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return home, cwd


def audit(home: Path, cwd: Path, *argv: str, measure: Any = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    env = {"PATH": os.environ.get("PATH", "")}
    code = audit_cmd.run(
        [*argv, "--timeout", "20"],
        out,
        err,
        environ=env,
        home=home,
        cwd=cwd,
        platform="linux",
        measure=measure,
    )
    return code, out.getvalue(), err.getvalue()


@pytest.mark.slow
def test_a_broken_cursor_file_is_named_first_and_fails_the_run(tmp_path: Path) -> None:
    home, cwd = home_with(tmp_path, {".cursor/mcp.json": BROKEN})
    code, out, err = audit(home, cwd)
    assert code == 2, err
    summary = "\n".join(out.splitlines()[:8]).replace("\n  ", " ")  # wrapped lines joined
    path = str(home / ".cursor" / "mcp.json")
    assert f"Cannot be read (exit 2): Cursor: {path} line 4: not valid JSON" in summary
    assert "what Cursor does with such a file is not on record" in summary
    assert "notes" in out  # the healthy file is still audited and reported
    assert "UNREADABLE FAIL: Cursor: " in err and path in err


@pytest.mark.slow
def test_json_carries_the_unreadable_configs_with_the_clients_recorded_behaviour(
    tmp_path: Path,
) -> None:
    home, cwd = home_with(tmp_path, {"shop/.mcp.json": "{ nope", ".cursor/mcp.json": BROKEN})
    code, out, _ = audit(home, cwd, "--json", "--trust-project")
    assert code == 2
    doc = json.loads(out)
    jsonschema.Draft202012Validator(SCHEMA).validate(doc)
    by_client = {u["client"]: u for u in doc["unreadableConfigs"]}
    code_file = by_client["claude-code"]
    assert code_file["failure"] == "unparsable" and code_file["line"] == 1
    assert code_file["clientSays"].startswith("Claude Code will not load this file either")
    assert code_file["provenance"]["confidence"] == "documented"
    assert code_file["provenance"]["source"].startswith("https://code.claude.com/docs/en/changelog")
    cursor = by_client["cursor"]
    assert cursor["clientSays"] is None and cursor["provenance"] is None and cursor["line"] == 4
    assert doc["configs"] and doc["configs"][0]["servers"][0]["name"] == "notes"


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
        audit(tmp_path, tmp_path, "--config", str(path), measure=measure)
    assert calls == []
