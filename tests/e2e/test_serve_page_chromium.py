"""``mcpcost serve``'s measure page in headless Chromium (scripts/setup-chromium.sh) at a phone's
and a desktop's width: the form is filled and submitted as a person would, the answer page shows
the API's number and every tool inside the viewport, nothing scrolls sideways, and the page's
policy reports nothing (no console message, no blocked resource)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.helpers.screenshots import load_screenshot_module
from tests.helpers.serve_process import running_service
from tests.servers.http_fixtures import serve_http

PARTS = ("h1", "form.measure input", "form.measure button", ".answer h2", ".tile b", "td.tool")


@pytest.mark.slow
@pytest.mark.chromium
def test_the_measure_page_works_and_reads_at_390_and_1280_px(tmp_path: Path) -> None:
    if shutil.which("chromium") is None:
        pytest.skip("chromium is not installed (scripts/setup-chromium.sh)")
    shot = load_screenshot_module()
    with (
        serve_http("streamable-json") as fx,
        running_service("--allow-private-addresses", "--allow-http") as service,
    ):
        api = service.post_json("/api/measure", {"url": fx.url}).json()
        fill = (
            f"document.querySelector('input[name=url]').value = {json.dumps(fx.url)};"
            "document.querySelector('form.measure button').click();"
        )
        empty = shot.layouts(service.url + "/", PARTS, tmp_path, name="serve-root")
        answered = shot.layouts(service.url + "/", PARTS, tmp_path, name="serve-answer", then=fill)
    for page in empty:
        where = f"/ at {page.width} px"
        assert page.console == [], where
        assert page.page["width"] <= page.viewport["width"], where
        (field,) = page.elements["form.measure input"]
        (button,) = page.elements["form.measure button"]
        assert page.inside(field) and page.inside(button) and field.width >= 200, where
        assert button.bottom <= page.viewport["height"], where  # the form is on the first screen
        assert page.elements[".answer h2"] == [], where
    for page in answered:
        where = f"the answer at {page.width} px"
        assert page.console == [], where
        assert page.viewport["width"] == page.width, where
        assert page.page["width"] <= page.viewport["width"], where
        (title,) = page.elements[".answer h2"]
        assert title.text == f"{api['totalTokens']:,} tokens" and page.inside(title), where
        assert page.elements[".tile b"][0].text == f"{api['totalTokens']:,}", where
        tools = page.elements["td.tool"]
        assert [t.text for t in tools] == [t["name"] for t in api["tools"]], where
        assert all(page.inside(t) and not t.cut for t in tools), where
        assert page.png is not None and page.png.stat().st_size > 10_000
