"""The published dashboard and server pages in headless Chromium (scripts/setup-chromium.sh), at a
phone's and a desktop's width, for a small sweep and for the 21 reference captures: no console
messages, every measured server's row drawn whole inside the viewport, no sideways scroll."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from mcpcost.core.jsonvalue import parse_json
from mcpcost.core.model import Measurement
from mcpcost.sweep.publish import publish
from tests.helpers.screenshots import load_screenshot_module
from tests.helpers.sweep_sites import (
    CATALOG,
    reference_site,
    site_fixture,  # noqa: F401  (the fixture)
)

ROW_PARTS = (".bars .row .name", ".bars .row .val", ".bars .row .lab", ".bars .row .fill")
TOP_DATE = ".meta b"


def measured_on_disk(root: Path) -> list[tuple[str, str]]:
    """(name, tokens as shown) of every measurement with a number under ``root``, heaviest first."""
    found = []
    for path in sorted((root / "results").glob("*/measurement.json")):
        m = Measurement.from_dict(parse_json(path.read_bytes()))
        if m.has_number and m.total_tokens is not None:
            found.append((path.parent.name, m.total_tokens))
    found.sort(key=lambda pair: -pair[1])
    return [(name, f"{tokens:,}") for name, tokens in found]


def assert_fits(shot: Any, expected: list[tuple[str, str]], date: str) -> None:
    """Every measured server's name, tokens, band and bar are drawn inside the viewport's width,
    whole; the page never scrolls sideways; the measured date is on the first screen."""
    where = f"at {shot.width} px"
    assert shot.console == [], where
    # a phone widens its layout viewport to what does not fit, so this fails first there
    assert shot.viewport["width"] == shot.width, f"{where}: laid out {shot.viewport['width']} wide"
    assert shot.page["width"] <= shot.viewport["width"], f"{where}: the page scrolls sideways"
    names, values, bands, fills = (shot.elements[s] for s in ROW_PARTS)
    assert sorted(zip((n.text for n in names), (v.text for v in values), strict=True)) == sorted(
        expected
    ), where
    shown = [int(v.text.replace(",", "")) for v in values]
    assert shown == sorted(shown, reverse=True), where
    for part in (*names, *values, *bands, *fills):
        assert part.visible and part.width > 0 and part.height > 0, (where, part)
        assert shot.inside(part), (where, part)
    assert not any(part.cut for part in (*names, *values, *bands)), where
    assert all(f.width >= 3 for f in fills), where  # the shortest bar is still a bar
    for name, value in zip(names, values, strict=True):  # a row reads as one line
        assert name.top < value.bottom and value.top < name.bottom, (where, name, value)
    (top,) = shot.elements[TOP_DATE][:1]
    assert top.text == f"Measured {date}" and top.bottom <= shot.viewport["height"], where
    assert shot.png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.png.stat().st_size > 10_000


@pytest.mark.slow
@pytest.mark.chromium
def test_dashboard_fits_a_phone_and_a_desktop(site: Path, tmp_path: Path) -> None:
    if shutil.which("chromium") is None:
        pytest.skip("chromium is not installed (scripts/setup-chromium.sh)")
    publish(site, CATALOG)
    shots = load_screenshot_module().layouts(
        site / "docs" / "dashboard.html", (*ROW_PARTS, TOP_DATE), tmp_path
    )
    assert [s.width for s in shots] == [390, 1280]
    for shot in shots:
        assert_fits(shot, measured_on_disk(site), "2026-09-01")


@pytest.mark.slow
@pytest.mark.chromium
def test_reference_dashboard_and_pages_fit_a_phone_and_a_desktop(tmp_path: Path) -> None:
    if shutil.which("chromium") is None:
        pytest.skip("chromium is not installed (scripts/setup-chromium.sh)")
    root = reference_site(tmp_path)
    publish(root, None)
    shot = load_screenshot_module()
    dashboards = shot.layouts(root / "docs" / "dashboard.html", (*ROW_PARTS, TOP_DATE), tmp_path)
    for board in dashboards:
        assert len(board.elements[".bars .row .name"]) == 20
        assert_fits(board, measured_on_disk(root), "2026-08-18 to 2026-08-19")
    # the heaviest server's page, the one with the longest tool table
    parts = ("h1", ".tile b", "td.tool", "table:not(.facts) td.num", TOP_DATE)
    for page in shot.layouts(root / "docs" / "servers" / "github.html", parts, tmp_path):
        where = f"github.html at {page.width} px"
        assert page.console == [] and page.page["width"] <= page.viewport["width"], where
        assert [h.text for h in page.elements["h1"]] == ["github"], where
        assert page.elements[".tile b"][0].text == "54,422", where
        tools = page.elements["td.tool"]
        assert len(tools) == 30 and all(page.inside(t) for t in tools), where
        numbers = [n for n in page.elements["table:not(.facts) td.num"] if n.visible]
        assert numbers and all(page.inside(n) and not n.cut for n in numbers), where
        assert page.elements[TOP_DATE][0].text == "Measured 2026-08-18", where
