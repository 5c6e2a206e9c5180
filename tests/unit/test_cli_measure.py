"""``mcpcost measure`` in process: usage errors, default names and the help (against real servers:
tests/integration/test_cli_measure_servers.py)."""

from __future__ import annotations

import pytest

from mcpcost.cli.measure_inputs import name_from_command, name_from_url
from tests.helpers.cli_measure import run_cli


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--name", "../evil", "--out", "o", "--", "x"],
        ["--name", "a b", "--out", "o", "--", "x"],
        ["--url", "ftp://host/x"],
        ["--url", "http://h/x", "--", "cmd"],
        ["--url", "http://h/x", "--env", "A=1"],
        ["--header", "X: y", "--", "cmd"],
        ["--url", "http://h/x", "--header", "no colon"],
        ["--env", "1BAD=x", "--", "cmd"],
        ["--timeout", "0", "--", "cmd"],
        ["--timeout", "soon", "--", "cmd"],
        ["--transport", "carrier-pigeon", "--url", "http://h/x"],
        ["--bogus", "--", "cmd"],
        ["--cwd", "/nonexistent/dir", "--", "cmd"],
        ["--command", "python3 server.py", "--", "extra"],
        ["--command", "python3 'unterminated"],
        ["--command", "   "],
        ["--command", "x", "--url", "http://h/x"],
        ["--remote", "ftp://host/x"],
        ["--remote", "http://h/x", "--", "cmd"],
        ["--docker", "--url", "http://h/x"],
        ["--image", "img", "--", "cmd"],
        ["--ca-bundle", "auto", "--", "cmd"],
        ["--docker", "--ca-bundle", "/definitely/not/a.pem", "--", "cmd"],
    ],
)
def test_usage_errors_exit_2_with_one_line(argv: list[str]) -> None:
    code, out, err = run_cli(*argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and "Traceback" not in err


def test_default_names() -> None:
    assert name_from_command(["npx", "-y", "@modelcontextprotocol/server-memory@2025.8.4"]) == (
        "server-memory"
    )
    assert name_from_command(["uvx", "mcp-server-time", "--local-timezone", "UTC"]) == (
        "mcp-server-time"
    )
    assert (
        name_from_command(
            ["docker", "run", "-i", "--rm", "-e", "TOKEN", "ghcr.io/acme/acme-mcp:1.2"]
        )
        == "acme-mcp"
    )
    assert name_from_command(["/opt/bin/My Server.py"]) == "my-server"
    assert name_from_url("https://mcp.deepwiki.com/mcp") == "deepwiki-com"
    assert name_from_url("https://www.example.org/sse") == "example-org"


def test_help_documents_the_reference_spellings_and_docker(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run_cli("--help")
    flat = " ".join((out + capsys.readouterr().out).split())
    assert code == 0
    for needle in (
        "--command 'LAUNCH LINE'",
        "--url URL, --remote URL",
        "--docker",
        "--image IMAGE, --docker-image IMAGE",
        "--docker-host URL",
        "--ca-bundle PATH|auto",
    ):
        assert needle in flat
