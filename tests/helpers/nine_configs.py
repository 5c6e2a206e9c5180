"""Issue 25's home: nine config files across eight clients, pointing at real pinned servers.

Claude Code with a per-project block in ``~/.claude.json`` and the project's ``.mcp.json``
approved there; Cursor; Claude Desktop; Codex (TOML); Gemini CLI; Windsurf with a ``serverUrl``
remote (a loopback HTTP server the caller runs); Zed as JSONC (comments and trailing commas);
VS Code's workspace file with an ``${input:}`` password (VS Code asks for it when the server
starts, so the audit cannot launch that entry) and no approval recorded for it.

``populate`` writes the files; ``normalise`` replaces what varies between runs (the temporary
home and project, the loopback port) so the report can be compared with a golden file.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

SERVERS = ("memory", "sequential-thinking", "time", "everything", "filesystem")
HOME_MARK = "/home/ana"
PROJECT_MARK = "/home/ana/shop"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")


def _json(path: Path, data: Any) -> None:
    _write(path, json.dumps(data, indent=2))


def _stdio(argv: list[str]) -> dict[str, Any]:
    return {"command": argv[0], "args": argv[1:]}


def populate(home: Path, cwd: Path, argv: dict[str, list[str]], remote_url: str) -> list[Path]:
    """The nine files (Linux paths); returns them in the order written."""
    mem, seq, time = argv["memory"], argv["sequential-thinking"], argv["time"]
    every, fs = argv["everything"], argv["filesystem"]
    files: list[Path] = []

    def add(path: Path, write: Any, data: Any) -> None:
        write(path, data)
        files.append(path)

    # 1, 2: Claude Code: user servers, the project's block, and .mcp.json approved in that block
    add(
        home / ".claude.json",
        _json,
        {
            "mcpServers": {"memory": _stdio(mem)},
            "projects": {
                str(cwd): {
                    "mcpServers": {"time": _stdio(time)},
                    "enabledMcpjsonServers": ["thinking"],
                }
            },
        },
    )
    add(cwd / ".mcp.json", _json, {"mcpServers": {"thinking": _stdio(seq)}})
    # 3: Cursor: the heavy one
    add(
        home / ".cursor" / "mcp.json",
        _json,
        {"mcpServers": {"everything": _stdio(every), "memory": _stdio(mem)}},
    )
    # 4: Claude Desktop
    add(
        home / ".config" / "Claude" / "claude_desktop_config.json",
        _json,
        {"mcpServers": {"filesystem": _stdio(fs), "time": _stdio(time)}},
    )
    # 5: Codex, TOML
    toml_args = ", ".join(json.dumps(a) for a in time[1:])
    add(
        home / ".codex" / "config.toml",
        _write,
        f'model = "o4-mini"\n\n[mcp_servers.time]\ncommand = {json.dumps(time[0])}\n'
        f"args = [{toml_args}]\n",
    )
    # 6: Gemini CLI
    add(
        home / ".gemini" / "settings.json",
        _json,
        {"mcpServers": {"thinking": _stdio(seq), "memory": _stdio(mem)}},
    )
    # 7: Windsurf, a remote by serverUrl
    add(
        home / ".codeium" / "windsurf" / "mcp_config.json",
        _json,
        {"mcpServers": {"remote-tools": {"serverUrl": remote_url}}},
    )
    # 8: Zed, JSONC
    zed_args = ", ".join(json.dumps(a) for a in time[1:])
    add(
        home / ".config" / "zed" / "settings.json",
        _write,
        "// Zed settings\n{\n"
        '  "theme": "One Dark",\n'
        '  "context_servers": {\n'
        f'    "time": {{ "command": {json.dumps(time[0])}, "args": [{zed_args}], }},\n'
        "  },\n}\n",
    )
    # 9: VS Code's workspace file: a password asked at start, and a server with no approval
    add(
        cwd / ".vscode" / "mcp.json",
        _json,
        {
            "inputs": [
                {"type": "promptString", "id": "pat", "description": "Token", "password": True}
            ],
            "servers": {
                "github": {
                    "type": "stdio",
                    **_stdio(mem),
                    "env": {"GITHUB_TOKEN": "${input:pat}"},
                },
                "thinking": {"type": "stdio", **_stdio(seq)},
            },
        },
    )
    return files


def normalise(text: str, home: Path, cwd: Path, remote_url: str) -> str:
    """``text`` with the temporary project and home, and the loopback port, fixed."""
    text = text.replace(str(cwd), PROJECT_MARK).replace(str(home), HOME_MARK)
    port = re.search(r":(\d+)/", remote_url)
    if port is not None:
        text = text.replace(f"127.0.0.1:{port.group(1)}", "127.0.0.1:PORT")
    return text
