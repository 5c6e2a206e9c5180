"""Exit codes as documented: 0 ok, 1 a check failed, 2 usage or unreadable input.

One table: every command that reads a file, for input that is missing, unreadable (a directory
where a file belongs, and a file without read permission when not running as root) and invalid
(not JSON, not YAML, the wrong shape). Each must exit 2 with one line on stderr naming the input
and no traceback. Then the tools that refuse to do harm: ``publish`` on a tree without results,
``verify`` over a sweep's output with recorded failures, and the name rule.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from mcpcost.core.measure import measure_tools
from mcpcost.core.model import Measurement, render_measurement
from mcpcost.core.names import name_problem
from mcpcost.core.status import Status
from tests.helpers.cli_exits import (
    run,
    work_fixture,  # noqa: F401  (the fixture)
)


def measured(name: str) -> Measurement:
    tools = [{"name": "echo", "description": "Echo it", "inputSchema": {"type": "object"}}]
    m = measure_tools(tools)
    return Measurement(
        status=Status.MEASURED,
        server_name=name,
        launch_command="echo",
        measured_at="2026-11-30T00:00:00.000Z",
        timeout_ms=1000,
        total_tokens=m.total_tokens,
        tool_count=1,
        tools=m.tools,
        canonical_sha256=m.canonical.sha256,
        raw_tools_capture=m.capture,
    )


def failed(name: str) -> Measurement:
    return Measurement(
        status=Status.TIMEOUT,
        server_name=name,
        launch_command="slow",
        measured_at="2026-11-30T00:00:00.000Z",
        timeout_ms=1000,
        notes="no tools/list reply within 1s",
    )


# (command, kind, argv, the input the error line must name)
CASES: list[tuple[str, str, list[str], str]] = [
    ("auth", "invalid", ["auth", "login", "not-a-url"], "not-a-url"),
    ("auth", "invalid", ["auth", "logout", "ftp://x"], "ftp://x"),
    ("verify", "missing", ["verify", "missing.json"], "missing.json"),
    ("verify", "unreadable", ["verify", "adir"], "adir"),
    ("verify", "invalid", ["verify", "bad.json"], "bad.json"),
    ("verify", "wrong shape", ["verify", "list.json"], "list.json"),
    ("count", "missing", ["count", "missing.json"], "missing.json"),
    ("count", "unreadable", ["count", "adir"], "adir"),
    ("count", "invalid", ["count", "bad.json"], "bad.json"),
    ("badge", "missing", ["badge", "missing.json"], "missing.json"),
    ("badge", "unreadable", ["badge", "adir"], "adir"),
    ("badge", "invalid", ["badge", "bad.json"], "bad.json"),
    ("badge", "wrong shape", ["badge", "list.json"], "list.json"),
    ("audit", "missing", ["audit", "--config", "missing.json"], "missing.json"),
    ("audit", "unreadable", ["audit", "--config", "adir"], "adir"),
    ("audit", "invalid", ["audit", "--config", "bad.json"], "bad.json"),
    ("audit", "wrong shape", ["audit", "--config", "list.json"], "list.json"),
    (
        "audit --baseline",
        "missing",
        ["audit", "--baseline", "missing.json", "--config", "config.json"],
        "missing.json",
    ),
    (
        "audit --baseline",
        "unreadable",
        ["audit", "--baseline", "adir", "--config", "config.json"],
        "adir",
    ),
    (
        "audit --baseline",
        "invalid",
        ["audit", "--baseline", "bad.json", "--config", "config.json"],
        "bad.json",
    ),
    (
        "audit --claude",
        "invalid",
        ["audit", "--claude", "bad.json", "--config", "config.json"],
        "bad.json",
    ),
    ("sweep", "missing", ["sweep", "--servers", "missing.yaml", "--out", "o"], "missing.yaml"),
    ("sweep", "unreadable", ["sweep", "--servers", "adir", "--out", "o"], "adir"),
    ("sweep", "invalid", ["sweep", "--servers", "bad.yaml", "--out", "o"], "bad.yaml"),
    ("sweep", "wrong shape", ["sweep", "--servers", "list.yaml", "--out", "o"], "list.yaml"),
    ("merge", "missing", ["merge", "missing", "--out", "o"], "missing"),
    ("merge", "unreadable", ["merge", "afile", "--out", "o"], "afile"),
    ("merge", "invalid", ["merge", "shard", "--servers", "bad.yaml", "--out", "o"], "bad.yaml"),
    ("publish", "missing", ["publish", "--out", "missing"], "missing"),
    ("publish", "unreadable", ["publish", "--out", "adir", "--servers", "adir"], "adir"),
    ("publish", "invalid", ["publish", "--out", "adir", "--servers", "bad.yaml"], "bad.yaml"),
    ("divergence", "missing", ["divergence", "--out", "missing"], "missing"),
    ("divergence", "unreadable", ["divergence", "--out", "afile"], "afile"),
    ("measure", "missing", ["measure", "--cwd", "missing", "--", "true"], "missing"),
    ("measure", "unreadable", ["measure", "--cwd", "afile", "--", "true"], "afile"),
    ("measure", "invalid", ["measure", "--url", "not-a-url"], "not-a-url"),
    ("measure --out", "unreadable", ["measure", "--out", "afile/o", "--", "true"], "afile"),
    ("adoption", "unreadable", ["adoption", "--out", "afile"], "afile"),
    ("adoption", "invalid", ["adoption", "--out", "state"], "badge-adoption.json"),
    ("snapshot", "missing", ["snapshot", "--gates", "missing.toml"], "missing.toml"),
    ("snapshot", "unreadable", ["snapshot", "--gates", "adir"], "adir"),
    ("snapshot", "invalid", ["snapshot", "--gates", "bad.json"], "bad.json"),
    ("serve", "missing", ["serve", "--out", "missing"], "missing"),
    ("serve", "unreadable", ["serve", "--out", "afile"], "afile"),
]


@pytest.mark.parametrize(
    ("command", "kind", "argv", "named"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES]
)
def test_unreadable_input_exits_2_with_one_line(
    work: Path, command: str, kind: str, argv: list[str], named: str
) -> None:
    code, out, err = run(argv, work)
    assert code == 2, (command, kind, out, err)
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert named in lines[0] and "Traceback" not in err
    assert not (work / "o").exists()  # refused before writing anything


def test_every_command_is_in_the_table() -> None:
    from mcpcost.cli import COMMANDS

    assert {c[0].split()[0] for c in CASES} == set(COMMANDS)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files without read permission")
@pytest.mark.parametrize("command", ["verify", "count", "badge"])
def test_a_file_without_read_permission_exits_2(work: Path, command: str) -> None:
    locked = work / "locked.json"
    locked.write_text("{}", encoding="utf-8")
    locked.chmod(0)
    code, _, err = run([command, "locked.json"], work)
    assert code == 2 and "locked.json" in err


def sweep_tree(root: Path) -> Path:
    for m in (measured("good"), failed("slow")):
        path = root / "results" / m.server_name / "measurement.json"
        path.parent.mkdir(parents=True)
        path.write_text(render_measurement(m), encoding="utf-8")
    return root


def test_verify_reports_recorded_failures_as_recorded(tmp_path: Path) -> None:
    tree = sweep_tree(tmp_path / "out")
    code, out, err = run(["verify", str(tree)], tmp_path)
    assert code == 0, out
    assert out.splitlines()[0].startswith("OK good: ")
    assert "RECORDED slow: timeout (recorded, not measured" in out
    assert "1 agree, 1 recorded failure, 0 disagree, 0 unreadable" in err
    assert run(["verify", "--strict", str(tree)], tmp_path)[0] == 1
    code, out, _ = run(["verify", "--json", str(tree / "results" / "slow")], tmp_path)
    assert code == 0 and json.loads(out)["verdict"] == "recorded"
    assert json.loads(out)["status"] == "timeout"


def test_a_failure_record_that_claims_a_number_disagrees(tmp_path: Path) -> None:
    tree = sweep_tree(tmp_path / "out")
    path = tree / "results" / "slow" / "measurement.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["totalTokens"] = 12
    path.write_text(json.dumps(doc), encoding="utf-8")
    code, out, _ = run(["verify", str(tree)], tmp_path)
    assert code == 1
    assert "FAIL slow:" in out and "status timeout carries no number" in out


def test_a_measurement_that_does_not_rederive_fails_even_beside_recorded_ones(
    tmp_path: Path,
) -> None:
    tree = sweep_tree(tmp_path / "out")
    path = tree / "results" / "good" / "measurement.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["totalTokens"] += 1
    path.write_text(json.dumps(doc), encoding="utf-8")
    code, out, _ = run(["verify", str(tree)], tmp_path)
    assert code == 1 and "token mismatch" in out


def test_publish_refuses_a_tree_without_results_unless_asked(tmp_path: Path) -> None:
    empty = tmp_path / "typo"
    code, out, err = run(["publish", "--out", str(empty)], tmp_path)
    assert code == 2 and out == "" and "--allow-empty" in err
    assert not empty.exists()
    code, out, _ = run(["publish", "--out", str(empty), "--allow-empty"], tmp_path)
    assert code == 0 and "published 0/0 measured" in out
    assert (empty / "results" / "leaderboard.md").is_file()
    tree = sweep_tree(tmp_path / "out")
    code, out, _ = run(["publish", "--out", str(tree)], tmp_path)
    assert code == 0 and "published 1/2 measured" in out


@pytest.mark.parametrize("name", ["everything-streamableHttp", "Server.v2", "a_b-C", "x" * 100])
def test_names_the_reference_accepts(name: str) -> None:
    assert name_problem(name) is None


@pytest.mark.parametrize("name", ["", ".", "..", "a/b", "a b", "é", "x" * 101, "a\\b"])
def test_names_that_cannot_become_a_path(name: str) -> None:
    assert name_problem(name) is not None


# ------------------------------------------------------------------ help where people slip


def test_a_mistyped_command_or_flag_gets_a_suggestion(tmp_path: Path) -> None:
    code, _, err = run(["audti"], tmp_path)
    assert code == 2 and "did you mean 'audit'?" in err
    code, _, err = run(["audit", "--budgte", "5"], tmp_path)
    assert code == 2 and "did you mean --budget?" in err
    code, _, err = run(["verify", "--Strict", "x.json"], tmp_path)
    assert code == 2 and "did you mean --strict?" in err
    code, _, err = run(["measure", "--transport", "htp", "--url", "http://127.0.0.1:1/"], tmp_path)
    assert code == 2 and "did you mean 'http'?" in err
    code, _, err = run(["audit", "--frobnicate"], tmp_path)
    assert code == 2 and "did you mean" not in err  # nothing close: no guess


def test_a_slip_in_a_flag_group_or_a_choice_gets_a_suggestion(tmp_path: Path) -> None:
    code, _, err = run(["count", "--jsno", "x.json"], tmp_path)  # --json is in a group
    assert code == 2 and "did you mean --json?" in err
    code, _, err = run(
        ["measure", "--protocol", "modren", "--url", "http://127.0.0.1:1/"], tmp_path
    )
    assert code == 2 and err.count("\n") == 1
    assert "invalid choice: 'modren' (choose from 'auto', 'legacy', 'modern'); " in err
    assert "did you mean 'modern'?" in err


def audit_in(home: Path, argv: list[str]) -> tuple[int, str, str]:
    from mcpcost.cli import audit_cmd

    out, err = io.StringIO(), io.StringIO()
    code = audit_cmd.run(
        argv,
        out,
        err,
        home=home,
        cwd=home / "project",
        platform="linux",
        environ={"HOME": str(home), "PATH": os.environ["PATH"]},
    )
    return code, out.getvalue(), err.getvalue()


def test_a_misspelled_server_block_key_is_named(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "project").mkdir(parents=True)
    cursor = home / ".cursor" / "mcp.json"
    cursor.parent.mkdir()
    cursor.write_text('{"mcpservers": {"a": {"command": "x"}}}', encoding="utf-8")
    code, out, _ = audit_in(home, ["--list-configs"])
    assert code == 0 and "(declares-nothing)" in out
    assert "did you mean 'mcpServers'?" in out and "'mcpservers'" in out
    code, _, err = run(["audit", "--config", str(cursor)], tmp_path)
    assert code == 1 and "did you mean 'mcpServers'?" in err


def test_a_strict_json_client_rejecting_its_file_is_not_ok(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "project").mkdir(parents=True)
    text = '{\n  "mcpServers": {\n    "a": {"command": "x"},\n  }\n}\n'
    desktop = home / ".config" / "Claude" / "claude_desktop_config.json"
    desktop.parent.mkdir(parents=True)
    desktop.write_text(text, encoding="utf-8")
    cursor = home / ".cursor" / "mcp.json"  # Cursor reads JSON with trailing commas
    cursor.parent.mkdir()
    cursor.write_text(text, encoding="utf-8")
    code, out, _ = audit_in(home, ["--list-configs"])
    assert code == 0
    lines = out.splitlines()
    desktop_line = next(i for i, line in enumerate(lines) if "claude_desktop_config" in line)
    assert lines[desktop_line].endswith("(error)")
    assert "reads this file as strict JSON and will reject it" in lines[desktop_line + 1]
    assert "line 4" in lines[desktop_line + 1]
    assert any("cursor" in line and line.endswith("(ok)") for line in lines)


def test_exception_names_become_sentences() -> None:
    from mcpcost.cli.wording import plain_reason

    text = "POST to the SSE endpoint failed: ChunkedEncodingError; MyConnectionErrorish stays"
    assert plain_reason(text) == (
        "POST to the SSE endpoint failed: the response was cut off mid-stream; "
        "MyConnectionErrorish stays"
    )


def test_a_misspelled_entry_field_is_named(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    servers = {"a": {"comand": "x", "args": []}, "b": {"Command": "x"}, "c": {"nothing": 1}}
    config.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    code, out, _ = run(["audit", "--list-configs", "--config", str(config)], tmp_path)
    assert code == 0
    assert "a  [not launchable: no command or url; did you mean 'command' for 'comand'?]" in out
    assert "did you mean 'command' for 'Command'?" in out
    assert "c  [not launchable: no command or url]" in out
