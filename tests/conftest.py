"""Shared test configuration: each test's kind marker from its folder, platform skips by marker,
the optional parts' report, and the fixtures every folder may use."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.paths import REFERENCE_CAPTURES, TESTS

# The Action's loopback GitHub fake and simulated runner (``fake``, ``sim``): its end-to-end and
# integration tests sit in different folders, so the fixtures are registered here, once.
pytest_plugins = ["tests.action.conftest_plugin"]

# A test's kind is the folder its module sits in; the marker of that name selects it
# (``pytest -m unit``). tests/unit/__init__.py and its siblings say what belongs where.
KINDS = ("unit", "integration", "e2e")

# optional parts: without one, the tests that need it skip with the reason
OPTIONAL_FILES = {
    "npm test servers": TESTS / "servers" / "npm" / "node_modules" / ".package-lock.json",
    "PyPI test servers": TESTS / "servers" / "python" / ".venv" / "bin" / "python",
    "@octokit/openapi": TESTS / "action" / "npm" / "node_modules" / "@octokit" / "openapi",
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


def kind_of(path: Path) -> str | None:
    """The kind folder (``unit``, ``integration``, ``e2e``) a test module sits in, if any."""
    try:
        top = path.resolve().relative_to(TESTS).parts[0]
    except (ValueError, IndexError):
        return None
    return top if top in KINDS else None


def _platform_skip(item: pytest.Item) -> str | None:
    """Why this system cannot run the test, from its ``linux_only`` or ``posix_only`` marker.

    Reading ``/proc`` is Linux only; the platform layer's macOS and Windows logic is covered by
    tests/unit/test_platform_recorded.py on every system."""
    linux = item.get_closest_marker("linux_only")
    if linux is not None and not sys.platform.startswith("linux"):
        return f"{linux.args[0]} (Linux only)"
    posix = item.get_closest_marker("posix_only")
    if posix is not None and sys.platform == "win32":
        return f"{posix.args[0]} (not on Windows)"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    chromium = shutil.which("chromium") is not None
    strays: set[str] = set()
    for item in items:
        kind = kind_of(item.path)
        if kind is None:
            strays.add(item.nodeid.split("::", 1)[0])
        else:
            item.add_marker(kind)
        if item.get_closest_marker("chromium") and not chromium:
            item.add_marker(pytest.mark.skip(reason="chromium is not installed"))
        reason = _platform_skip(item)
        if reason is not None:
            item.add_marker(pytest.mark.skip(reason=reason))
    if strays:
        raise pytest.UsageError(
            "test modules outside tests/unit, tests/integration and tests/e2e (move each to the "
            f"folder of its kind, as each folder's __init__.py describes): {', '.join(sorted(strays))}"
        )
