"""A server that repeats the secrets it was given: no form of them reaches any output.

``tests/servers/fixtures/echo_secret_server.py`` puts the value of each variable it is told about
(raw, percent-encoded and JSON-escaped) into a tool name, a description, a schema, its
instructions, its name and version, a JSON-RPC error or its stderr. The secret reaches it through
``measure --env-from``, ``--env-file`` and an audited config's ``${VAR}``; every output is
searched for every encoding of it: ``measure --json``, its text line, measurement.json, and the
audit's text, JSON, Markdown and SARIF.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest

from mcpcost.core.redact import MASK
from mcpcost.measuring.masking import CAPTURE_WITHHELD
from tests.helpers.paths import ROOT

SERVER = str(ROOT / "tests" / "servers" / "fixtures" / "echo_secret_server.py")
# a slash, a quote, a backslash, a percent sign and a non-ASCII letter: each encoding differs
SECRET = 'k3y/"Wx\\9%q-é-7f3a9c'


def encodings(value: str) -> set[str]:
    """Every way the value could be written into an output."""
    found = {value, quote(value, safe=""), quote(value), quote_plus(value, safe="")}
    found |= {json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1]}
    found |= {f.lower() for f in found if "%" in f}
    return found


def leaked(text: str) -> list[str]:
    return sorted(form for form in encodings(SECRET) if form in text)


def _mcpcost(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(cwd),
        "PYTHONPATH": str(ROOT),
        "ECHO_KEY": SECRET,
    }
    return subprocess.run(
        [sys.executable, "-m", "mcpcost", *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )


@pytest.mark.parametrize("where", ["all", "instructions"])
def test_measure_env_from_shows_no_form_of_the_secret(tmp_path: Path, where: str) -> None:
    server = [sys.executable, SERVER, "--where", where, "ECHO_KEY"]
    done = _mcpcost("measure", "--env-from", "ECHO_KEY", "--json", "--", *server, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert leaked(done.stdout + done.stderr) == []
    doc = json.loads(done.stdout)
    assert doc["rawToolsCapture"] is None
    assert CAPTURE_WITHHELD in doc["notes"]
    assert MASK in doc["serverInstructions"]
    # the count is of the real bytes (the tools the server sent, not their masked text)
    assert doc["totalTokens"] > (100 if where == "all" else 10)
    text = _mcpcost("measure", "--env-from", "ECHO_KEY", "--", *server, cwd=tmp_path)
    assert leaked(text.stdout + text.stderr) == []


def test_measure_env_file_out_writes_no_form_of_the_secret(tmp_path: Path) -> None:
    env_file = tmp_path / "server.env"
    env_file.write_text(f"KEY='{SECRET}'\n", "utf-8")
    server = [sys.executable, SERVER, "KEY"]
    out = tmp_path / "out"
    done = _mcpcost(
        "measure", "--env-file", str(env_file), "--out", str(out), "--", *server, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    written = "".join(p.read_text("utf-8") for p in out.rglob("*.json"))
    assert "measurement" in "".join(str(p) for p in out.rglob("*.json"))
    assert leaked(written + done.stdout + done.stderr) == []


@pytest.mark.parametrize("where", ["error", "stderr"])
def test_measure_failure_notes_hold_no_form_of_the_secret(tmp_path: Path, where: str) -> None:
    flags = ["--exit"] if where == "stderr" else []
    server = [sys.executable, SERVER, "--where", where, *flags, "ECHO_KEY"]
    done = _mcpcost("measure", "--env-from", "ECHO_KEY", "--json", "--", *server, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    doc = json.loads(done.stdout)
    assert MASK in doc["notes"], doc["notes"]
    assert leaked(done.stdout + done.stderr) == []


def test_audit_outputs_hold_no_form_of_a_referenced_secret(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    entry = {"command": sys.executable, "args": [SERVER, "KEY"], "env": {"KEY": "${ECHO_KEY}"}}
    config.write_text(json.dumps({"mcpServers": {"echo": entry}}), "utf-8")
    sarif = tmp_path / "audit.sarif"
    for flags in ((), ("--json",), ("--markdown",), ("--sarif", str(sarif), "--budget", "10")):
        done = _mcpcost("audit", "--config", str(config), "--timeout", "20", *flags, cwd=tmp_path)
        assert done.returncode in (0, 1), (flags, done.stderr)
        assert leaked(done.stdout + done.stderr) == [], flags
        assert "echo" in done.stdout, flags
    assert "budget" in sarif.read_text("utf-8")
    assert leaked(sarif.read_text("utf-8")) == []
    doc = json.loads(_mcpcost("audit", "--config", str(config), "--json", cwd=tmp_path).stdout)
    (server,) = [s for c in doc["configs"] for s in c["servers"]]
    assert server["tokens"] > 100
    assert "withheld" in server["notes"]


@pytest.mark.parametrize("password", ["ab/cd-Pw-9f3a", "ab@cd-Pw-9f3a", "ab#cd-Pw-9f3a"])
def test_a_reserved_character_in_a_url_password_fails_in_one_line(
    tmp_path: Path, password: str
) -> None:
    """No traceback from the HTTP thread, no part of the password in any output, and no request
    to the host the rest of the password would have named."""
    config = tmp_path / "mcp.json"
    entry = {"type": "http", "url": "http://me:${ECHO_KEY}@127.0.0.1:9/mcp"}
    config.write_text(json.dumps({"mcpServers": {"remote": entry}}), "utf-8")
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "mcpcost", "audit", "--config", str(config), "--json"],
        env={**env, "ECHO_KEY": password},
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    for piece in ("ab/", "ab@", "ab#", "cd-Pw", "Port could not"):
        assert piece not in done.stdout + done.stderr, piece
    (server,) = [s for c in json.loads(done.stdout)["configs"] for s in c["skipped"]]
    assert server["status"] == "startup-failure", server
    assert "%2F" in server["notes"], server["notes"]


class _EchoesAuthorization(BaseHTTPRequestHandler):
    """A Streamable HTTP server (JSON answers) whose one tool describes the Authorization header
    it was sent: what a client builds from URL userinfo, repeated back."""

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        message = json.loads(self.rfile.read(min(length, 1 << 16)) or b"{}")
        if "id" not in message:
            self.send_response(202)
            self.end_headers()
            return
        if message.get("method") == "initialize":
            result: dict[str, object] = {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "auth-echo", "version": "1"},
            }
        else:
            said = self.headers.get("Authorization", "none")
            tool = {"name": "echo", "description": f"sent {said}", "inputSchema": {}}
            result = {"tools": [tool]}
        body = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_the_basic_header_made_from_url_userinfo_is_masked_when_echoed(tmp_path: Path) -> None:
    """``measure --url`` with a password in the URL: the client sends it as a Basic header, the
    server repeats the header's base64 in a description, and no output holds it (the capture,
    which ``--json`` would print, is withheld)."""
    password = "Pw-for-basic-7f3a9c"
    token = base64.b64encode(f"me:{password}".encode()).decode()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _EchoesAuthorization)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = f"http://me:{password}@127.0.0.1:{httpd.server_address[1]}/mcp"
        done = _mcpcost("measure", "--url", url, "--transport", "http", "--json", cwd=tmp_path)
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert done.returncode == 0, done.stderr
    assert token not in done.stdout + done.stderr and password not in done.stdout + done.stderr
    doc = json.loads(done.stdout)
    assert doc["rawToolsCapture"] is None and "withheld" in doc["notes"], doc
    assert doc["totalTokens"] > 0
