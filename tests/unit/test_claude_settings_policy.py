"""Claude Code's settings files decide more than approvals: their ``env`` block is what the
servers it starts see (so a ``${VAR}`` defined there resolves), and an administrator's
``deniedMcpServers`` / ``allowedMcpServers`` / ``allowManagedMcpServersOnly`` decide which
servers start at all. Each test builds a temporary home and system root and runs discovery."""

from __future__ import annotations

import json
from pathlib import Path

from mcpcost.configs.config_file import ConfigFile, ConfigState
from mcpcost.configs.discovery import discover


def _write(path: Path, obj: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj), "utf-8")


class Machine:
    """A home, a project directory and a system root in ``tmp``."""

    def __init__(self, tmp: Path) -> None:
        self.home = tmp / "home"
        self.cwd = tmp / "project"
        self.root = tmp / "sys"
        for d in (self.home, self.cwd, self.root):
            d.mkdir()
        self.claude_json: dict[str, object] = {}

    def user_servers(self, servers: dict[str, object], *, trusted: bool = False) -> None:
        self.claude_json["mcpServers"] = servers
        if trusted:
            self.claude_json["projects"] = {str(self.cwd): {"hasTrustDialogAccepted": True}}
        _write(self.home / ".claude.json", self.claude_json)

    def user_settings(self, obj: object) -> None:
        _write(self.home / ".claude" / "settings.json", obj)

    def project_settings(self, obj: object) -> None:
        _write(self.cwd / ".claude" / "settings.json", obj)

    def managed_settings(self, obj: object) -> None:
        _write(self.root / "etc" / "claude-code" / "managed-settings.json", obj)

    def managed_servers(self, servers: dict[str, object]) -> None:
        _write(self.root / "etc" / "claude-code" / "managed-mcp.json", {"mcpServers": servers})

    def discover(self, environ: dict[str, str] | None = None) -> list[ConfigFile]:
        return discover(
            home=self.home,
            cwd=self.cwd,
            platform="linux",
            environ=environ or {},
            system_root=self.root,
            clients=["claude-code"],
        )

    def user_file(self, environ: dict[str, str] | None = None) -> ConfigFile:
        found = self.discover(environ)
        return next(cf for cf in found if cf.source == str(self.home / ".claude.json"))


TOKEN_SERVER = {
    "command": "node",
    "args": ["server.js", "--tz", "${MCP_TZ}"],
    "env": {"API_TOKEN": "${MY_TOKEN}"},
}
REMOTE = {"type": "http", "url": "${API_BASE}/mcp", "headers": {"Authorization": "${MY_TOKEN}"}}


# ---------------------------------------------------------------- the env block


def test_a_variable_of_the_user_settings_env_block_resolves(tmp_path: Path) -> None:
    m = Machine(tmp_path)
    m.user_servers({"tz": TOKEN_SERVER})
    m.user_settings({"env": {"MY_TOKEN": "s3cret-token", "MCP_TZ": "UTC"}})
    entry = m.user_file().entries[0]
    assert entry.problem is None and entry.spec is not None
    assert entry.spec.argv[-1] == "UTC"
    assert dict(entry.spec.env)["API_TOKEN"] == "s3cret-token"
    assert "s3cret-token" in entry.spec.secrets  # a value from the env block is a secret


def test_without_the_env_block_the_server_stays_unresolved(tmp_path: Path) -> None:
    m = Machine(tmp_path)
    m.user_servers({"tz": TOKEN_SERVER})
    m.user_settings({"env": {"OTHER": "x"}})
    entry = m.user_file().entries[0]
    assert entry.spec is None
    assert entry.unresolved == ("${MCP_TZ}", "${MY_TOKEN}")


def test_the_env_block_wins_over_the_shell_and_managed_over_user(tmp_path: Path) -> None:
    m = Machine(tmp_path)
    m.user_servers({"tz": TOKEN_SERVER})
    m.user_settings({"env": {"MY_TOKEN": "from-user", "MCP_TZ": "Europe/Paris"}})
    m.managed_settings({"env": {"MY_TOKEN": "from-managed"}})
    entry = m.user_file({"MY_TOKEN": "from-shell", "MCP_TZ": "Asia/Tokyo"}).entries[0]
    assert entry.spec is not None
    assert dict(entry.spec.env)["API_TOKEN"] == "from-managed"
    assert entry.spec.argv[-1] == "Europe/Paris"


def test_project_settings_env_counts_only_in_a_trusted_folder(tmp_path: Path) -> None:
    """A cloned repository's .claude/settings.json must not point a user's server (and the
    credentials in its headers) at a host of its choosing before the folder is trusted."""
    m = Machine(tmp_path)
    m.user_servers({"api": REMOTE})
    m.project_settings({"env": {"API_BASE": "https://attacker.example", "MY_TOKEN": "t"}})
    entry = m.user_file().entries[0]
    assert entry.spec is None and "${API_BASE}" in entry.unresolved
    m.user_servers({"api": REMOTE}, trusted=True)
    entry = m.user_file().entries[0]
    assert entry.spec is not None and entry.spec.url == "https://attacker.example/mcp"


def test_wrong_typed_env_blocks_and_values_are_left_out(tmp_path: Path) -> None:
    m = Machine(tmp_path)
    m.user_servers({"tz": TOKEN_SERVER})
    m.user_settings({"env": {"MY_TOKEN": 7, "MCP_TZ": "UTC", "bad name": "x"}})
    m.managed_settings({"env": ["MY_TOKEN=x"]})
    entry = m.user_file().entries[0]
    assert entry.spec is None and entry.unresolved == ("${MY_TOKEN}",)


def test_another_clients_configs_do_not_see_claude_codes_env_block(tmp_path: Path) -> None:
    m = Machine(tmp_path)
    m.user_settings({"env": {"MY_TOKEN": "t"}})
    _write(
        m.cwd / ".cursor" / "mcp.json",
        {"mcpServers": {"s": {"command": "node", "args": ["${env:MY_TOKEN}"]}}},
    )
    found = discover(
        home=m.home,
        cwd=m.cwd,
        platform="linux",
        environ={},
        system_root=m.root,
        clients=["cursor"],
        trust_project=True,
    )
    assert found[0].entries[0].spec is None
    assert found[0].entries[0].unresolved == ("${env:MY_TOKEN}",)


# ---------------------------------------------------------------- the administrator's policy


def _states(cf: ConfigFile) -> dict[str, str | None]:
    return {e.name: (e.disabled_reason if e.disabled else "runs") for e in cf.entries}


SERVERS = {
    "alpha": {"command": "node", "args": ["alpha.js"]},
    "beta": {"command": "node", "args": ["beta.js"]},
    "remote": {"type": "http", "url": "https://mcp.example.com/v1/mcp"},
}


def test_a_denied_server_is_switched_off_naming_the_file(tmp_path: Path) -> None:
    m = Machine(tmp_path)
    m.user_servers(SERVERS)
    m.managed_settings({"deniedMcpServers": [{"serverName": "alpha"}]})
    managed = str(m.root / "etc" / "claude-code" / "managed-settings.json")
    assert _states(m.user_file()) == {
        "alpha": f"deniedMcpServers in {managed}",
        "beta": "runs",
        "remote": "runs",
    }


def test_deny_by_command_and_by_url_pattern(tmp_path: Path) -> None:
    m = Machine(tmp_path)
    m.user_servers(SERVERS)
    m.user_settings(
        {
            "deniedMcpServers": [
                {"serverCommand": ["node", "beta.js"]},
                {"serverUrl": "https://*.example.com/*"},
            ]
        }
    )
    states = _states(m.user_file())
    assert states["alpha"] == "runs"
    assert states["beta"] is not None and states["beta"].startswith("deniedMcpServers")
    assert states["remote"] is not None and states["remote"].startswith("deniedMcpServers")


def test_an_allow_list_keeps_only_what_it_names(tmp_path: Path) -> None:
    m = Machine(tmp_path)
    m.user_servers(SERVERS)
    m.managed_settings({"allowedMcpServers": [{"serverName": "beta"}]})
    states = _states(m.user_file())
    assert states["beta"] == "runs"
    assert states["alpha"] is not None and states["alpha"].startswith("not in allowedMcpServers")
    assert states["remote"] is not None and states["remote"].startswith("not in allowedMcpServers")


def test_a_user_allow_list_extends_the_managed_one_unless_managed_only(tmp_path: Path) -> None:
    m = Machine(tmp_path)
    m.user_servers(SERVERS)
    m.managed_settings({"allowedMcpServers": [{"serverName": "beta"}]})
    m.user_settings({"allowedMcpServers": [{"serverName": "alpha"}]})
    assert _states(m.user_file())["alpha"] == "runs"
    m.managed_settings(
        {"allowedMcpServers": [{"serverName": "beta"}], "allowManagedMcpServersOnly": True}
    )
    assert _states(m.user_file())["alpha"] != "runs"


def test_an_empty_allow_list_allows_nothing_and_deny_beats_allow(tmp_path: Path) -> None:
    m = Machine(tmp_path)
    m.user_servers(SERVERS)
    m.managed_settings({"allowedMcpServers": []})
    cf = m.user_file()
    assert all(e.disabled for e in cf.entries) and cf.state is ConfigState.ALL_DISABLED
    m.managed_settings(
        {
            "allowedMcpServers": [{"serverName": "alpha"}],
            "deniedMcpServers": [{"serverName": "alpha"}],
        }
    )
    assert _states(m.user_file())["alpha"] != "runs"


def test_the_policy_applies_to_the_managed_servers_too(tmp_path: Path) -> None:
    m = Machine(tmp_path)
    m.managed_servers({"alpha": SERVERS["alpha"], "beta": SERVERS["beta"]})
    m.managed_settings({"deniedMcpServers": [{"serverName": "beta"}]})
    found = m.discover()
    managed = next(cf for cf in found if cf.source.endswith("managed-mcp.json"))
    assert _states(managed)["beta"] != "runs" and _states(managed)["alpha"] == "runs"


def test_an_untrusted_project_settings_file_sets_no_policy(tmp_path: Path) -> None:
    m = Machine(tmp_path)
    m.user_servers(SERVERS)
    m.project_settings({"deniedMcpServers": [{"serverName": "alpha"}]})
    assert _states(m.user_file())["alpha"] == "runs"
    m.user_servers(SERVERS, trusted=True)
    assert _states(m.user_file())["alpha"] != "runs"


def test_a_list_entry_it_cannot_read_is_a_problem_line(tmp_path: Path) -> None:
    m = Machine(tmp_path)
    m.user_servers(SERVERS)
    m.user_settings({"deniedMcpServers": [{"serverName": 3}, "alpha"]})
    cf = m.user_file()
    assert _states(cf)["alpha"] == "runs"
    assert (
        sum(
            "deniedMcpServers is not understood" in p or "an entry of deniedMcpServers" in p
            for p in cf.problems
        )
        == 2
    )
