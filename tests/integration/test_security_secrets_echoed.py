"""Secrets never surface from a real process: a value a config reaches through a variable
reference, echoed by a real server on its stderr, appears in no output of ``mcpcost audit`` (text,
JSON, Markdown), whatever field it went through and wherever the stderr buffer was cut."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mcpcost.core.redact import MASK
from mcpcost.measuring.server import STDERR_IN_NOTES
from tests.helpers.paths import ROOT

SECRET = "s3cr3t-Value-0f-the-User-7f3a9c"
# echoes every argument and its env var on stderr, then exits: a startup failure whose notes
# quote the stderr tail
ECHO = (
    "import os, sys\n"
    "pad = int(os.environ.get('PAD', '0'))\n"
    "sys.stderr.write(' '.join(sys.argv[1:]) + ' env=' + os.environ.get('E', '') + 'x' * pad "
    "+ '\\n')\n"
    "sys.exit(3)\n"
)


def _run(config: Path, home: Path, *flags: str, secret: str = SECRET) -> tuple[str, str]:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "PYTHONPATH": str(ROOT),
        "MY_SECRET": secret,
    }
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mcpcost",
            "audit",
            "--config",
            str(config),
            "--timeout",
            "10",
            *flags,
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=home,
    )
    return done.stdout, done.stderr


def _config(tmp_path: Path, entry: dict[str, object]) -> Path:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"leaky": entry}}), "utf-8")
    return path


@pytest.mark.parametrize(
    ("args", "env"),
    [
        (["--key", "${MY_SECRET}"], {}),
        (["--key=${env:MY_SECRET}"], {}),
        (["--key", "plain"], {"E": "${MY_SECRET}"}),
    ],
    ids=["args-braces", "args-env-prefix", "env"],
)
def test_a_referenced_value_echoed_on_stderr_reaches_no_output(
    tmp_path: Path, args: list[str], env: dict[str, str]
) -> None:
    entry = {"command": sys.executable, "args": ["-c", ECHO, *args], "env": env}
    config = _config(tmp_path, entry)
    for flags in (("--json",), ("--markdown",), ()):
        out, err = _run(config, tmp_path, *flags)
        assert SECRET not in out + err, flags
        assert "--key" in out, (flags, out, err)  # the stderr tail is there, masked
    out, _ = _run(config, tmp_path, "--json")
    (server,) = [s for c in json.loads(out)["configs"] for s in (*c["servers"], *c["skipped"])]
    assert server["status"] == "startup-failure"
    assert MASK in server["notes"], server["notes"]


@pytest.mark.parametrize("cut", [1, 5, 20])
def test_a_cut_through_the_secret_lets_no_part_through(tmp_path: Path, cut: int) -> None:
    """Notes keep the last 600 characters of stderr: padding after the secret puts that cut
    ``cut`` characters into it, so only the secret's end falls inside the kept part."""
    pad = STDERR_IN_NOTES + cut - len(SECRET) - len(" env=")
    entry = {
        "command": sys.executable,
        "args": ["-c", ECHO, "${MY_SECRET}"],
        "env": {"PAD": str(pad)},
    }
    out, err = _run(_config(tmp_path, entry), tmp_path, "--json")
    (server,) = [s for c in json.loads(out)["configs"] for s in (*c["servers"], *c["skipped"])]
    assert "x" * 100 in server["notes"], "the stderr tail is in the notes"
    assert SECRET[cut:] not in out + err
    assert SECRET[-4:] + " env=" not in out + err, server["notes"]
