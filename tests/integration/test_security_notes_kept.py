"""Masking hides values, never the fix: a server's message naming the variables and flags that
take its key survives masking; its line breaks are kept; ``--json`` carries the note whole; an
HTML error page is summarised ("HTTP 404 ..., HTML page, 1.2 kB"), never quoted."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tests.helpers.paths import ROOT

BRAVE = "Error: no API key given via --brave-api-key, BRAVE_API_KEY, --brave-api-key-file"
SECOND = "see https://example.invalid/docs for where to get a key " + "and more words " * 12
FAILING = f"import sys\nsys.stderr.write({BRAVE!r} + '\\n' + {SECOND!r} + '\\n')\nsys.exit(1)\n"


def _mcpcost(*argv: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    base = {"PATH": os.environ.get("PATH", ""), "HOME": str(cwd), "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "mcpcost", *argv],
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )


def test_names_and_line_breaks_survive_and_json_notes_are_whole(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    entry = {
        "command": sys.executable,
        "args": ["-c", FAILING],
        "env": {"BRAVE_API_KEY": "${BRAVE_KEY}"},
    }
    config.write_text(json.dumps({"mcpServers": {"brave": entry}}), "utf-8")
    done = _mcpcost("audit", "--config", str(config), "--json", cwd=tmp_path, BRAVE_KEY="k-1234567")
    (server,) = [s for c in json.loads(done.stdout)["configs"] for s in c["skipped"]]
    notes = server["notes"]
    assert "via --brave-api-key, BRAVE_API_KEY, --brave-api-key-file" in notes, notes
    assert f"\n{SECOND.strip()}" in notes, notes  # the second line, whole, after a line break
    assert len(notes) > 200
    text = _mcpcost("audit", "--config", str(config), cwd=tmp_path, BRAVE_KEY="k-1234567")
    assert "\\x0a" not in text.stdout
    assert "stderr tail: Error: no API key given via --brave" in text.stdout  # cut to the width
    measured = _mcpcost("measure", "--", sys.executable, "-c", FAILING, cwd=tmp_path)
    assert measured.returncode == 1
    assert "\\x0a" not in measured.stdout
    assert "BRAVE_API_KEY, --brave-api-key-file" in measured.stdout


PAGE = (
    b"<!DOCTYPE html><html><head><title>Not Found</title></head><body>"
    + b"x" * 1100
    + b"</body></html>"
)


class _HTMLNotFound(BaseHTTPRequestHandler):
    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(min(length, 1 << 16))
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    do_GET = do_POST = _answer

    def log_message(self, *args: object) -> None:
        pass


@contextlib.contextmanager
def _serving() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _HTMLNotFound)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/mcp"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_an_html_error_page_is_summarised(tmp_path: Path) -> None:
    with _serving() as url:
        done = _mcpcost("measure", "--url", url, "--transport", "http", "--json", cwd=tmp_path)
    doc = json.loads(done.stdout)
    assert doc["status"] == "gone"
    assert "HTTP 404" in doc["notes"] and "HTML page, 1.2 kB" in doc["notes"], doc["notes"]
    assert "<" not in doc["notes"] and "Not Found" not in doc["notes"]
