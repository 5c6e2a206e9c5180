"""Configs of six clients (Claude Code, Cursor, VS Code, Codex, Gemini CLI, Windsurf) that
point at the two limits servers (``tests/servers/fixtures/limits_server.py``), in a home or in
a repository, and the client-lens findings each client's session must carry.

The ``edge`` server is configured under its 13-character name (``limits-server``), the ``many``
server as ``many-tools``; together a session has 148 tools."""

from __future__ import annotations

import json
from pathlib import Path

from tests.servers.fixtures import limits_server as ls
from tests.servers.registry import limits_server_argv

EDGE = ls.SERVER_NAME
MANY = "many-tools"
CLIENTS = ("claude-code", "cursor", "vscode", "codex", "gemini", "windsurf")

# (kind, server, tool) each client's session must report (the session may report more: a rule
# added to a client later adds findings, it does not break this list)
Key = tuple[str, str | None, str | None]
EXPECTED: dict[str, set[Key]] = {
    "claude-code": {
        ("instructions-truncated", EDGE, None),
        ("description-truncated", EDGE, ls.LONG_DESCRIPTION),
        ("name-invalid", EDGE, ls.DOTTED),
        ("name-too-long", EDGE, ls.NAME_55),
        ("name-too-long", EDGE, ls.NAME_65),
    },
    "cursor": {
        ("name-too-long", EDGE, ls.NAME_55),
        ("name-too-long", EDGE, ls.NAME_65),
        ("hidden-from-model", EDGE, ls.APP_TOOL),
    },
    "vscode": {("too-many-tools", None, None), ("hidden-from-model", EDGE, ls.APP_TOOL)},
    "windsurf": {("too-many-tools", None, None)},
    "codex": {
        ("name-too-long", EDGE, ls.NAME_55),
        ("name-too-long", EDGE, ls.NAME_65),
        # its '-' to '_' rewriting (and the dot's) is one finding per server
        ("name-invalid", EDGE, None),
        ("name-invalid", MANY, None),
    },
    "gemini": {("name-too-long", EDGE, ls.NAME_55), ("name-too-long", EDGE, ls.NAME_65)},
}


def _argvs(python: str | None) -> dict[str, list[str]]:
    """Each limits server's argv; ``python`` replaces the interpreter (a test whose servers are
    started by another user names one that user can run)."""
    argvs = {EDGE: limits_server_argv("edge"), MANY: limits_server_argv("many")}
    return {n: [python or a[0], *a[1:]] for n, a in argvs.items()}


def _json(key: str, python: str | None = None, **extra: str) -> str:
    block = {n: {"command": a[0], "args": a[1:], **extra} for n, a in _argvs(python).items()}
    return json.dumps({key: block}, indent=2) + "\n"


def _toml(python: str | None = None) -> str:
    out = []
    for n, a in _argvs(python).items():
        args = ", ".join(json.dumps(x) for x in a[1:])
        out.append(f"[mcp_servers.{n}]\ncommand = {json.dumps(a[0])}\nargs = [{args}]\n")
    return "\n".join(out)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    return path


def populate_home(home: Path, cwd: Path) -> dict[str, Path]:
    """A user config of each client but VS Code (a workspace file in ``cwd``), Linux paths."""
    return {
        "claude-code": _write(home / ".claude.json", _json("mcpServers")),
        "cursor": _write(home / ".cursor" / "mcp.json", _json("mcpServers")),
        "vscode": _write(cwd / ".vscode" / "mcp.json", _json("servers", type="stdio")),
        "codex": _write(home / ".codex" / "config.toml", _toml()),
        "gemini": _write(home / ".gemini" / "settings.json", _json("mcpServers")),
        "windsurf": _write(home / ".codeium" / "windsurf" / "mcp_config.json", _json("mcpServers")),
    }


def populate_repo(root: Path, python: str | None = None) -> dict[str, Path]:
    """The project config of each of the six clients that has one (Windsurf has none), whose
    servers run under ``python`` (default: this interpreter)."""
    return {
        "claude-code": _write(root / ".mcp.json", _json("mcpServers", python)),
        "cursor": _write(root / ".cursor" / "mcp.json", _json("mcpServers", python)),
        "vscode": _write(root / ".vscode" / "mcp.json", _json("servers", python, type="stdio")),
        "codex": _write(root / ".codex" / "config.toml", _toml(python)),
        "gemini": _write(root / ".gemini" / "settings.json", _json("mcpServers", python)),
    }


def entry_line(path: Path, server: str) -> int:
    """The 1-based line of ``server``'s entry in a config these builders wrote."""
    for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
        if f'"{server}"' in line or line == f"[mcp_servers.{server}]":
            return number
    raise AssertionError(f"{server} not in {path}")
