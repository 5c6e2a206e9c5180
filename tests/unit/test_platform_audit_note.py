"""macOS GUI apps start servers with launchd's PATH: the audit says so when a command of a
Claude Desktop config is found only through the shell's PATH."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from mcpcost.configs.config_file import ConfigFile
from mcpcost.configs.discovery import discover

pytestmark = pytest.mark.posix_only("POSIX PATH and executable bits")


def claude_desktop_home(tmp_path: Path, platform_dir: Path, servers: dict[str, str]) -> Path:
    home = tmp_path / "home"
    config = home / platform_dir / "Claude" / "claude_desktop_config.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"mcpServers": {n: {"command": c} for n, c in servers.items()}}))
    return home


@pytest.fixture
def shell_bin(tmp_path: Path) -> Path:
    """A directory on the shell's PATH only (like /opt/homebrew/bin) with one command."""
    bin_dir = tmp_path / "homebrew" / "bin"
    bin_dir.mkdir(parents=True)
    tool = bin_dir / "brew-mcp-server"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    return bin_dir


def notes_by_name(configs: list[ConfigFile]) -> dict[str, tuple[str, ...]]:
    return {e.name: e.notes for c in configs for e in c.entries}


def test_a_command_found_only_through_the_shell_path_is_noted_on_macos(
    tmp_path: Path, shell_bin: Path
) -> None:
    servers = {
        "brew": "brew-mcp-server",
        "system": "sh",
        "full": str(shell_bin / "brew-mcp-server"),
    }
    home = claude_desktop_home(tmp_path, Path("Library/Application Support"), servers)
    environ = {"PATH": f"{shell_bin}:/usr/bin:/bin", "HOME": str(home)}
    configs = discover(
        home=home, cwd=tmp_path, platform="darwin", environ=environ, clients=["claude-desktop"]
    )
    notes = notes_by_name(configs)
    assert len(notes["brew"]) == 1
    assert notes["brew"][0].startswith("brew-mcp-server is found only through your shell's PATH")
    assert str(shell_bin) not in notes["brew"][0]
    assert notes["system"] == () and notes["full"] == ()


def test_no_such_note_on_linux(tmp_path: Path, shell_bin: Path) -> None:
    home = claude_desktop_home(tmp_path, Path(".config"), {"brew": "brew-mcp-server"})
    environ = {"PATH": f"{shell_bin}:/usr/bin:/bin", "HOME": str(home)}
    configs = discover(
        home=home, cwd=tmp_path, platform="linux", environ=environ, clients=["claude-desktop"]
    )
    assert notes_by_name(configs) == {"brew": ()}
