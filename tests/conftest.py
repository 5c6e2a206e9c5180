"""Shared test configuration."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
# ../shared beside the checkout; MCPCOST_SHARED names another place (a worktree elsewhere)
SHARED = Path(os.environ.get("MCPCOST_SHARED") or ROOT.parent / "shared")
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
    files = sorted(REFERENCE_CAPTURES.glob("*.measurement.json"))  # not the divergence run
    if not files:
        pytest.skip(f"no reference captures in {REFERENCE_CAPTURES}")
    return files


@pytest.fixture(scope="session")
def tiktoken_o200k() -> Any:
    """tiktoken's own o200k_base (its Rust split, then its byte-pair encoding), built through
    tiktoken's public ``Encoding`` from the bundled ranks: what the tokenizer is compared with."""
    import tiktoken

    from mcpcost.core.ranks import open_rank_table
    from mcpcost.core.tokenizer import O200K_PAT_STR, O200K_SPECIAL_TOKENS

    table = open_rank_table()
    return tiktoken.Encoding(
        "o200k_base",
        pat_str=O200K_PAT_STR,
        mergeable_ranks=dict(zip(table.tokens(), range(table.size), strict=True)),
        special_tokens=O200K_SPECIAL_TOKENS,
    )


# Test modules that read /proc (Linux only) or signal POSIX process groups (not on Windows).
# They skip elsewhere; the platform layer's macOS and Windows logic is covered by
# test_platform_recorded.py on every system.
NEEDS_PROC = frozenset({"test_measuring_server.py", "test_interrupts.py", "test_platform_linux.py"})
NEEDS_PROCESS_GROUPS = frozenset({"test_transports_stdio.py", "test_servers_smoke.py"})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    chromium = shutil.which("chromium") is not None
    for item in items:
        name = item.path.name
        if item.get_closest_marker("chromium") and not chromium:
            item.add_marker(pytest.mark.skip(reason="chromium is not installed"))
        if name in NEEDS_PROC and not sys.platform.startswith("linux"):
            item.add_marker(pytest.mark.skip(reason="reads /proc (Linux only)"))
        elif name in NEEDS_PROCESS_GROUPS and sys.platform == "win32":
            item.add_marker(pytest.mark.skip(reason="POSIX process groups (not on Windows)"))
