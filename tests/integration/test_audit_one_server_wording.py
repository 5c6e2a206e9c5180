"""What ``audit`` tells a ``--config`` session of one server (the demo's heavy server, run for
real): the fix does not name a client the file does not have, and the budget's fit plan does not
speak of "every server" when there is one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.helpers.paths import ROOT


def audit(config: Path, *flags: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "mcpcost", "audit", "--config", str(config), *flags],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "COLUMNS": "200"},
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    return done.stdout


def test_one_server_in_a_config_file_gets_a_fix_and_a_fit_plan_that_fit_it(
    tmp_path: Path,
) -> None:
    server = {
        "command": sys.executable,
        "args": [str(ROOT / "examples/demo/demo_server.py"), "--heavy"],
    }
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"notes-heavy": server}}))
    text = " ".join(audit(config, "--budget", "300", "--details").split())
    assert "explicit" not in text
    assert (
        "fix: switch them off the way the client that reads this file does, or drop server "
        "notes-heavy." in text
    )
    assert "Only dropping every server" not in text
    assert (
        "It is the session's only server: only dropping it, or switching enough of its tools "
        "off, gets under the budget." in text
    )
