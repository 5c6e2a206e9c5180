"""A defect in the Action (an exception nobody expected) reaches the step's log only through the
log boundary: one error annotation of ours, the traceback a line at a time with workflow commands
neutralised, and the ``status`` output set to ``error``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.action.runner_sim import parse_outputs
from tests.helpers.paths import ROOT

HOSTILE = "::add-mask::x\\n::error file=a::forged\\n##[group]hidden\\n\\x1b]8;;evil\\x07"

SCRIPT = f"""
import mcpcost.action.main as action
def explode(*args, **kwargs):
    raise KeyError("server said: {HOSTILE}")
action.run = explode
raise SystemExit(action.main())
"""


def test_a_crash_is_reported_through_the_log_boundary(tmp_path: Path) -> None:
    event, out = tmp_path / "event.json", tmp_path / "output.txt"
    event.write_text(json.dumps({"pull_request": {"number": 1}}))
    out.write_text("")
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "PYTHONPATH": str(ROOT),
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_REPOSITORY": "octo/repo",
        "GITHUB_WORKSPACE": str(tmp_path),
        "GITHUB_OUTPUT": str(out),
        "INPUT_GITHUB-TOKEN": "ghs_faketoken",
    }
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr == ""  # no raw traceback
    lines = proc.stdout.splitlines()
    commands = [line for line in lines if line.startswith("::") or "##[" in line]
    assert len(commands) == 1 and commands[0].startswith(
        "::error::mcp-context-cost failed unexpectedly (KeyError: "
    )
    assert "\x1b" not in proc.stdout and "\x07" not in proc.stdout
    assert any("Traceback" in line for line in lines)
    assert any("forged" in line for line in lines)  # shown, but not as a command
    outputs = parse_outputs(out.read_text())
    assert outputs["status"] == "error"
    assert outputs["failure-reasons"].startswith("mcp-context-cost failed unexpectedly")
