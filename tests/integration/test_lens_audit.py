"""The client lens in a real audit: configs for Claude Code, Cursor, VS Code, Codex, Gemini CLI and
Windsurf in a temporary home all start one real stdio server whose tools cross the limits; each
session's model view reports each crossing once, in that session, and its up-front tokens are an
independent count of the projected payload."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcpcost.audit.compose import AuditOptions, read_inputs, run_audit
from mcpcost.audit.model_view import LoadVerdict
from mcpcost.core.jsonvalue import stringify
from mcpcost.core.spec import ServerSpec
from mcpcost.core.tokenizer import count_tokens
from mcpcost.measuring import MeasureOptions, measure_server
from tests.helpers.lens_fixtures import (
    DOTTED,
    NAME_55,
    NAME_65,
    SERVER,
    limits_server,
    limits_tools,
)


def _homes(home: Path, argv: list[str]) -> None:
    entry = {"command": argv[0], "args": argv[1:]}
    files: dict[str, Any] = {
        ".claude.json": {"mcpServers": {SERVER: entry}},
        ".cursor/mcp.json": {"mcpServers": {SERVER: entry}},
        ".config/Code/User/mcp.json": {"servers": {SERVER: {"type": "stdio", **entry}}},
        ".gemini/settings.json": {"mcpServers": {SERVER: entry}},
        ".codeium/windsurf/mcp_config.json": {"mcpServers": {SERVER: entry}},
    }
    for rel, data in files.items():
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text(json.dumps(data), encoding="utf-8")
    toml_args = ", ".join(json.dumps(a) for a in argv[1:])
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text(
        f'[mcp_servers."{SERVER}"]\ncommand = {json.dumps(argv[0])}\nargs = [{toml_args}]\n',
        encoding="utf-8",
    )


def test_each_crossing_is_reported_once_in_the_session_of_its_client(tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "project"
    cwd.mkdir()
    argv = limits_server(tmp_path)
    _homes(home, argv)
    clients = ["claude-code", "cursor", "vscode", "codex", "gemini", "windsurf"]
    inputs = read_inputs(
        None,
        home=home,
        cwd=cwd,
        platform="linux",
        environ={"PATH": "/usr/bin:/bin", "ENABLE_TOOL_SEARCH": "false"},
        clients=clients,
    )

    def measure(spec: ServerSpec) -> Any:
        return measure_server(spec, MeasureOptions(timeout_s=60))

    report = run_audit(inputs, measure=measure, options=AuditOptions(concurrency=2)).report
    by = {s.client: s.model_view for s in report.sessions}
    assert sorted(by) == sorted(clients)

    def found(client: str) -> list[tuple[str, str | None]]:
        view = by[client]
        assert view is not None
        return [(f.kind, f.tool) for f in view.findings]

    claude = found("claude-code")
    for crossing in (
        ("description-truncated", "verbose"),
        ("instructions-truncated", None),
        ("name-invalid", DOTTED),
    ):
        assert claude.count(crossing) == 1
    assert ("name-too-long", NAME_55) not in claude  # tool search off: loaded up front, 75 < 128
    cursor = found("cursor")
    assert cursor.count(("name-too-long", NAME_55)) == 1
    assert cursor.count(("name-too-long", NAME_65)) == 1
    assert cursor.count(("hidden-from-model", "app_panel")) == 1
    assert found("vscode").count(("too-many-tools", None)) == 1
    assert found("windsurf").count(("too-many-tools", None)) == 1
    assert found("gemini").count(("name-too-long", NAME_65)) == 1
    assert ("description-truncated", "verbose") not in found("gemini")  # not Gemini's rule

    # Claude Code's up-front count, recomputed from the server's own tools
    view = by["claude-code"]
    assert view.verdict is LoadVerdict.LOADED_UP_FRONT and view.regime == "tool-search"
    projected = []
    for t in limits_tools(133):
        description = t["description"]
        if len(description) > 2048:
            description = description[:2048] + "… [truncated]"
        projected.append(
            {
                "name": f"mcp__{SERVER}__{t['name']}",
                "description": description,
                "input_schema": t["inputSchema"],
            }
        )
    instructions = "i" * 2048 + "… [truncated]"
    expected = count_tokens(stringify(projected)) + count_tokens(instructions)
    assert view.upfront_tokens == expected
