"""``mcpcost measure`` in process: usage errors (a command without ``--`` named with the line
meant), default names, the summary line and the help (against real servers:
tests/integration/test_cli_measure_servers.py)."""

from __future__ import annotations

import pytest

from mcpcost.cli.measure_inputs import name_from_command, name_from_url
from mcpcost.core.model import Measurement
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


def test_summary_line_counts_one_tool_as_one_tool() -> None:
    from mcpcost.cli.measure_cmd import summary_line
    from mcpcost.core.measure import measure_tools
    from mcpcost.core.status import Status

    tm = measure_tools([{"name": "only", "inputSchema": {"type": "object"}}])
    m = Measurement(
        status=Status.MEASURED,
        server_name="one",
        launch_command="x",
        measured_at="2026-11-30T00:00:00.000Z",
        timeout_ms=1000,
        total_tokens=tm.total_tokens,
        tool_count=tm.tool_count,
        tools=tm.tools,
        canonical_sha256=tm.canonical.sha256,
        raw_tools_capture=tm.capture,
    )
    assert summary_line("one", m) == f"one: {tm.total_tokens} tokens across 1 tool (measured)"


@pytest.mark.parametrize(
    ("argv", "meant"),
    [
        (["npx", "-y", "pkg"], "mcpcost measure -- npx -y pkg"),
        (
            ["--name", "fs", "npx", "-y", "@scope/server-fs", "/tmp"],
            "mcpcost measure --name fs -- npx -y @scope/server-fs /tmp",
        ),
        (["uvx", "srv", "--port", "1"], "mcpcost measure -- uvx srv --port 1"),
    ],
)
def test_a_command_without_the_double_dash_is_named_with_the_line_meant(
    argv: list[str], meant: str
) -> None:
    code, out, err = run_cli(*argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "go after --" in err
    assert err.rstrip("\n").endswith(": " + meant)


def test_an_unknown_flag_of_ours_is_still_named_as_one() -> None:
    code, _, err = run_cli("--nme", "x", "--", "npx", "pkg")
    assert code == 2 and "unrecognized arguments: --nme; did you mean --name?" in err
    assert "go after --" not in err


def test_the_listings_line_counts_its_nouns() -> None:
    from mcpcost.cli.measure_cmd import listings_line
    from mcpcost.core.model import Listing, ListingKind

    m = Measurement.from_dict(
        {"status": "measured", "serverName": "x", "launchCommand": "x", "measuredAt": "t"}
    ).with_(
        listings={
            ListingKind.PROMPTS: Listing(count=0, tokens=1),
            ListingKind.RESOURCES: Listing(count=1, tokens=1),
            ListingKind.RESOURCE_TEMPLATES: Listing(count=2, tokens=1234),
        }
    )
    assert listings_line(m) == (
        "  also listed, not in the number: 0 prompts; 1 resource (1 token); "
        "2 resource templates (1,234 tokens)"
    )
