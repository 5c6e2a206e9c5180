"""``mcpcost measure`` against real servers: stdio fixtures (the summary line, ``--json``,
``--out``, a failure, env values never shown, the command line split without a shell), loopback
HTTP and SSE servers (headers, a forced transport, an auth wall), and ``--docker`` without an
engine or through ``DOCKER_HOST``."""

from __future__ import annotations

import io
import os
import shlex
import subprocess
import sys
from pathlib import Path

from mcpcost.core.jsonvalue import parse_json
from mcpcost.core.model import Measurement
from mcpcost.core.verify import verify_document
from tests.helpers.cli_measure import run_cli
from tests.helpers.paths import ROOT
from tests.servers.http_fixtures import BEARER_TOKEN, serve_http
from tests.servers.registry import fixture_argv


def test_summary_line_for_a_good_server() -> None:
    code, out, err = run_cli("--name", "good", "--timeout", "5", "--", *fixture_argv("good"))
    assert code == 0
    assert out.startswith("good: ") and out.endswith(" tokens across 3 tools (measured)\n")
    assert "measuring good" in err


def test_json_is_a_verifiable_measurement() -> None:
    code, out, _ = run_cli("--json", "--timeout", "5", "--", *fixture_argv("good"))
    assert code == 0
    doc = parse_json(out)
    assert doc["status"] == "measured" and doc["launchCommand"].endswith("--mode good")
    assert verify_document(doc).ok
    assert out.endswith("}\n")


def test_out_writes_measurement_and_badge(tmp_path: Path) -> None:
    code, _, err = run_cli(
        "--name", "fx", "--out", str(tmp_path), "--timeout", "5", "--", *fixture_argv("good")
    )
    assert code == 0
    result = tmp_path / "results" / "fx" / "measurement.json"
    badge = tmp_path / "badges" / "fx.json"
    m = Measurement.from_dict(parse_json(result.read_bytes()))
    assert m.total_tokens is not None and m.total_tokens > 0
    assert parse_json(badge.read_bytes())["schemaVersion"] == 1
    assert sorted(p.name for p in (tmp_path / "results" / "fx").iterdir()) == ["measurement.json"]
    assert str(result) in err


def test_failure_exits_1_with_status_and_notes() -> None:
    code, out, _ = run_cli("--name", "crash", "--timeout", "3", "--", *fixture_argv("crash"))
    assert code == 1
    assert out.startswith("crash: startup-failure — server exited (code 1)")


def test_env_values_never_appear(tmp_path: Path) -> None:
    secret = "zz-env-secret-98765"
    script = "import os,sys; sys.stderr.write('using ' + os.environ['TOKEN_X']); sys.exit(1)"
    code, out, err = run_cli(
        "--env",
        f"TOKEN_X={secret}",
        "--env",
        "OTHER",
        "--out",
        str(tmp_path),
        "--json",
        "--timeout",
        "3",
        "--",
        sys.executable,
        "-c",
        script,
    )
    assert code == 1
    files = "".join(p.read_text() for p in tmp_path.rglob("*.json"))
    for text in (out, err, files):
        assert secret not in text
    assert "using ***" in out


def test_bare_env_passes_dummy() -> None:
    script = "import os,sys; sys.stderr.write('value=' + os.environ['NEEDED'] + '!'); sys.exit(1)"
    code, out, _ = run_cli("--env", "NEEDED", "--timeout", "3", "--", sys.executable, "-c", script)
    assert code == 1
    # the methodology's published stand-in is no secret: shown as the server said it
    assert "value=dummy!" in out
    code, out, _ = run_cli(
        "--env",
        "NEEDED",
        "--timeout",
        "3",
        "--",
        sys.executable,
        "-c",
        "import os,sys; sys.exit(0 if os.environ['NEEDED']=='dummy' else 9)",
    )
    assert "code 0" in out


def test_url_with_header_and_default_name() -> None:
    with serve_http("bearer-required") as fx:
        code, out, err = run_cli(
            "--url", fx.url, "--header", f"Authorization: Bearer {BEARER_TOKEN}", "--timeout", "5"
        )
    assert code == 0, out
    assert out.startswith("127-0-0-1: ")
    assert BEARER_TOKEN not in out + err


def test_url_forced_sse() -> None:
    with serve_http("legacy-sse") as fx:
        code, out, _ = run_cli("--url", fx.url, "--transport", "sse", "--json", "--timeout", "5")
    assert code == 0
    assert parse_json(out)["transport"] == "sse"


def test_remote_auth_wall_exit_1() -> None:
    with serve_http("auth-401-metadata") as fx:
        code, out, _ = run_cli("--url", fx.url, "--name", "walled", "--timeout", "5")
    assert code == 1 and out.startswith("walled: remote-auth-wall")


def test_as_a_real_command(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mcpcost",
            "measure",
            "--timeout",
            "5",
            "--out",
            str(tmp_path),
            "--",
            *fixture_argv("good"),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("stdio_server: ")
    assert (tmp_path / "results" / "stdio_server" / "measurement.json").is_file()


def test_command_line_is_split_without_a_shell_and_recorded_as_written(tmp_path: Path) -> None:
    script = tmp_path / "it's a server.py"
    script.write_text((ROOT / "examples" / "demo" / "demo_server.py").read_text())
    marker = tmp_path / "shell-ran"
    line = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))} ; touch {marker}"
    code, out, err = run_cli("--json", "--timeout", "10", "--command", line)
    # no shell: ';', 'touch' and the path are plain arguments the demo server ignores
    assert code == 0, err
    doc = parse_json(out)
    assert doc["status"] == "measured" and doc["launchCommand"] == line
    assert not marker.exists()
    same = run_cli(
        "--json", "--timeout", "10", "--", sys.executable, str(script), ";", "touch", str(marker)
    )
    assert parse_json(same[1])["canonicalSha256"] == doc["canonicalSha256"]
    assert "measuring it-s-a-server: " in err  # the default name comes from the split words


def test_remote_is_an_alias_of_url() -> None:
    with serve_http("legacy-sse") as fx:
        code, out, _ = run_cli("--remote", fx.url, "--transport", "sse", "--json", "--timeout", "5")
        assert code == 0
        assert parse_json(out)["transport"] == "sse" and parse_json(out)["launchCommand"] == fx.url


def test_docker_without_an_engine_is_one_line_and_exit_2(tmp_path: Path) -> None:
    missing = f"unix://{tmp_path}/no-engine.sock"
    out, err = io.StringIO(), io.StringIO()
    from mcpcost.cli import measure_cmd

    argv = ["--docker", "--docker-host", missing, "--command", "python3 server.py"]
    assert measure_cmd.run(argv, out, err, environ={}) == 2
    assert out.getvalue() == ""
    assert (
        err.getvalue()
        .splitlines()[-1]
        .startswith(f"mcpcost measure: cannot reach a container engine at {missing} (")
    )


def test_docker_host_reaches_a_docker_run_command_on_the_host() -> None:
    """Without --docker a `docker run` command still runs on the host as written; --docker-host
    is given to it as DOCKER_HOST and recorded (here a stand-in 'docker' prints what it got)."""
    import tempfile

    with tempfile.TemporaryDirectory() as bindir:
        fake = Path(bindir) / "docker"
        fake.write_text(
            f"#!{sys.executable}\nimport os, sys\n"
            "sys.stderr.write('engine=' + os.environ.get('DOCKER_HOST', 'unset'))\nsys.exit(3)\n"
        )
        fake.chmod(0o755)
        code, out, _ = run_cli(
            "--json",
            "--timeout",
            "5",
            "--no-retry",
            "--docker-host",
            "unix:///run/engine.sock",
            "--",
            str(fake),
            "run",
            "-i",
            "img",
        )
    doc = parse_json(out)
    assert code == 1 and doc["status"] == "startup-failure"
    assert doc["isolation"]["docker"] is True
    assert doc["isolation"]["note"].endswith("engine DOCKER_HOST=unix:///run/engine.sock")
    # the host CLI got an address (env values, DOCKER_HOST included, are masked in notes)
    assert doc["notes"].endswith("stderr tail: engine=***")
