"""The newest client (LM Studio) audited end to end with a real pinned server: its config found in
the home, the server launched, and the report's figures those of the server's own measurement."""

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


def test_lmstudio_audited_end_to_end_with_a_real_server(tmp_path: Path) -> None:
    argv = real_server_argv("time")
    if argv is None:
        pytest.skip("pinned servers not installed; run scripts/setup-test-env.sh")
    home, cwd = tmp_path / "home", tmp_path / "project"
    cwd.mkdir()
    config = home / ".lmstudio" / "mcp.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"mcpServers": {"time": {"command": argv[0], "args": argv[1:]}}}))

    def measure(spec: ServerSpec) -> Any:
        return measure_server(spec, MeasureOptions(timeout_s=60))

    out, err = io.StringIO(), io.StringIO()
    code = audit_cmd.run(
        ["--json", "--client", "lmstudio"],
        out,
        err,
        measure=measure,
        environ={"PATH": "/usr/bin:/bin"},
        home=home,
        cwd=cwd,
        platform="linux",
    )
    assert code == 0, err.getvalue()
    (result,) = json.loads(out.getvalue())["configs"]
    assert (result["client"], result["source"]) == ("lmstudio", str(config))
    (server,) = result["servers"]
    own = measure_server(ServerSpec.stdio("time", argv), MeasureOptions(timeout_s=60))
    assert server["status"] == "measured"
    assert server["canonicalSha256"] == own.canonical_sha256
    assert result["totalTokens"] == server["tokens"] == own.total_tokens
    assert result["deferral"]["mode"] == "no-deferral-on-record"
