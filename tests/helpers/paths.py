"""The repository's directories as the tests see them, found once from this file's place."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "mcpcost"
TESTS = ROOT / "tests"
TEST_FIXTURES = TESTS / "fixtures"
ACTION_TESTS = TESTS / "action"
SPEC_FIXTURES = ROOT / "spec" / "fixtures"
# ../shared beside the checkout (the reference project's published captures, never committed);
# MCPCOST_SHARED names another place (a worktree elsewhere)
SHARED = Path(os.environ.get("MCPCOST_SHARED") or ROOT.parent / "shared")
REFERENCE_CAPTURES = SHARED / "vectors" / "reference-captures"
