"""``mcpcost audit`` with real launches: real servers whose totals equal their own measurements,
servers that all fail, the demo config as a subprocess, ``--fail-on-unmeasured`` naming each
server, and env files reaching a real server but never the output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from mcpcost.core.spec import ServerSpec
from mcpcost.measuring import MeasureOptions, measure_server
from tests.helpers.cli_audit import cli, cli_with, write_json
from tests.helpers.paths import ROOT
from tests.helpers.report_schema import SCHEMA
from tests.servers.registry import fixture_argv


def stdio_entry(argv: list[str], **extra: Any) -> dict[str, Any]:
    return {"command": argv[0], "args": argv[1:], **extra}


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
        name: measure_server(
            ServerSpec.stdio(name, fixture_argv(mode)), MeasureOptions(timeout_s=10)
        ).total_tokens
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
