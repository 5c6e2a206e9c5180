"""``mcpcost audit`` in process with a fake measure: a temporary home with one config per client,
flags (both spellings), exit codes, malformed inputs and progress on stderr (real launches:
tests/integration/test_cli_audit_servers.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from mcpcost import __version__
from mcpcost.core.model import Measurement
from mcpcost.core.spec import ServerSpec
from mcpcost.escaping.markdown import md_text
from tests.helpers.audit_builders import measured, tools
from tests.helpers.cli_audit import (
    cli,
    cli_with,
    demo_fixture,  # noqa: F401  (the fixture)
    write_json,
)
from tests.helpers.paths import ROOT
from tests.helpers.report_schema import SCHEMA


def fake_measure(calls: list[str] | None = None) -> Callable[[ServerSpec], Measurement]:
    def measure(spec: ServerSpec) -> Measurement:
        if calls is not None:
            calls.append(spec.name)
        size = (len(spec.argv[-1]) if spec.argv else 3) % 5 + 1
        return measured(spec, tools(spec.name, size))

    return measure


# --------------------------------------------------------------------- real servers


# --------------------------------------------------------------------- one config per client


def populate_home(home: Path, cwd: Path) -> dict[str, Path]:
    s = lambda n: {n: {"command": "srv", "args": [n]}}  # noqa: E731
    files = {
        "claude-desktop": write_json(
            home / ".config" / "Claude" / "claude_desktop_config.json",
            {"mcpServers": {**s("desk-a"), **s("shared")}},
        ),
        "claude-code-user": write_json(
            home / ".claude.json",
            {"mcpServers": s("cc-user"), "projects": {str(cwd): {"mcpServers": s("cc-project")}}},
        ),
        "claude-code-project": write_json(
            cwd / ".mcp.json",
            {"mcpServers": {"pinned": {"command": "srv", "args": ["pinned"], "alwaysLoad": True}}},
        ),
        "cursor": write_json(
            home / ".cursor" / "mcp.json", {"mcpServers": {**s("shared"), **s("cur")}}
        ),
        "vscode": write_json(cwd / ".vscode" / "mcp.json", {"servers": s("vs")}),
        "windsurf": write_json(
            home / ".codeium" / "windsurf" / "mcp_config.json", {"mcpServers": s("wind")}
        ),
        "gemini": write_json(home / ".gemini" / "settings.json", {"mcpServers": s("gem")}),
    }
    codex = home / ".codex" / "config.toml"
    codex.parent.mkdir(parents=True)
    codex.write_text('[mcp_servers.cdx]\ncommand = "srv"\nargs = ["cdx"]\n', "utf-8")
    files["codex"] = codex
    return files


def populated_home(tmp_path: Path, calls: list[str]) -> dict[str, Any]:
    """Keyword arguments for ``cli_with``: a temp home with one config per client, fake measure."""
    home, cwd = tmp_path / "home", tmp_path / "proj"
    cwd.mkdir()
    populate_home(home, cwd)
    return {
        "measure": fake_measure(calls),
        "home": home,
        "cwd": cwd,
        "environ": {},
        "platform": "linux",
    }


def test_a_home_with_every_client_is_audited_per_config(tmp_path: Path) -> None:
    calls: list[str] = []
    kw = populated_home(tmp_path, calls)
    home = kw["home"]
    code, out, err = cli_with(["--json", "--trust-project"], **kw)
    assert code == 0, err
    report = json.loads(out)
    jsonschema.Draft202012Validator(SCHEMA).validate(report)
    clients = {c["client"] for c in report["configs"]}
    assert {
        "claude-desktop",
        "claude-code",
        "cursor",
        "vscode",
        "windsurf",
        "gemini",
        "codex",
    } <= clients
    for c in report["configs"]:
        assert c["totalTokens"] == sum(s["tokens"] for s in c["servers"])
    assert calls.count("shared") == 1  # one launch, two configs
    by_source = {c["source"]: c for c in report["configs"]}
    desk = by_source[str(home / ".config" / "Claude" / "claude_desktop_config.json")]
    assert {s["name"] for s in desk["servers"]} == {"desk-a", "shared"}
    assert desk["deferral"]["mode"] == "no-deferral-on-record"
    cc = [c for c in report["configs"] if c["client"] == "claude-code"]
    assert cc and all(c["deferral"]["mode"] == "defers-all" for c in cc)
    assert cc[0]["deferral"]["alwaysLoad"]["servers"] == ["pinned"]
    # --client filters discovery
    code, out, _ = cli_with(["--json", "--client", "cursor"], **kw)
    assert {c["client"] for c in json.loads(out)["configs"]} == {"cursor"}
    code, out, _ = cli_with(["--json", "--client", "cursor, codex"], **kw)
    assert {c["client"] for c in json.loads(out)["configs"]} == {"cursor", "codex"}
    code, out, _ = cli_with(["--json", "--client", "cursor", "--client", "codex,cursor"], **kw)
    assert {c["client"] for c in json.loads(out)["configs"]} == {"cursor", "codex"}
    code, _, err = cli_with(["--client", "nope"], **kw)
    assert code == 2 and "unknown client 'nope' (known clients: claude-desktop," in err
    code, _, err = cli_with(["--client", "cursor,curser"], **kw)
    assert code == 2 and "unknown client 'curser'; did you mean 'cursor'?" in err
    assert err.count("\n") == 1


def test_list_configs_launches_nothing(tmp_path: Path) -> None:
    calls: list[str] = []
    kw = populated_home(tmp_path, calls)
    cwd = kw["cwd"]
    code, out, _ = cli_with(["--list-configs"], **kw)
    assert code == 0 and calls == []
    assert "cursor" in out and "shared" in out and str(cwd / ".mcp.json") in out
    code, out, _ = cli_with(["--list-configs", "--json"], **kw)
    assert code == 0 and calls == [] and json.loads(out)["configs"]


def test_claude_settings_in_the_home_move_the_verdict(tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "proj"
    cwd.mkdir()
    populate_home(home, cwd)
    write_json(home / ".claude" / "settings.json", {"env": {"ENABLE_TOOL_SEARCH": "false"}})
    kw = {"measure": fake_measure(), "home": home, "cwd": cwd, "environ": {}, "platform": "linux"}
    _, out, _ = cli_with(["--json", "--trust-project", "--client", "claude-code"], **kw)
    (mode,) = {c["deferral"]["mode"] for c in json.loads(out)["configs"]}
    assert mode == "loads-upfront"
    kw["environ"] = {"ENABLE_TOOL_SEARCH": "true"}
    _, out, _ = cli_with(["--json", "--trust-project", "--client", "claude-code"], **kw)
    (mode,) = {c["deferral"]["mode"] for c in json.loads(out)["configs"]}
    assert mode == "setting-unresolved"


def test_nothing_found_exits_1_with_the_discovery_message(tmp_path: Path) -> None:
    kw = {
        "measure": fake_measure(),
        "home": tmp_path,
        "cwd": tmp_path,
        "environ": {},
        "platform": "linux",
    }
    code, out, err = cli_with([], **kw)
    assert code == 1 and "no MCP config found in the standard locations" in err and out == ""


# --------------------------------------------------------------------- flags and gates


@pytest.mark.parametrize("spelling", [["--budget", "1"], ["--budget=1"]])
def test_budget_both_spellings_fail_the_gate(demo: Path, spelling: list[str]) -> None:
    code, out, _ = cli_with(["--config", str(demo), *spelling], measure=fake_measure())
    assert (
        code == 1
        and "Budget 1 on tokens loaded up front per request: FAILED" in out
        and "over the 1 budget" in out
    )


def test_baseline_round_trip_and_max_increase(demo: Path, tmp_path: Path) -> None:
    code, out, _ = cli_with(["--config", str(demo), "--json"], measure=fake_measure())
    base = tmp_path / "base.json"
    base.write_text(out, "utf-8")
    code, out, _ = cli_with(
        ["--config", str(demo), f"--baseline={base}", "--max-increase=0"], measure=fake_measure()
    )
    assert code == 0 and "Increase limit 0 tokens: passed" in out
    bigger = write_json(
        tmp_path / "other" / ".mcp.json",
        {
            "mcpServers": {
                "one": {"command": "srv", "args": ["one"]},
                "two": {"command": "srv", "args": ["two22"]},
                "three": {"command": "srv", "args": ["three"]},
            }
        },
    )
    code, out, _ = cli_with(
        ["--config", str(bigger), "--baseline", str(base), "--max-increase", "5"],
        measure=fake_measure(),
    )
    assert code == 1 and "Increase limit 5 tokens: FAILED" in out and "sole-config" not in out
    code, out, _ = cli_with(
        ["--config", str(bigger), "--baseline", str(base)], measure=fake_measure()
    )
    assert code == 0 and "diff vs baseline" in out  # informational without --max-increase


def test_reference_baseline_loads_from_the_command_line(demo: Path) -> None:
    base = ROOT / "tests" / "fixtures" / "baselines" / "reference-shaped.json"
    code, out, err = cli_with(
        ["--config", str(demo), "--baseline", str(base), "--max-increase", "100000"],
        measure=fake_measure(),
    )
    assert code == 0, err  # paired as sole-config; memory and linear removed, one and two added
    assert "diff vs baseline measured 2026-08-18T01:51:49.555Z" in out
    assert "removed" in out and "added" in out and "the only config on each side" in out


def test_markdown_output(demo: Path) -> None:
    code, out, _ = cli_with(["--config", str(demo), "--markdown"], measure=fake_measure())
    assert code == 0 and out.startswith("## MCP context cost")


# --------------------------------------------------------------------- malformed input


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--bogus"], f"mcp-context-cost {__version__}"),
        (["--budget", "abc"], "--budget"),
        (["--budget=0"], "--budget"),
        (["--context", "-5"], "--context"),
        (["--timeout", "nan"], "--timeout"),
        (["--max-increase", "5"], "needs --baseline"),
        (["--json", "--markdown"], "not allowed with"),
        (["--config", "/definitely/not/here.json"], "no such file"),
        (["--image", "img"], "--image applies only with --docker"),
        (["--docker-image=img"], "--image applies only with --docker"),
        (["--ca-bundle", "auto"], "--ca-bundle applies only with --docker"),
        (["--docker-host", "unix:///x.sock"], "--docker-host applies only with --docker"),
        (["--docker", "--ca-bundle", "/definitely/not/a.pem"], "not a file"),
    ],
)
def test_usage_errors_exit_2_with_one_line(argv: list[str], needle: str) -> None:
    code, out, err = cli(argv)
    assert code == 2 and out == ""
    assert needle in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    if "no such file" in needle:
        assert "standard locations" not in err


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('{"mcpServers": {"a": {"command": "x",}  // unterminated', ""),
        ("[1, 2, 3]", ""),
        ('{"mcpServers": []}', ""),
    ],
)
def test_broken_or_wrong_typed_config_never_tracebacks(
    tmp_path: Path, text: str, needle: str
) -> None:
    cfg = tmp_path / "bad.json"
    cfg.write_text(text, "utf-8")
    calls: list[str] = []
    code, out, err = cli_with(["--config", str(cfg)], measure=fake_measure(calls))
    assert code in (1, 2) and calls == [] and "Traceback" not in err + out
    assert str(cfg) in err


@pytest.mark.parametrize(
    ("block", "problem"),
    [
        ('{"mcpServers": []}', "mcpServers is a list, expected an object"),
        ('{"mcpServers": "x"}', "mcpServers is a string, expected an object"),
        ('{"servers": [1]}', "servers is a list, expected an object"),
    ],
)
def test_wrong_typed_server_block_names_the_problem(
    tmp_path: Path, block: str, problem: str
) -> None:
    cfg = tmp_path / "mcp.json"
    cfg.write_text(block, "utf-8")
    calls: list[str] = []
    code, out, err = cli_with(["--config", str(cfg)], measure=fake_measure(calls))
    assert code == 1 and calls == [] and out == ""
    assert "declares no server" in err and problem in err
    code, out, _ = cli_with(["--config", str(cfg), "--list-configs"])
    assert code == 0 and f"problem: {problem}" in out


def test_unreadable_inputs_exit_2(tmp_path: Path, demo: Path) -> None:
    code, _, err = cli(["--config", str(tmp_path)])  # a directory
    assert code == 2 and str(tmp_path) in err
    code, _, err = cli(["--config", str(demo), "--baseline", str(tmp_path / "missing.json")])
    assert code == 2 and "cannot read baseline" in err and "no such file" in err
    (tmp_path / "broken.json").write_text("{not json", "utf-8")
    code, _, err = cli(["--config", str(demo), "--baseline", str(tmp_path / "broken.json")])
    assert code == 2 and "broken.json" in err
    code, _, err = cli(["--config", str(demo), "--claude", str(tmp_path / "broken.json")])
    assert code == 2 and "broken.json" in err


def test_wrong_shaped_baseline_is_rejected_before_anything_launches(demo: Path) -> None:
    calls: list[str] = []
    bad = ROOT / "tests" / "fixtures" / "baselines" / "wrong-shape.json"
    code, out, err = cli_with(
        ["--config", str(demo), "--baseline", str(bad), "--max-increase", "1"],
        measure=fake_measure(calls),
    )
    assert code == 2 and calls == [] and out == ""
    assert "wrong-shape.json" in err and "baseline" in err


# --------------------------------------------------------------------- subprocess


# --------------------------------------------------------------------- --fail-on-unmeasured


def test_fail_on_unmeasured_passes_when_everything_measured(demo: Path) -> None:
    code, _, err = cli_with(["--config", str(demo), "--fail-on-unmeasured"], measure=fake_measure())
    assert code == 0 and "UNMEASURED" not in err, err


def test_fail_on_unmeasured_is_in_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(["--help"])
    flat = " ".join((out + capsys.readouterr().out).split())
    assert code == 0 and "--fail-on-unmeasured exit 1 when any live server" in flat
    assert "could not be measured" in flat


def test_help_says_the_report_is_per_client_session(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(["--help"])
    flat = " ".join((out + capsys.readouterr().out).split())
    assert code == 0 and "report per client session" in flat
    assert "or per config file with --by-file" in flat
    assert "report per config file" not in flat
    assert "--client NAME[,NAME] only discover these clients (repeatable, or a comma list)" in flat


def test_docker_flags_are_in_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(["--help"])
    flat = " ".join((out + capsys.readouterr().out).split())
    assert code == 0 and "--docker run each stdio server in a container" in flat
    assert "--image IMAGE, --docker-image IMAGE" in flat and "--ca-bundle PATH|auto" in flat


# --------------------------------------------------------------------- envFile and approval


def test_claude_project_approval_end_to_end(tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    s = lambda n: {n: {"command": "srv", "args": [n]}}  # noqa: E731
    write_json(cwd / ".mcp.json", {"mcpServers": {**s("ok"), **s("asks"), **s("off")}})
    user = write_json(home / ".claude" / "settings.json", {"disabledMcpjsonServers": ["off"]})
    write_json(cwd / ".claude" / "settings.local.json", {"enabledMcpjsonServers": ["ok", "off"]})
    calls: list[str] = []
    kw: dict[str, Any] = {
        "measure": fake_measure(calls),
        "home": home,
        "cwd": cwd,
        "environ": {},
        "platform": "linux",
    }
    code, out, err = cli_with(["--json", "--trust-project", "--client", "claude-code"], **kw)
    assert code == 0, err
    report = json.loads(out)
    jsonschema.Draft202012Validator(SCHEMA).validate(report)
    (c,) = report["configs"]
    assert sorted(calls) == ["asks", "ok"], "a disabled server is never launched"
    assert {x["name"] for x in c["servers"]} == {"ok", "asks"}
    assert c["totalTokens"] == sum(x["tokens"] for x in c["servers"]), "asks stays in the total"
    assert c["disabled"] == ["off"]
    assert c["disabledReasons"] == {"off": f"disabled in {user}"}
    notes = {x["name"]: x.get("configNotes") for x in c["servers"]}
    assert notes == {
        "ok": None,
        "asks": ["not approved in any settings file: Claude Code asks before loading it"],
    }
    _, text, _ = cli_with(["--trust-project", "--client", "claude-code"], **kw)
    flat = " ".join(text.split())  # wrapped to the width
    assert f"switched off: off (disabled in {user})" in flat
    assert "asks: not approved in any settings file" in text
    _, md, _ = cli_with(["--markdown", "--trust-project", "--client", "claude-code"], **kw)
    # names are code spans and notes inert Markdown, as in the Action's comment
    assert f"- `off`: {md_text(f'disabled in {user}')}" in md and "- `asks`: not approved" in md
