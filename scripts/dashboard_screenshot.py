#!/usr/bin/env python3
"""Open a published page in headless Chromium at a phone's and a desktop's width, screenshot it,
report where its elements are, and fail on console messages.

usage: scripts/dashboard_screenshot.py [HTML] [OUT_DIR]
  HTML     default docs/dashboard.html
  OUT_DIR  default .: writes <name>-390.png and <name>-1280.png

Uses Debian's ``chromium`` (scripts/setup-chromium.sh installs it) with a fresh profile, no
background networking, and the DevTools protocol over a pipe (``--remote-debugging-pipe``: the
browser reads commands on fd 3 and answers on fd 4; nothing listens on a port), so only the
standard library is needed. Each width is emulated as a device (``mobile`` below 600 px, so the
page's viewport meta applies), the page is loaded from its ``file:`` URL, and a script in the page
reports the box (``getBoundingClientRect``) of every element a caller asks about, so a test
asserts on layout, not pixels. Console calls, log entries and uncaught exceptions are collected.

Exit 0 with no console message, 1 with any (each printed), 2 when chromium is missing.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
)
WIDTHS = (390, 1280)  # a phone (an iPhone's CSS width) and a laptop
HEIGHTS = {390: 844, 1280: 800}
MOBILE_BELOW = 600

# Boxes of the elements named by CSS selectors, with their text and whether the text is cut
# (scrollWidth past clientWidth: ellipsis or overflow), in document order per selector.
MEASURE_JS = """
(selectors) => {
  const box = (el) => {
    const r = el.getBoundingClientRect();
    return {left: r.left + scrollX, right: r.right + scrollX, top: r.top + scrollY,
            bottom: r.bottom + scrollY, width: r.width, height: r.height,
            text: el.textContent.trim(), cut: el.scrollWidth > el.clientWidth + 1,
            visible: getComputedStyle(el).display !== 'none' &&
                     getComputedStyle(el).visibility !== 'hidden'};
  };
  const out = {};
  for (const s of selectors) out[s] = Array.from(document.querySelectorAll(s), box);
  return {viewport: {width: innerWidth, height: innerHeight},
          page: {width: document.documentElement.scrollWidth,
                 height: document.documentElement.scrollHeight},
          elements: out};
}
"""


class Box(NamedTuple):
    left: float
    right: float
    top: float
    bottom: float
    width: float
    height: float
    text: str
    cut: bool
    visible: bool


class Layout(NamedTuple):
    """One page at one width: the viewport, the page's own size, the boxes asked for, the
    screenshot and the console (a module of NamedTuples: tests load this file by path)."""

    width: int
    viewport: dict[str, int]
    page: dict[str, int]
    elements: dict[str, list[Box]]
    png: Path | None
    console: list[str]

    def inside(self, box: Box) -> bool:
        """The box lies within the viewport's width (the page scrolls down, never sideways)."""
        return box.left >= 0 and box.right <= self.viewport["width"] + 0.5


def chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


class DevTools:
    """The DevTools protocol over the pipe of one browser process: commands and their answers,
    with the events seen meanwhile kept for ``wait_event`` and the console."""

    def __init__(self, exe: str, profile: str, timeout_s: float) -> None:
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def onto_3_and_4() -> None:  # in the child, before exec
            os.dup2(to_browser_r, 3)
            os.dup2(from_browser_w, 4)

        self.proc = subprocess.Popen(
            [exe, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(3, 4),
            preexec_fn=onto_3_and_4,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.timeout_s = timeout_s
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []

    def _read_message(self) -> dict[str, Any]:
        import select

        while b"\0" not in self._buffer:
            ready, _, _ = select.select([self._from_browser], [], [], self.timeout_s)
            if not ready:
                raise TimeoutError(f"chromium did not answer in {self.timeout_s:.0f}s")
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                raise EOFError("chromium closed the DevTools pipe")
            self._buffer += chunk
        raw, _, self._buffer = self._buffer.partition(b"\0")
        message: dict[str, Any] = json.loads(raw)
        return message

    def call(self, method: str, params: dict[str, Any] | None = None, session: str = "") -> Any:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._read_message()
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error'].get('message')}")
                return answer.get("result", {})
            self.events.append(answer)

    def wait_event(self, method: str) -> dict[str, Any]:
        for i, event in enumerate(self.events):
            if event.get("method") == method:
                return self.events.pop(i)
        while True:
            event = self._read_message()
            if event.get("method") == method:
                return event
            self.events.append(event)

    def console(self) -> list[str]:
        """Console calls, log entries and uncaught exceptions among the events seen."""
        lines = []
        for event in self.events:
            params = event.get("params", {})
            if event.get("method") == "Runtime.consoleAPICalled":
                args = " ".join(
                    str(a.get("value", a.get("description", ""))) for a in params["args"]
                )
                lines.append(f"console.{params.get('type')}: {args}")
            elif event.get("method") == "Runtime.exceptionThrown":
                details = params["exceptionDetails"]
                thrown = details.get("exception", {}).get("description") or details.get("text")
                lines.append(f"exception: {thrown}")
            elif event.get("method") == "Log.entryAdded":
                entry = params["entry"]
                lines.append(f"log {entry.get('level')}: {entry.get('text')}")
        return lines

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except (OSError, EOFError, TimeoutError, RuntimeError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)


@contextmanager
def browser(timeout_s: float = 60.0) -> Iterator[DevTools]:
    exe = chromium()
    if exe is None:
        raise FileNotFoundError("chromium is not installed (scripts/setup-chromium.sh)")
    with tempfile.TemporaryDirectory(prefix="mcpcost-chromium-") as profile:
        tools = DevTools(exe, profile, timeout_s)
        try:
            yield tools
        finally:
            tools.close()


def layout(
    tools: DevTools,
    html: Path | str,
    width: int,
    selectors: Sequence[str],
    png: Path | None,
    then: str | None = None,
) -> Layout:
    """Load ``html`` (a file, or a URL as a string) in a new tab emulated at ``width`` and
    report the boxes of ``selectors``; with ``then``, an expression evaluated once the page is
    loaded that leads to another page (a form submitted), that page's boxes."""
    target = tools.call("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = tools.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
        "sessionId"
    ]
    tools.events.clear()
    for domain in ("Page", "Runtime", "Log"):
        tools.call(f"{domain}.enable", session=session)
    height = HEIGHTS.get(width, 900)
    metrics = {"width": width, "height": height, "deviceScaleFactor": 1}
    tools.call(
        "Emulation.setDeviceMetricsOverride",
        {**metrics, "mobile": width < MOBILE_BELOW},
        session=session,
    )
    url = html if isinstance(html, str) else html.resolve().as_uri()
    tools.call("Page.navigate", {"url": url}, session=session)
    tools.wait_event("Page.loadEventFired")
    if then is not None:
        tools.call("Runtime.evaluate", {"expression": then}, session=session)
        tools.wait_event("Page.loadEventFired")
    found = tools.call(
        "Runtime.evaluate",
        {
            "expression": f"({MEASURE_JS})({json.dumps(list(selectors))})",
            "returnByValue": True,
        },
        session=session,
    )["result"]["value"]
    if png is not None:
        size = tools.call("Page.getLayoutMetrics", session=session)["cssContentSize"]
        shot = tools.call(
            "Page.captureScreenshot",
            {
                "format": "png",
                "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": width, "height": size["height"], "scale": 1},
            },
            session=session,
        )
        png.write_bytes(base64.b64decode(shot["data"]))
    console = tools.console()
    tools.call("Target.closeTarget", {"targetId": target})
    return Layout(
        width=width,
        viewport=found["viewport"],
        page=found["page"],
        elements={s: [Box(**b) for b in boxes] for s, boxes in found["elements"].items()},
        png=png,
        console=console,
    )


def layouts(
    html: Path | str,
    selectors: Sequence[str],
    out_dir: Path | None = None,
    widths: Sequence[int] = WIDTHS,
    *,
    name: str | None = None,
    then: str | None = None,
) -> list[Layout]:
    """``html`` at each width, one browser for all; screenshots under ``out_dir`` if given, named
    ``<name>-<width>.png`` (``name`` defaults to the file's stem)."""
    stem = name or (html.stem if isinstance(html, Path) else "page")
    with browser() as tools:
        return [
            layout(
                tools,
                html,
                w,
                selectors,
                None if out_dir is None else out_dir / f"{stem}-{w}.png",
                then,
            )
            for w in widths
        ]


def main(argv: list[str]) -> int:
    html = Path(argv[0] if argv else "docs/dashboard.html")
    out_dir = Path(argv[1] if len(argv) > 1 else ".")
    if not html.is_file():
        print(f"dashboard-screenshot: {html}: no such file", file=sys.stderr)
        return 2
    try:
        shots = layouts(html, (".bars .row",), out_dir)
    except FileNotFoundError as exc:
        print(f"dashboard-screenshot: {exc}", file=sys.stderr)
        return 2
    console = [line for shot in shots for line in shot.console]
    for line in console:
        print(f"console: {line}", file=sys.stderr)
    for shot in shots:
        assert shot.png is not None
        wide = "" if shot.page["width"] <= shot.viewport["width"] else " (scrolls sideways)"
        print(
            f"{shot.png}: {shot.width} px wide, page {shot.page['width']}x{shot.page['height']}"
            f"{wide}, {len(shot.elements['.bars .row'])} rows"
        )
    return 1 if console else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
