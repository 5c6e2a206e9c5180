"""A broken config is loud (issue 25, item 4), end to end: a discovered config file that cannot
be parsed is named in the summary with what its client does with such a file where that is on
record, is carried by ``--json`` and fails the run with exit 2 while the healthy file's real
server (our stdio fixture) is still measured. The pure parts are in
tests/unit/test_audit_unreadable.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from tests.helpers.broken_homes import BROKEN, audit_at, home_with
from tests.helpers.report_schema import SCHEMA


@pytest.mark.slow
def test_a_broken_cursor_file_is_named_first_and_fails_the_run(tmp_path: Path) -> None:
    home, cwd = home_with(tmp_path, {".cursor/mcp.json": BROKEN})
    code, out, err = audit_at(home, cwd)
    assert code == 2, err
    # the first screen: the overview table, then what to act on, the unreadable file first
    first_screen = re.sub(r"\n +", " ", "\n".join(out.splitlines()[:12]))
    path = str(home / ".cursor" / "mcp.json")
    acts = first_screen.split("To act on, most important first:", 1)[1]
    assert acts.lstrip().startswith(f"- Cursor: {path} line 4: not valid JSON")
    assert "what Cursor does with such a file is not on record. (exit 2)" in acts
    assert "notes" in out  # the healthy file is still audited and reported
    assert "UNREADABLE FAIL: Cursor: " in err and path in err


@pytest.mark.slow
def test_json_carries_the_unreadable_configs_with_the_clients_recorded_behaviour(
    tmp_path: Path,
) -> None:
    home, cwd = home_with(tmp_path, {"shop/.mcp.json": "{ nope", ".cursor/mcp.json": BROKEN})
    code, out, _ = audit_at(home, cwd, "--json", "--trust-project")
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
