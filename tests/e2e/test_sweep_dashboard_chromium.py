"""The published dashboard in headless Chromium (scripts/setup-chromium.sh): no console errors for
a small sweep or for the 21 reference captures, and the screenshot the pages carry."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path
from typing import Any

import pytest

from mcpcost.sweep.publish import publish
from tests.helpers.paths import ROOT
from tests.helpers.sweep_sites import (
    CATALOG,
    reference_site,
    site_fixture,  # noqa: F401  (the fixture)
)


@pytest.mark.slow
@pytest.mark.chromium
def test_dashboard_in_headless_chromium_has_no_console_errors(site: Path, tmp_path: Path) -> None:
    if shutil.which("chromium") is None:
        pytest.skip("chromium is not installed (scripts/setup-chromium.sh)")
    publish(site, CATALOG)
    spec = importlib.util.spec_from_file_location(
        "shot", ROOT / "scripts" / "dashboard_screenshot.py"
    )
    assert spec is not None and spec.loader is not None
    shot = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(shot)
    png = tmp_path / "dashboard.png"
    code, console = shot.screenshot(site / "docs" / "dashboard.html", png)
    assert code == 0 and console == []
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000


def load_screenshot_module() -> Any:
    spec = importlib.util.spec_from_file_location(
        "shot", ROOT / "scripts" / "dashboard_screenshot.py"
    )
    assert spec is not None and spec.loader is not None
    shot = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(shot)
    return shot


@pytest.mark.slow
@pytest.mark.chromium
def test_reference_dashboard_screenshot_has_no_console_messages(tmp_path: Path) -> None:
    if shutil.which("chromium") is None:
        pytest.skip("chromium is not installed (scripts/setup-chromium.sh)")
    root = reference_site(tmp_path)
    publish(root, None)
    png = tmp_path / "reference-dashboard.png"
    code, console = load_screenshot_module().screenshot(root / "docs" / "dashboard.html", png)
    assert code == 0 and console == []
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 50_000
