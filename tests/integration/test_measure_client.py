"""``mcpcost measure --client``: a real stdio server whose tools cross the lens's limits,
through each client's lens (text table and ``--json``), and a pinned reference server beside
its wire number."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpcost.configs.clients import KNOWN_CLIENTS
from mcpcost.core.jsonvalue import parse_json
from tests.helpers.cli_measure import run_cli
from tests.helpers.lens_fixtures import DOTTED, NAME_55, NAME_65, SERVER, limits_server
from tests.servers.registry import real_server_argv, real_server_missing


def findings(doc: dict, client: str) -> list[tuple[str, str | None]]:
    (entry,) = [c for c in doc["clients"] if c["client"] == client]
    return [(f["kind"], f["tool"]) for f in entry["modelView"]["findings"]]


def test_every_limit_crossing_tool_is_reported_for_the_right_client(tmp_path: Path) -> None:
    argv = limits_server(tmp_path)
    code, out, _ = run_cli(
        "--name",
        SERVER,
        "--json",
        "--client",
        "claude-code,cursor",
        "--client",
        "vscode",
        "--client",
        "codex,gemini,windsurf",
        "--",
        *argv,
    )
    assert code == 0
    doc = parse_json(out)
    assert [c["client"] for c in doc["clients"]] == [
        "claude-code",
        "cursor",
        "vscode",
        "codex",
        "gemini",
        "windsurf",
    ]
    claude = findings(doc, "claude-code")
    assert ("description-truncated", "verbose") in claude
    assert ("instructions-truncated", None) in claude
    assert ("name-invalid", DOTTED) in claude
    # tool search is on by default: both long names pass tool_reference's 64
    assert ("name-too-long", NAME_55) in claude and ("name-too-long", NAME_65) in claude
    cursor = findings(doc, "cursor")
    assert sorted(k for k in cursor if k[0] == "name-too-long") == sorted(
        [("name-too-long", NAME_55), ("name-too-long", NAME_65)]
    )
    assert ("hidden-from-model", "app_panel") in cursor
    assert ("too-many-tools", None) in findings(doc, "vscode")  # 139 visible > 128
    assert ("too-many-tools", None) in findings(doc, "windsurf")
    assert ("name-too-long", NAME_65) in findings(doc, "gemini")
    codex = next(c for c in doc["clients"] if c["client"] == "codex")
    assert codex["modelView"]["regime"] == "tool-search"  # 140 MCP tools >= 100
    assert codex["modelView"]["apiShape"] == "openai-function"


def test_the_text_table_has_a_row_per_client_and_a_line_per_finding(tmp_path: Path) -> None:
    code, out, _ = run_cli("--name", SERVER, "--client", "all", "--", *limits_server(tmp_path, 0))
    assert code == 0
    lines = out.splitlines()
    assert lines[1].split()[:3] == ["client", "up", "front"]
    assert sum(1 for line in lines if line.startswith("LM Studio ")) == 1
    assert "no rule on record" in next(line for line in lines if line.startswith("LM Studio "))
    cuts = [line for line in lines if line.startswith("Claude Code: description-truncated")]
    assert len(cuts) == 1 and "fix: trim the description" in cuts[0]


def test_an_unknown_client_is_a_usage_error_with_did_you_mean() -> None:
    code, _, err = run_cli("--client", "curser", "--", "unused")
    assert code == 2
    assert "unknown client 'curser'; did you mean 'cursor'?" in err


@pytest.mark.skipif(real_server_missing("memory") is not None, reason="npm servers not installed")
def test_a_reference_server_through_every_lens_beside_its_wire_number() -> None:
    argv = real_server_argv("memory")
    assert argv is not None
    code, out, _ = run_cli("--json", "--client", "all", "--name", "memory", "--", *argv)
    assert code == 0
    doc = parse_json(out)
    assert [c["client"] for c in doc["clients"]] == list(KNOWN_CLIENTS)
    by = {c["client"]: c["modelView"] for c in doc["clients"]}
    wire = doc["wireTokens"]
    assert by["lmstudio"]["upfrontTokens"] == wire and by["lmstudio"]["rulesOnRecord"] is False
    assert by["cursor"]["deferredTokens"] == wire  # the wire definitions, all deferred
    assert 0 < by["claude-desktop"]["upfrontTokens"] <= wire  # the Anthropic projection drops
