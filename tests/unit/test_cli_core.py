"""`mcpcost verify`, `count` and `badge` as a user runs them."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from mcpcost.cli import main
from mcpcost.core.jsonvalue import parse_json, stringify


def run(*argv: str, stdin: bytes | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    if stdin is not None:
        old = sys.stdin
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
        try:
            code = main(list(argv), out, err)
        finally:
            sys.stdin = old
    else:
        code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def good(tmp_path: Path) -> Path:
    from mcpcost.core.measure import measure_tools
    from mcpcost.core.model import Measurement, render_measurement
    from mcpcost.core.status import Status

    tools = [{"name": "echo", "description": "Echo it", "inputSchema": {"type": "object"}}]
    m = measure_tools(tools)
    doc = Measurement(
        status=Status.MEASURED,
        server_name="echo-server",
        launch_command="echo",
        measured_at="2026-11-30T00:00:00.000Z",
        timeout_ms=1000,
        total_tokens=m.total_tokens,
        tool_count=1,
        tools=m.tools,
        canonical_sha256=m.canonical.sha256,
        raw_tools_capture=m.capture,
    )
    path = tmp_path / "measurement.json"
    path.write_text(render_measurement(doc), encoding="utf-8")
    return path


def test_verify_ok(good: Path) -> None:
    code, out, _ = run("verify", str(good))
    assert code == 0
    assert out.startswith("OK echo-server: ")
    assert "capture, hash, and count all agree" in out
    assert '"message":' in out.splitlines()[1]


def test_verify_json_one_object_per_input(good: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    code, out, _ = run("verify", "--json", str(good), str(bad), str(tmp_path / "missing.json"))
    assert code == 2  # unreadable input
    lines = [json.loads(line) for line in out.splitlines()]
    assert [x["ok"] for x in lines] == [True, False, False]
    assert [x["verdict"] for x in lines] == ["agrees", "unreadable", "unreadable"]
    assert lines[0]["badge"].startswith('{"schemaVersion":1')
    assert "badge" not in lines[1]
    assert lines[2]["problems"] == [f"{tmp_path / 'missing.json'}: no such file"]
    keys = "source ok verdict serverName rederivedTokens rederivedSha problems badge"
    assert set(lines[0]) == set(keys.split())


def test_verify_reports_each_problem_on_its_own_line(good: Path) -> None:
    doc = parse_json(good.read_bytes())
    doc["totalTokens"] += 1
    doc["toolCount"] = 7
    good.write_text(stringify(doc), encoding="utf-8")
    code, out, _ = run("verify", str(good))
    assert code == 1
    assert out.splitlines()[0] == "FAIL echo-server:"
    assert any(line.startswith("  - token mismatch: re-derived") for line in out.splitlines())
    assert any(
        line.startswith("  - toolCount mismatch: capture has 1, stored 7")
        for line in out.splitlines()
    )


def test_verify_usage_errors_exit_2(good: Path) -> None:
    assert run("verify")[0] == 2
    code, _, err = run("verify", "--nope", str(good))
    assert code == 2 and "--nope" in err and "0.1.0" in err
    assert run("verify", "--json=yes", str(good))[0] == 2


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


def test_count_reads_stdin_and_rejects_invalid_json() -> None:
    code, out, _ = run("count", stdin=b"[]")
    assert code == 0 and out.startswith("1 tokens")
    code, out, err = run("count", "-", stdin=b"[1,]")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1


def test_badge_command(good: Path) -> None:
    code, out, _ = run("badge", str(good), "--label", "ctx")
    assert code == 0
    assert out.startswith('{"schemaVersion":1,"label":"ctx","message":"')
    assert out.endswith('"cacheSeconds":3600}\n')


def test_unknown_command_and_help() -> None:
    code, _, err = run("frobnicate")
    assert code == 2 and "unknown command" in err
    code, out, _ = run("--help")
    assert code == 0 and "verify" in out


def test_subprocess_never_prints_a_traceback(tmp_path: Path) -> None:
    for argv in (["verify", str(tmp_path)], ["badge", str(tmp_path / "x")], ["count", "/proc"]):
        proc = subprocess.run(
            [sys.executable, "-m", "mcpcost", *argv], capture_output=True, text=True
        )
        assert "Traceback" not in proc.stderr, proc.stderr
        assert proc.returncode in (1, 2)


@pytest.mark.parametrize("columns", [50, 120])
def test_command_help_wraps_to_the_terminal_width(
    columns: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", str(columns))
    code, _, _ = run("audit", "--help")  # argparse prints help to sys.stdout itself
    out = capsys.readouterr().out
    # the usage synopsis cannot break inside a bracketed flag; the option help below it wraps
    lines = out.split("\noptions:\n", 1)[1].splitlines()
    assert code == 0 and "--fail-on-unmeasured" in out
    assert max(len(line) for line in lines) <= columns - 2
    # wide enough to use the room: some line comes close to the edge
    assert max(len(line) for line in lines) > columns - 20


def test_terminal_width_is_columns_then_the_terminal_then_the_default() -> None:
    from mcpcost.cli.streams import terminal_width

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

        def fileno(self) -> int:
            raise OSError("not a real terminal")

    assert terminal_width({"COLUMNS": "97"}, io.StringIO(), 80) == 97
    for bad in ("", "0", "-3", "not-a-number"):
        assert terminal_width({"COLUMNS": bad}, io.StringIO(), 80) == 80  # no terminal
        assert terminal_width({"COLUMNS": bad}, Tty(), 72) == 72  # one that cannot say
        assert terminal_width({"COLUMNS": bad}, None, 100) == 100
