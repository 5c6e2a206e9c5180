#!/usr/bin/env python3
"""Open docs/dashboard.html in headless Chromium, screenshot it, and fail on console messages.

usage: scripts/dashboard_screenshot.py [DASHBOARD_HTML] [OUT_PNG]

Uses Debian's ``chromium`` (scripts/setup-chromium.sh installs it) with a fresh profile and no
background networking. Console output is read from Chromium's log (``--enable-logging=stderr``):
any ``CONSOLE`` line is reported and makes the exit code 1. Exit 2 when chromium is missing.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--enable-logging=stderr",
    "--v=0",
    "--hide-scrollbars",
    "--window-size=1100,1600",
)
CONSOLE = re.compile(r"CONSOLE\(\d+\)|Uncaught|console\.(error|warn)", re.IGNORECASE)


def chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def screenshot(html: Path, png: Path, timeout_s: float = 60.0) -> tuple[int, list[str]]:
    """Return (chromium exit code, console lines)."""
    exe = chromium()
    if exe is None:
        raise FileNotFoundError("chromium is not installed (scripts/setup-chromium.sh)")
    with tempfile.TemporaryDirectory(prefix="mcpcost-chromium-") as profile:
        proc = subprocess.run(
            [
                exe,
                *FLAGS,
                f"--user-data-dir={profile}",
                f"--screenshot={png}",
                html.resolve().as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
    console = [line for line in proc.stderr.splitlines() if CONSOLE.search(line)]
    return proc.returncode, console


def main(argv: list[str]) -> int:
    html = Path(argv[0] if argv else "docs/dashboard.html")
    png = Path(argv[1] if len(argv) > 1 else "dashboard.png")
    if not html.is_file():
        print(f"dashboard-screenshot: {html}: no such file", file=sys.stderr)
        return 2
    try:
        code, console = screenshot(html, png)
    except FileNotFoundError as exc:
        print(f"dashboard-screenshot: {exc}", file=sys.stderr)
        return 2
    if code != 0 or not png.is_file():
        print(f"dashboard-screenshot: chromium exited {code} without a screenshot", file=sys.stderr)
        return 1
    for line in console:
        print(f"console: {line}", file=sys.stderr)
    print(f"{png}: {png.stat().st_size} bytes, {len(console)} console message(s)")
    return 1 if console else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
