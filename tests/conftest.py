"""Shared test configuration."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
REFERENCE_CAPTURES = SHARED / "vectors" / "reference-captures"
FIXTURES = ROOT / "spec" / "fixtures"


@pytest.fixture
def reference_captures() -> list[Path]:
    """The reference project's published measurements (read from ../shared, never committed)."""
    if not REFERENCE_CAPTURES.is_dir():
        pytest.skip(f"reference captures not available at {REFERENCE_CAPTURES} (../shared absent)")
    files = sorted(REFERENCE_CAPTURES.glob("*.json"))
    if not files:
        pytest.skip(f"no reference captures in {REFERENCE_CAPTURES}")
    return files
