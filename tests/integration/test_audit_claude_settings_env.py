"""Claude Code's settings ``env`` block through ``mcpcost audit`` with a real pinned server: a
``${VAR}`` in ``~/.claude.json`` defined only in ``~/.claude/settings.json`` resolves, the
server is launched and measured (it used to be reported unresolved and left out of the
session), and the value, a secret, is in no output."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from mcpcost.cli import audit_cmd
from mcpcost.core.spec import ServerSpec
from mcpcost.measuring import MeasureOptions, measure_server
from tests.servers.registry import real_server_argv

SECRET = "tok-2f9c1e7a5b"  # stands for a credential the settings file holds


def _audit(home: Path, cwd: Path, launched: list[str] | None = None) -> tuple[int, str, str]:
    """``audit --json --client claude-code`` of ``home``; each launch's name goes to
    ``launched`` when given."""

    def measure(spec: ServerSpec) -> Any:
        if launched is not None:
            launched.append(spec.name)
        return measure_server(spec, MeasureOptions(timeout_s=60))

    out, err = io.StringIO(), io.StringIO()
    code = audit_cmd.run(
        ["--json", "--client", "claude-code"],
        out,
        err,
        measure=measure,
        environ={"PATH": "/usr/bin:/bin"},
        home=home,
        cwd=cwd,
        platform="linux",
    )
    return code, out.getvalue(), err.getvalue()


def test_a_variable_from_the_settings_env_block_resolves_and_is_measured(tmp_path: Path) -> None:
    argv = real_server_argv("time")
    if argv is None:
        pytest.skip("pinned servers not installed; run scripts/setup-test-env.sh")
    home, cwd = tmp_path / "home", tmp_path / "project"
    cwd.mkdir()
    home.mkdir()
    entry = {
        "command": argv[0],
        "args": ["--local-timezone", "${MCP_TZ}"],
        "env": {"SERVICE_TOKEN": "${SERVICE_TOKEN}"},
    }
    (home / ".claude.json").write_text(json.dumps({"mcpServers": {"time": entry}}))

    code, out, err = _audit(home, cwd)
    (before,) = json.loads(out)["configs"]
    skipped = {s["name"]: s for s in before.get("skipped", [])}
    assert "time" in skipped and skipped["time"]["status"] == "unresolved"

    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"env": {"MCP_TZ": "UTC", "SERVICE_TOKEN": SECRET}}))
    code, out, err = _audit(home, cwd)
    assert code == 0, err
    (result,) = json.loads(out)["configs"]
    (server,) = result["servers"]
    own = measure_server(ServerSpec.stdio("time", argv), MeasureOptions(timeout_s=60))
    assert server["status"] == "measured"
    assert server["canonicalSha256"] == own.canonical_sha256
    assert server["tokens"] == own.total_tokens
    assert not result.get("skipped")
    assert SECRET not in out and SECRET not in err


def test_a_server_the_policy_denies_is_not_launched(tmp_path: Path) -> None:
    argv = real_server_argv("time")
    if argv is None:
        pytest.skip("pinned servers not installed; run scripts/setup-test-env.sh")
    home, cwd = tmp_path / "home", tmp_path / "project"
    cwd.mkdir()
    home.mkdir()
    entry = {"command": argv[0], "args": argv[1:]}
    servers = {"time": entry, "clock": entry}
    (home / ".claude.json").write_text(json.dumps({"mcpServers": servers}))
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"deniedMcpServers": [{"serverName": "clock"}]}))
    launched: list[str] = []
    code, out, err = _audit(home, cwd, launched)
    assert code == 0, err
    assert launched == ["time"]
    (result,) = json.loads(out)["configs"]
    assert [s["name"] for s in result["servers"]] == ["time"]
    assert "clock" in json.dumps(result.get("disabled", result))
    assert f"deniedMcpServers in {settings}" in out
