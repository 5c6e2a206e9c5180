"""``mcpcost audit`` end to end: real stdio servers, a temporary home with one config per client,
flags (both spellings), exit codes, malformed inputs, progress on stderr, and one subprocess run."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from mcpcost import __version__
from mcpcost.cli import audit_cmd, main
from mcpcost.core.markdown import md_text
from mcpcost.core.model import Measurement
from mcpcost.core.spec import ServerSpec
from mcpcost.measuring import measure_server
from tests.helpers.audit_builders import measured, tools
from tests.helpers.paths import ROOT
from tests.helpers.report_schema import SCHEMA
from tests.servers.registry import fixture_argv


def cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["audit", *argv], out, err)
    return code, out.getvalue(), err.getvalue()


def cli_with(argv: list[str], **kw: Any) -> tuple[int, str, str]:
    """The command with injected measure/home/cwd/environ (errors mapped as main maps them)."""
    out, err = io.StringIO(), io.StringIO()
    try:
        code = audit_cmd.run(argv, out, err, **kw)
    except Exception as exc:  # UsageError / InputError, as main() maps them
        from mcpcost.errors import InputError, UsageError

        assert isinstance(exc, UsageError | InputError), exc
        err.write(f"{exc}\n")
        code = 2
    return code, out.getvalue(), err.getvalue()


def write_json(path: Path, obj: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj), "utf-8")
    return path


def stdio_entry(argv: list[str], **extra: Any) -> dict[str, Any]:
    return {"command": argv[0], "args": argv[1:], **extra}


def fake_measure(calls: list[str] | None = None) -> Callable[[ServerSpec], Measurement]:
    def measure(spec: ServerSpec) -> Measurement:
        if calls is not None:
            calls.append(spec.name)
        size = (len(spec.argv[-1]) if spec.argv else 3) % 5 + 1
        return measured(spec, tools(spec.name, size))

    return measure


# --------------------------------------------------------------------- real servers


@pytest.mark.slow
def test_real_servers_end_to_end_totals_equal_their_own_measurements(tmp_path: Path) -> None:
    cfg = write_json(
        tmp_path / "mcp.json",
        {
            "mcpServers": {
                "good": stdio_entry(fixture_argv("good")),
                "paged": stdio_entry(fixture_argv("paginated")),
                "crash": stdio_entry(fixture_argv("crash")),
            }
        },
    )
    code, out, err = cli(["--config", str(cfg), "--json", "--timeout", "10"])
    assert code == 0, err
    report = json.loads(out)
    jsonschema.Draft202012Validator(SCHEMA).validate(report)
    (c,) = report["configs"]
    own = {
        name: measure_server(ServerSpec.stdio(name, fixture_argv(mode)), timeout_s=10).total_tokens
        for name, mode in (("good", "good"), ("paged", "paginated"))
    }
    assert {s["name"]: s["tokens"] for s in c["servers"]} == own
    assert c["totalTokens"] == sum(own.values())  # type: ignore[arg-type]
    assert [s["name"] for s in c["skipped"]] == ["crash"]
    assert "[3/3]" in err and "[3/3]" not in out
    # the servers' stops overlap the report, but the command returns only once all have ended
    from mcpcost.runtime.processes.live_trees import LIVE

    assert LIVE.snapshot() == []
    assert [t for t in threading.enumerate() if t.name == "mcpcost-stop"] == []


def test_every_server_failing_exits_1(tmp_path: Path) -> None:
    cfg = write_json(
        tmp_path / "mcp.json", {"mcpServers": {"crash": stdio_entry(fixture_argv("crash"))}}
    )
    code, out, err = cli(["--config", str(cfg), "--timeout", "10"])
    assert code == 1 and "nothing was audited" in err
    assert "startup-failure" in out


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
    code, _, err = cli_with(["--client", "nope"], **kw)
    assert code == 2 and "unknown client" in err


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


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    return write_json(
        tmp_path / ".mcp.json",
        {
            "mcpServers": {
                "one": {"command": "srv", "args": ["one"]},
                "two": {"command": "srv", "args": ["two22"]},
            }
        },
    )


@pytest.mark.parametrize("spelling", [["--budget", "1"], ["--budget=1"]])
def test_budget_both_spellings_fail_the_gate(demo: Path, spelling: list[str]) -> None:
    code, out, _ = cli_with(["--config", str(demo), *spelling], measure=fake_measure())
    assert code == 1 and "Budget 1: FAILED" in out and "over the 1 budget" in out


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


@pytest.mark.slow
def test_subprocess_run_of_the_demo_config() -> None:
    env = {k: v for k, v in os.environ.items() if k != "NOTES_API_KEY"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mcpcost",
            "audit",
            "--config",
            "examples/demo/mcp.json",
            "--json",
            "--timeout",
            "20",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    jsonschema.Draft202012Validator(SCHEMA).validate(report)
    assert report["configs"][0]["serverCount"] == 2
    assert "[2/2]" in proc.stderr and "not-a-real-key" not in proc.stdout + proc.stderr
    bad = subprocess.run(
        [sys.executable, "-m", "mcpcost", "audit", "--budget=x"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


# --------------------------------------------------------------------- --fail-on-unmeasured


def test_fail_on_unmeasured_exits_1_naming_each_server(tmp_path: Path) -> None:
    cfg = write_json(
        tmp_path / "mcp.json",
        {
            "mcpServers": {
                "fine": stdio_entry(fixture_argv("good")),
                "crash": stdio_entry(fixture_argv("crash")),
            }
        },
    )
    code, out, err = cli(["--config", str(cfg), "--timeout", "10"])
    assert code == 0 and "UNMEASURED" not in err  # without the flag: reported, not failed
    code, out, err = cli(
        ["--config", str(cfg), "--timeout", "10", "--fail-on-unmeasured", "--json"]
    )
    assert code == 1, err
    lines = [ln for ln in err.splitlines() if ln.startswith("UNMEASURED FAIL: ")]
    assert len(lines) == 1 and "crash could not be measured (startup-failure)" in lines[0]
    report = json.loads(out)
    jsonschema.validate(report, SCHEMA)
    assert report["gates"]["passed"] is False
    assert report["gates"]["reasons"] == [lines[0].removeprefix("UNMEASURED FAIL: ")]


def test_fail_on_unmeasured_passes_when_everything_measured(demo: Path) -> None:
    code, _, err = cli_with(["--config", str(demo), "--fail-on-unmeasured"], measure=fake_measure())
    assert code == 0 and "UNMEASURED" not in err, err


def test_fail_on_unmeasured_does_not_repeat_a_budget_reason(tmp_path: Path) -> None:
    cfg = write_json(
        tmp_path / "mcp.json",
        {
            "mcpServers": {
                "fine": stdio_entry(fixture_argv("good")),
                "crash": stdio_entry(fixture_argv("crash")),
            }
        },
    )
    code, out, err = cli(
        ["--config", str(cfg), "--timeout", "10", "--fail-on-unmeasured", "--budget", "1000000"]
    )
    assert code == 1
    # the budget gate already names the unmeasured server; no second line for it
    assert "cannot be established" in " ".join(out.split()) and "UNMEASURED FAIL" not in err


def test_fail_on_unmeasured_is_in_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(["--help"])
    flat = " ".join((out + capsys.readouterr().out).split())
    assert code == 0 and "--fail-on-unmeasured exit 1 when any live server" in flat
    assert "could not be measured" in flat


def test_docker_flags_are_in_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(["--help"])
    flat = " ".join((out + capsys.readouterr().out).split())
    assert code == 0 and "--docker run each stdio server in a container" in flat
    assert "--image IMAGE, --docker-image IMAGE" in flat and "--ca-bundle PATH|auto" in flat


# --------------------------------------------------------------------- envFile and approval

ENVFILE_SECRET = "envfile-cli-secret-9f8e7d6c5b4a"


def _needs_env_argv() -> list[str]:
    """A real fixture server that only starts when NEEDED_TOKEN reached its environment."""
    inner = " ".join(f"'{a}'" for a in fixture_argv("good"))
    return ["sh", "-c", f'test -n "$NEEDED_TOKEN" || exit 3; exec {inner}']


def _envfile_project(tmp_path: Path, env_file: str) -> tuple[Path, Path]:
    home, cwd = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    write_json(
        cwd / ".cursor" / "mcp.json",
        {
            "mcpServers": {
                "needs-env": stdio_entry(_needs_env_argv(), envFile=env_file),
            }
        },
    )
    (cwd / ".cursor" / "secrets.env").write_text(
        f"# tokens\nexport NEEDED_TOKEN='{ENVFILE_SECRET}'\nOTHER=\"{ENVFILE_SECRET}-2\"\n", "utf-8"
    )
    return home, cwd


@pytest.mark.posix_only("the fixture wrapper needs a POSIX sh")
def test_env_file_variables_reach_a_real_server_and_never_the_output(tmp_path: Path) -> None:
    home, cwd = _envfile_project(tmp_path, "${workspaceFolder}/.cursor/secrets.env")
    kw: dict[str, Any] = {
        "home": home,
        "cwd": cwd,
        "environ": dict(os.environ),
        "platform": "linux",
    }
    code, out, err = cli_with(
        ["--json", "--trust-project", "--client", "cursor", "--timeout", "10"], **kw
    )
    assert code == 0, err
    report = json.loads(out)
    jsonschema.Draft202012Validator(SCHEMA).validate(report)
    (server,) = report["configs"][0]["servers"]
    assert server["status"] == "measured" and server["tokens"] > 0
    assert {"NEEDED_TOKEN", "OTHER"} <= set(server["envVarNames"])
    outputs = [out, err]
    for fmt in ([], ["--markdown"], ["--list-configs"], ["--list-configs", "--json"]):
        c, o, e = cli_with([*fmt, "--trust-project", "--client", "cursor", "--timeout", "10"], **kw)
        assert c == 0, e
        outputs += [o, e]
    for text in outputs:
        assert ENVFILE_SECRET not in text


@pytest.mark.posix_only("the fixture wrapper needs a POSIX sh")
def test_missing_env_file_is_a_problem_and_the_server_still_launches(tmp_path: Path) -> None:
    home, cwd = _envfile_project(tmp_path, "missing.env")
    kw: dict[str, Any] = {
        "home": home,
        "cwd": cwd,
        "environ": dict(os.environ),
        "platform": "linux",
    }
    code, out, err = cli_with(
        ["--json", "--trust-project", "--client", "cursor", "--timeout", "10"], **kw
    )
    report = json.loads(out)
    jsonschema.Draft202012Validator(SCHEMA).validate(report)
    (skipped,) = report["configs"][0]["skipped"]
    assert skipped["status"] == "startup-failure", "launched, and failed without NEEDED_TOKEN"
    missing = cwd / ".cursor" / "missing.env"
    note = f"envFile {missing} does not exist: launched without its variables"
    assert skipped["configNotes"] == [note]
    assert f"{cwd / '.cursor' / 'mcp.json'}: server 'needs-env': {note}" in out
    assert code == 1 and "nothing was audited" in err
    _, text, _ = cli_with(["--trust-project", "--client", "cursor", "--timeout", "10"], **kw)
    assert f"needs-env: {note}" in " ".join(text.split())  # wrapped to the width


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
