"""``scripts/dashboard_screenshot.py`` as a module (the script is loaded by its path): headless
Chromium at a phone's and a desktop's width, boxes of elements, screenshots, console messages."""

from __future__ import annotations

import importlib.util
from typing import Any

from tests.helpers.paths import ROOT


def load_screenshot_module() -> Any:
    spec = importlib.util.spec_from_file_location(
        "shot", ROOT / "scripts" / "dashboard_screenshot.py"
    )
    assert spec is not None and spec.loader is not None
    shot = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(shot)
    return shot
