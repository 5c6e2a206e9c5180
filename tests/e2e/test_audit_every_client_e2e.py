"""Issue 4's end-to-end proof: a home holding one config for every supported client, each
pointing at real pinned servers, audited with real launches. Every config is reported on its own,
and its total equals the sum of its servers' own measurements."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from mcpcost.cli import audit_cmd
from mcpcost.configs.clients import KNOWN_CLIENTS
from mcpcost.core.spec import ServerSpec
from mcpcost.measuring import MeasureOptions, measure_server
from tests.helpers.report_schema import SCHEMA
from tests.servers.registry import real_server_argv

SERVERS = ("memory", "sequential-thinking", "time")


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")


def _json_servers(key: str, name: str, argv: list[str], **extra: Any) -> str:
    return json.dumps({key: {name: {"command": argv[0], "args": argv[1:], **extra}}}, indent=2)


def populate(home: Path, cwd: Path, argvs: dict[str, list[str]]) -> dict[str, tuple[str, str]]:
    """One config file per client (Linux paths); returns path -> (client, server key)."""
    cycle = [SERVERS[i % len(SERVERS)] for i in range(20)]
    files: dict[str, tuple[str, str]] = {}

    def pick() -> tuple[str, list[str]]:
        name = cycle.pop(0)
        return name, argvs[name]

    def add(client: str, path: Path, text: str, server: str) -> None:
        _write(path, text)
        files[str(path)] = (client, server)

    cfg = home / ".config"
    n, a = pick()
    add(
        "claude-desktop",
        cfg / "Claude" / "claude_desktop_config.json",
        _json_servers("mcpServers", n, a),
        n,
    )
    n, a = pick()
    add("claude-code", home / ".claude.json", _json_servers("mcpServers", n, a), n)
    n, a = pick()
    add("claude-code", cwd / ".mcp.json", _json_servers("mcpServers", n, a), n)
    n, a = pick()
    add("cursor", home / ".cursor" / "mcp.json", _json_servers("mcpServers", n, a), n)
    n, a = pick()
    vscode = {"servers": {n: {"type": "stdio", "command": a[0], "args": a[1:]}}, "inputs": []}
    add("vscode", cwd / ".vscode" / "mcp.json", "// workspace servers\n" + json.dumps(vscode), n)
    n, a = pick()
    add(
        "windsurf",
        home / ".codeium" / "windsurf" / "mcp_config.json",
        _json_servers("mcpServers", n, a),
        n,
    )
    n, a = pick()
    toml_args = ", ".join(json.dumps(x) for x in a[1:])
    add(
        "codex",
        home / ".codex" / "config.toml",
        f'model = "x"\n\n[mcp_servers.{n.replace("-", "_")}]\ncommand = {json.dumps(a[0])}\n'
        f"args = [{toml_args}]\n",
        n.replace("-", "_"),
    )
    n, a = pick()
    add("gemini", home / ".gemini" / "settings.json", _json_servers("mcpServers", n, a), n)
    n, a = pick()
    zed = {
        "theme": "One Dark",
        "context_servers": {n: {"source": "custom", "command": a[0], "args": a[1:]}},
    }
    add("zed", cfg / "zed" / "settings.json", json.dumps(zed), n)
    n, a = pick()
    add(
        "cline",
        cfg
        / "Code"
        / "User"
        / "globalStorage"
        / "saoudrizwan.claude-dev"
        / "settings"
        / "cline_mcp_settings.json",
        _json_servers("mcpServers", n, a, disabled=False),
        n,
    )
    n, a = pick()
    add("roo", cwd / ".roo" / "mcp.json", _json_servers("mcpServers", n, a), n)
    n, a = pick()
    cont = {
        "name": "assistant",
        "version": "1.0.0",
        "mcpServers": [{"name": n, "command": a[0], "args": a[1:]}],
    }
    add("continue", home / ".continue" / "config.yaml", yaml.safe_dump(cont), n)
    n, a = pick()
    goose = {
        "extensions": {
            n: {
                "type": "stdio",
                "cmd": a[0],
                "args": a[1:],
                "enabled": True,
                "name": n,
                "timeout": 300,
            }
        }
    }
    add("goose", cfg / "goose" / "config.yaml", yaml.safe_dump(goose), n)
    n, a = pick()
    add(
        "copilot",
        home / ".copilot" / "mcp-config.json",
        _json_servers("mcpServers", n, a, tools=["*"]),
        n,
    )
    n, a = pick()
    opencode = {
        "$schema": "https://opencode.ai/config.json",
        "mcp": {n: {"type": "local", "command": a, "enabled": True}},
    }
    add("opencode", cfg / "opencode" / "opencode.json", json.dumps(opencode), n)
    n, a = pick()
    add("lmstudio", home / ".lmstudio" / "mcp.json", _json_servers("mcpServers", n, a), n)
    return files


@pytest.mark.slow
def test_every_client_audited_end_to_end_with_real_servers(tmp_path: Path) -> None:
    argvs = {name: real_server_argv(name) for name in SERVERS}
    missing = [name for name, argv in argvs.items() if argv is None]
    if missing:
        pytest.skip(f"pinned servers not installed ({missing}); run scripts/setup-test-env.sh")
    resolved = {name: list(argv) for name, argv in argvs.items() if argv is not None}
    home, cwd = tmp_path / "home", tmp_path / "project"
    cwd.mkdir()
    files = populate(home, cwd, resolved)
    # the GitHub Copilot app reads the Copilot CLI's file: one file, two clients
    assert {client for client, _ in files.values()} | {"github-app"} == set(KNOWN_CLIENTS)

    launches: list[str] = []

    def measure(spec: ServerSpec) -> Any:
        launches.append(spec.display())
        return measure_server(spec, MeasureOptions(timeout_s=60))

    out, err = io.StringIO(), io.StringIO()
    code = audit_cmd.run(
        ["--json", "--trust-project", "--concurrency", "3"],
        out,
        err,
        measure=measure,
        environ={"PATH": "/usr/bin:/bin"},
        home=home,
        cwd=cwd,
        platform="linux",
    )
    assert code == 0, err.getvalue()
    report = json.loads(out.getvalue())
    jsonschema.Draft202012Validator(SCHEMA).validate(report)

    # every file is its own config: nothing merged across files (the Copilot file is read by
    # the CLI and the app alike, as two configs)
    by_source = {(c["source"], c["client"]): c for c in report["configs"]}
    copilot = next(source for source, (client, _) in files.items() if client == "copilot")
    assert set(by_source) == {(s, c) for s, (c, _) in files.items()} | {(copilot, "github-app")}
    app, cli = by_source[(copilot, "github-app")], by_source[(copilot, "copilot")]
    assert app["servers"] == cli["servers"] and app["deferral"]["mode"] == "vendor-gated"
    # each distinct launch measured once across all 16 files
    assert len(launches) == len(set(launches)) == len(SERVERS)

    own = {
        name: measure_server(ServerSpec.stdio(name, resolved[name]), MeasureOptions(timeout_s=60))
        for name in SERVERS
    }
    for source, (client, server_key) in files.items():
        config = by_source[(source, client)]
        assert config["client"] == client
        (server,) = config["servers"]
        assert server["name"] == server_key
        expected = own[server_key.replace("_", "-")]
        assert server["status"] == "measured"
        assert server["canonicalSha256"] == expected.canonical_sha256
        assert config["totalTokens"] == server["tokens"] == expected.total_tokens
