"""``mcpcost measure`` takes secret env values and headers without putting them on its own
command line: ``--env-from NAME``, ``--env-file FILE``, ``--header-file FILE``. Real processes:
the server reads its parent's command line from /proc, as any local user's ``ps`` would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.paths import ROOT
from tests.servers.http_fixtures import BEARER_TOKEN, serve_http

SECRET = "env-secret-5c1d9e77a0"
# writes what it saw to REPORT (whether it got the secret, whether its parent's command line,
# the measuring process, shows it), then exits
PROBE = (
    "import os, sys\n"
    "cmdline = open(f'/proc/{os.getppid()}/cmdline', 'rb').read().decode()\n"
    "want = os.environ['EXPECTED'][::-1]\n"
    "got = os.environ.get('TOKEN_X') == want\n"
    "open(os.environ['REPORT'], 'w').write(f'got={got} visible={want in cmdline}')\n"
    "sys.exit(1)\n"
)


def _measure(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    base = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT), **env}
    return subprocess.run(
        [sys.executable, "-m", "mcpcost", "measure", "--timeout", "10", "--no-retry", *args],
        env=base,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc")
@pytest.mark.parametrize("form", ["env-from", "env-file", "env-value"])
def test_secret_env_forms_and_what_ps_shows(tmp_path: Path, form: str) -> None:
    report = tmp_path / "report"
    own_env = {"REPORT_PATH": str(report)}
    flags = ["--env", f"REPORT={report}", "--env", f"EXPECTED={SECRET[::-1]}"]
    # EXPECTED carries the secret reversed, so that only TOKEN_X's own form can show it in ps
    if form == "env-from":
        own_env["TOKEN_X"] = SECRET
        flags += ["--env-from", "TOKEN_X"]
    elif form == "env-file":
        dotenv = tmp_path / "secrets.env"
        dotenv.write_text(f"# the token\nTOKEN_X='{SECRET}'\n", "utf-8")
        flags += ["--env-file", str(dotenv)]
    else:
        flags += ["--env", f"TOKEN_X={SECRET}"]
    done = _measure(*flags, "--", sys.executable, "-c", PROBE, env=own_env)
    assert SECRET not in done.stdout + done.stderr
    visible = form == "env-value"  # the documented difference: only NAME=VALUE is in ps
    assert report.read_text() == f"got=True visible={visible}", done.stderr


def test_help_says_which_forms_are_visible_in_ps() -> None:
    done = _measure("--help", env={})
    text = " ".join(done.stdout.split())
    assert "visible to other local users in ps" in text
    assert "--env-from" in text and "--env-file" in text and "--header-file" in text


def test_header_file_reaches_the_server(tmp_path: Path) -> None:
    headers = tmp_path / "headers"
    headers.write_text(f"# auth\n\nAuthorization: Bearer {BEARER_TOKEN}\n", "utf-8")
    with serve_http("bearer-required") as fx:
        done = _measure("--url", fx.url, "--header-file", str(headers), env={})
        refused = _measure("--url", fx.url, env={})
    assert done.returncode == 0, done.stdout + done.stderr
    assert refused.returncode == 1, "the fixture really requires the header"
    assert BEARER_TOKEN not in done.stdout + done.stderr


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--env-from", "NOT_SET_ANYWHERE_X"], "not set in this environment"),
        (["--env-file", "/nonexistent/secrets.env"], "--env-file /nonexistent/secrets.env"),
    ],
)
def test_bad_secret_sources_are_one_line_errors(flags: list[str], message: str) -> None:
    done = _measure(*flags, "--", sys.executable, "-c", "pass", env={})
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr


def test_a_bad_header_file_line_names_no_value(tmp_path: Path) -> None:
    headers = tmp_path / "headers"
    headers.write_text(f"{BEARER_TOKEN}\n", "utf-8")
    done = _measure("--url", "http://127.0.0.1:9/mcp", "--header-file", str(headers), env={})
    assert done.returncode == 2
    assert BEARER_TOKEN not in done.stderr and "--header-file" in done.stderr
