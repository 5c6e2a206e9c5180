"""`mcpcost verify`, `count` and `badge` where a real process or connection is involved: a
measurement fetched from a loopback URL, `python -m mcpcost count --canonical`, and no traceback
from a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.helpers.cli_core import (
    good_fixture,  # noqa: F401  (the fixture)
    run,
)


class _Serve(BaseHTTPRequestHandler):
    body = b""

    def do_GET(self) -> None:
        if self.path == "/m.json":
            self.send_response(200)
            self.end_headers()
            self.wfile.write(self.body)
        else:
            self.send_response(404)
            self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server(good: Path) -> Iterator[str]:
    _Serve.body = good.read_bytes()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Serve)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_verify_urls(server: str) -> None:
    code, out, _ = run("verify", "--json", f"{server}/m.json", f"{server}/gone.json")
    assert code == 2  # a URL that cannot be fetched is unreadable input
    first, second = (json.loads(x) for x in out.splitlines())
    assert first["ok"] and not second["ok"]
    assert second["problems"] == [f"failed to fetch {server}/gone.json: HTTP 404"]
    assert run("verify", "--remote", f"{server}/m.json")[0] == 0


def test_count_json_and_canonical(tmp_path: Path) -> None:
    doc = tmp_path / "doc.json"
    doc.write_bytes(b'{"b": 1.0, "a": [1e21, "\\u00e9"], "1": null}')
    code, out, _ = run("count", "--json", str(doc))
    assert code == 0
    result = json.loads(out)
    assert result["bytes"] == len('{"1":null,"b":1,"a":[1e+21,"é"]}'.encode())
    proc = subprocess.run(
        [sys.executable, "-m", "mcpcost", "count", "--canonical", str(doc)],
        capture_output=True,
        check=True,
    )
    assert proc.stdout == '{"1":null,"b":1,"a":[1e+21,"é"]}'.encode()


def test_subprocess_never_prints_a_traceback(tmp_path: Path) -> None:
    for argv in (["verify", str(tmp_path)], ["badge", str(tmp_path / "x")], ["count", "/proc"]):
        proc = subprocess.run(
            [sys.executable, "-m", "mcpcost", *argv], capture_output=True, text=True
        )
        assert "Traceback" not in proc.stderr, proc.stderr
        assert proc.returncode in (1, 2)
