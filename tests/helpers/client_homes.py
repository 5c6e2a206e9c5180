"""A home and a project holding one config file of every client, laid out on each platform's
documented paths (written out here independently of the implementation), with the servers each
fixture declares. Discovery and the client registry tests build on it; a new client adds its
fixture here (its path in ``SAME_EVERYWHERE``, ``USER_PATHS`` or ``PROJECT_PATHS`` and its
servers in ``EXPECTED``)."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.paths import TEST_FIXTURES

CONFIGS = TEST_FIXTURES / "configs"

ENVIRON = {
    "NOTES_TOKEN": "nt-value-1",
    "CONTEXT7_API_KEY": "c7-value",
    "API_KEY": "api-key-value",
    "DB_CONNECTION_STRING": "postgres://db",
    "EXTERNAL_API_KEY": "ext-value",
    "GEMINI_MCP_TOKEN": "gemini-value",
    "FIGMA_TOKEN": "figma-value",
    "FIGMA_OAUTH_TOKEN": "figma-oauth-value",
    "FS_MODE": "ro",
}

# fixture -> {server name: "ok" (launchable) | "off" (disabled) | "problem" (not launchable)}
EXPECTED: dict[str, dict[str, str]] = {
    "claude_desktop_config.json": {"filesystem": "ok", "github": "ok", "linear": "problem"},
    "claude.json": {"memory": "ok", "sentry": "ok", "postgres": "ok"},
    "dot-mcp.json": {"api-server": "ok", "everything": "ok"},
    "cursor-mcp.json": {"notes": "ok", "context7": "ok"},
    "vscode-mcp.jsonc": {"perplexity": "problem", "aws-docs": "ok", "github": "ok"},
    "vscode-settings.json": {"legacy-time": "ok"},
    "windsurf-mcp_config.json": {"figma": "ok", "brave-search": "problem", "puppeteer": "off"},
    "codex-config.toml": {"docs": "ok", "figma": "ok", "linear": "problem", "old": "off"},
    "gemini-settings.json": {
        "pythonTools": "ok",
        "httpServer": "ok",
        "sseServer": "ok",
        "excluded": "off",
    },
    "zed-settings.json": {
        "flat-server": "ok",
        "nested-server": "ok",
        "remote-server": "ok",
        "mcp-server-github": "problem",
    },
    "cline_mcp_settings.json": {"weather": "ok", "remote-docs": "off"},
    "roo-mcp.json": {"sqlite": "ok", "remote": "ok"},
    "continue-config.yaml": {"SQLite MCP": "ok", "Remote SSE": "ok", "Hub Secret": "problem"},
    "continue-block.yaml": {"Browser search": "ok"},
    "goose-config.yaml": {"developer": "problem", "github": "ok", "remote": "ok", "fetch": "off"},
    "copilot-mcp-config.json": {"playwright": "ok", "github": "ok"},
    "opencode.json": {"local-fs": "ok", "remote-ctx": "off"},
    "lmstudio-mcp.json": {"local-files": "ok", "model-hub": "ok"},
}

# Each OS's documented user-level paths, written out independently of the implementation.
USER_PATHS: dict[str, dict[str, tuple[str, str]]] = {
    "linux": {
        "claude-desktop": (
            ".config/Claude/claude_desktop_config.json",
            "claude_desktop_config.json",
        ),
        "vscode": (".config/Code/User/mcp.json", "vscode-mcp.jsonc"),
        "vscode-legacy": (".config/Code/User/settings.json", "vscode-settings.json"),
        "zed": (".config/zed/settings.json", "zed-settings.json"),
        "cline": (
            ".config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
            "cline_mcp_settings.json",
        ),
        "goose": (".config/goose/config.yaml", "goose-config.yaml"),
    },
    "darwin": {
        "claude-desktop": (
            "Library/Application Support/Claude/claude_desktop_config.json",
            "claude_desktop_config.json",
        ),
        "vscode": ("Library/Application Support/Code/User/mcp.json", "vscode-mcp.jsonc"),
        "vscode-legacy": (
            "Library/Application Support/Code/User/settings.json",
            "vscode-settings.json",
        ),
        "zed": (".config/zed/settings.json", "zed-settings.json"),
        "cline": (
            "Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/settings/"
            "cline_mcp_settings.json",
            "cline_mcp_settings.json",
        ),
        "goose": (".config/goose/config.yaml", "goose-config.yaml"),
    },
    "win32": {
        "claude-desktop": (
            "AppData/Roaming/Claude/claude_desktop_config.json",
            "claude_desktop_config.json",
        ),
        "vscode": ("AppData/Roaming/Code/User/mcp.json", "vscode-mcp.jsonc"),
        "vscode-legacy": ("AppData/Roaming/Code/User/settings.json", "vscode-settings.json"),
        "zed": ("AppData/Roaming/Zed/settings.json", "zed-settings.json"),
        "cline": (
            "AppData/Roaming/Code/User/globalStorage/saoudrizwan.claude-dev/settings/"
            "cline_mcp_settings.json",
            "cline_mcp_settings.json",
        ),
        "goose": ("AppData/Roaming/Block/goose/config/config.yaml", "goose-config.yaml"),
    },
}
SAME_EVERYWHERE = {
    "claude-code": (".claude.json", "claude.json"),
    "cursor": (".cursor/mcp.json", "cursor-mcp.json"),
    "windsurf": (".codeium/windsurf/mcp_config.json", "windsurf-mcp_config.json"),
    "codex": (".codex/config.toml", "codex-config.toml"),
    "gemini": (".gemini/settings.json", "gemini-settings.json"),
    "continue": (".continue/config.yaml", "continue-config.yaml"),
    "copilot": (".copilot/mcp-config.json", "copilot-mcp-config.json"),
    "opencode": (".config/opencode/opencode.json", "opencode.json"),
    "lmstudio": (".lmstudio/mcp.json", "lmstudio-mcp.json"),
}
PROJECT_PATHS = {
    "claude-code": (".mcp.json", "dot-mcp.json"),
    "vscode": (".vscode/mcp.json", "vscode-mcp.jsonc"),
    "roo": (".roo/mcp.json", "roo-mcp.json"),
    "continue": (".continue/mcpServers/playwright.yaml", "continue-block.yaml"),
    "cursor": (".cursor/mcp.json", "cursor-mcp.json"),
}


def place_config(dest: Path, fixture: str, cwd: Path) -> None:
    """Write the config fixture at ``dest``, its ``__PROJECT__`` placeholder set to ``cwd``."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    text = (CONFIGS / fixture).read_text(encoding="utf-8")
    dest.write_text(text.replace("__PROJECT__", str(cwd)), encoding="utf-8")


def build_home(tmp_path: Path, platform: str) -> tuple[Path, Path, dict[str, str], dict[Path, str]]:
    """A fake home and project holding one config per client; returns what was placed where."""
    home = tmp_path / "home"
    cwd = tmp_path / "work" / "project"
    cwd.mkdir(parents=True)
    placed: dict[Path, str] = {}
    user = {**SAME_EVERYWHERE, **USER_PATHS[platform]}
    for rel, fixture in user.values():
        placed[home / rel] = fixture
    for rel, fixture in PROJECT_PATHS.values():
        placed[cwd / rel] = fixture
    for dest, fixture in placed.items():
        place_config(dest, fixture, cwd)
    environ = dict(ENVIRON)
    if platform == "win32":
        environ["AppData"] = str(home / "AppData" / "Roaming")  # any case, as Windows allows
    return home, cwd, environ, placed
