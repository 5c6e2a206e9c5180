"""The README's "First steps" run verbatim, in order, in a copy of a fresh checkout.

Each line of the section's ``sh`` block runs in bash in a temporary directory holding what a
checkout holds there (``examples/``, ``servers.yaml``), with ``mcpcost`` on PATH as the console
script would be. A line must exit 0, or the code its ``# exits N`` comment names; a command that
reads a file an earlier one did not write exits 2, so the chain holds together or fails here.
The copy is a git repository with the checkout's ``.gitignore``: what the steps write must leave
``git status`` clean, so a reader who follows them in a clone is left no untracked files.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.paths import ROOT


def first_steps() -> list[str]:
    readme = (ROOT / "README.md").read_text("utf-8")
    section = readme.split("\n## First steps\n", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"^```sh\n(.*?)^```$", section, re.S | re.M)
    return [line for line in block.splitlines() if line.strip()]


def expected_exit(line: str) -> int:
    found = re.search(r"#\s*exits (\d+)", line)
    return int(found.group(1)) if found else 0


def checkout(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    work = tmp_path / "checkout"
    work.mkdir()
    shutil.copytree(ROOT / "examples", work / "examples")
    shutil.copy(ROOT / "servers.yaml", work / "servers.yaml")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "mcpcost"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m mcpcost "$@"\n', "utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "PYTHONPATH": str(ROOT)}
    return work, env


def test_the_section_is_a_chain_of_mcpcost_commands() -> None:
    lines = first_steps()
    assert len(lines) >= 6
    assert all(line.startswith("mcpcost ") for line in lines)
    assert {line.split()[1] for line in lines} >= {"audit", "measure", "verify", "badge", "publish"}


@pytest.mark.slow
def test_first_steps_run_verbatim_in_order(tmp_path: Path) -> None:
    work, env = checkout(tmp_path)
    shutil.copy(ROOT / ".gitignore", work / ".gitignore")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "checkout"]):
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@e", *args],
            cwd=work,
            check=True,
            capture_output=True,
        )
    for line in first_steps():
        proc = subprocess.run(
            ["bash", "-c", line], cwd=work, env=env, capture_output=True, text=True, timeout=180
        )
        assert proc.returncode == expected_exit(line), (line, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stderr
    before = json.loads((work / "before.json").read_text("utf-8"))
    assert before["configs"][0]["totalTokens"] > 500  # so the budget line is over budget
    sarif = json.loads((work / "audit.sarif").read_text("utf-8"))
    (result,) = sarif["runs"][0]["results"]
    assert result["ruleId"] == "budget"
    assert (work / "mine" / "results" / "notes" / "measurement.json").is_file()
    assert (work / "mine" / "badges" / "notes.json").is_file()
    assert (work / "mine" / "results" / "leaderboard.md").is_file()
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=work,
        capture_output=True,
        text=True,
        check=True,
    )
    assert status.stdout == ""
