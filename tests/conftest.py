"""Shared test configuration."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
REFERENCE_CAPTURES = SHARED / "vectors" / "reference-captures"
FIXTURES = ROOT / "spec" / "fixtures"

# optional parts: without one, the tests that need it skip with the reason
OPTIONAL_FILES = {
    "npm test servers": ROOT / "tests" / "servers" / "npm" / "node_modules" / ".package-lock.json",
    "PyPI test servers": ROOT / "tests" / "servers" / "python" / ".venv" / "bin" / "python",
    "@octokit/openapi": ROOT / "tests" / "action" / "npm" / "node_modules" / "@octokit" / "openapi",
}
OPTIONAL_COMMANDS = ("node", "podman", "chromium")


def pytest_report_header() -> str:
    missing = [name for name in OPTIONAL_COMMANDS if shutil.which(name) is None]
    missing += [name for name, path in OPTIONAL_FILES.items() if not path.exists()]
    if not missing:
        return "optional parts: all present"
    return f"optional parts missing (their tests skip, pytest -rs says why): {', '.join(missing)}"


@pytest.fixture
def reference_captures() -> list[Path]:
    """The reference project's published measurements (read from ../shared, never committed)."""
    if not REFERENCE_CAPTURES.is_dir():
        pytest.skip(f"reference captures not available at {REFERENCE_CAPTURES} (../shared absent)")
    files = sorted(REFERENCE_CAPTURES.glob("*.json"))
    if not files:
        pytest.skip(f"no reference captures in {REFERENCE_CAPTURES}")
    return files
