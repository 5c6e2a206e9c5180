"""``mcpcost measure`` of a server that fails: for want of a variable, one hint line naming
``--env-from``, and ``--out`` records the failure without a badge; its colour codes are not kept
in the notes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.helpers.paths import ROOT

NEEDS_KEY = (
    "import os, sys\n"
    "if not os.environ.get('BRAVE_API_KEY'):\n"
    "    sys.stderr.write('Error: BRAVE_API_KEY environment variable is required\\n')\n"
    "    sys.exit(1)\n"
    "sys.stderr.write('has the key; no MCP here\\n')\n"
    "sys.exit(3)\n"
)


def measure(*flags: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "mcpcost", "measure", "--timeout", "20", *flags]
    return subprocess.run(
        [*argv, "--", sys.executable, "-c", NEEDS_KEY],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=env,
        check=False,
    )


def test_a_server_naming_a_missing_variable_gets_an_env_from_hint_and_no_badge(
    tmp_path: Path,
) -> None:
    env = {**os.environ, "BRAVE_API_KEY": "shell-value-never-shown"}
    out = tmp_path / "tree"
    done = measure("--name", "brave", "--out", str(out), env=env)
    assert done.returncode == 1, done.stderr
    hints = [line for line in done.stderr.splitlines() if line.startswith("hint:")]
    assert hints == [
        "hint: the server names BRAVE_API_KEY; measure does not pass your shell's environment "
        "to a server: add --env-from BRAVE_API_KEY"
    ]
    assert "shell-value-never-shown" not in done.stderr + done.stdout
    assert (out / "results" / "brave" / "measurement.json").is_file()
    assert not (out / "badges").exists()
    assert "(no badge: no number)" in done.stderr
    # given the variable, the server gets past it, and no hint names it
    given = measure("--name", "brave", "--env-from", "BRAVE_API_KEY", env=env)
    assert given.returncode == 1 and "has the key" in given.stdout + given.stderr
    assert "hint:" not in given.stderr


def test_a_servers_colour_codes_are_not_kept_in_the_notes() -> None:
    coloured = (
        "import sys\n"
        "sys.stderr.write('\\x1b[31mError:\\x1b[0m no \\x1b[1mconfig\\x1b[0m '"
        " '\\x1b]0;title\\x07here\\n')\n"
        "sys.exit(1)\n"
    )
    argv = [sys.executable, "-m", "mcpcost", "measure", "--json", "--", sys.executable, "-c"]
    done = subprocess.run(
        [*argv, coloured], capture_output=True, text=True, timeout=120, cwd=ROOT, check=False
    )
    assert done.returncode == 1, done.stderr
    notes = json.loads(done.stdout)["notes"]
    assert notes.endswith("stderr tail: Error: no config here"), notes
    assert "\x1b" not in done.stdout and "\\u001b" not in done.stdout
