"""The pre-commit hook this repository offers runs a real command with flags it has."""

from __future__ import annotations

import shlex

import yaml

from mcpcost.cli import COMMANDS
from mcpcost.cli.snapshot_cmd import build_parser
from tests.helpers.paths import ROOT


def test_the_snapshot_hook_runs_mcpcost_snapshot_check() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    [hook] = [h for h in hooks if h["id"] == "mcpcost-snapshot"]
    program, command, *flags = shlex.split(hook["entry"])
    assert (program, command) == ("mcpcost", "snapshot") and command in COMMANDS
    assert build_parser().parse_args(flags).check
    # the server, not the staged files, is what it checks; and it runs on every commit
    assert hook["pass_filenames"] is False and hook["always_run"] is True
    assert hook["language"] == "python"
