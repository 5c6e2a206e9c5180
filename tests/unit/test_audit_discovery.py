"""Discovery: every client's config found on each OS's paths in a temporary home, and read."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mcpcost.configs.clients import KNOWN_CLIENTS, ParseContext
from mcpcost.configs.config_file import ConfigFile, ConfigState
from mcpcost.configs.discovery import (
    PROJECT_CONFIG_PATHS,
    config_listing,
    discover,
    load_explicit,
    locations,
    parse_project_config,
    project_client,
)
from tests.helpers.client_homes import CONFIGS, ENVIRON, EXPECTED, build_home, place_config


def _shape(cf: ConfigFile) -> dict[str, str]:
    return {
        e.name: "off" if e.disabled else ("ok" if e.spec is not None else "problem")
        for e in cf.entries
    }


@pytest.mark.parametrize("platform", ["linux", "darwin", "win32"])
def test_every_client_found_on_each_platform(tmp_path: Path, platform: str) -> None:
    home, cwd, environ, placed = build_home(tmp_path, platform)
    found = discover(
        home=home,
        cwd=cwd,
        platform=platform,
        environ=environ,
        system_root=tmp_path / "sys",
        trust_project=True,
    )
    by_source = {Path(cf.source): cf for cf in found}
    assert set(by_source) == set(placed), "every placed file found, nothing else"
    for path, fixture in placed.items():
        cf = by_source[path]
        assert cf.state is not ConfigState.ERROR, (path, cf.error)
        assert _shape(cf) == EXPECTED[fixture], (platform, path)
    assert {cf.client for cf in found} == set(KNOWN_CLIENTS)
    scopes = {Path(cf.source): cf.scope for cf in found}
    assert scopes[cwd / ".mcp.json"] == "project"
    assert scopes[home / ".claude.json"] == "user"


def test_client_filter_and_unknown_client(tmp_path: Path) -> None:
    home, cwd, environ, _ = build_home(tmp_path, "linux")
    found = discover(home=home, cwd=cwd, platform="linux", environ=environ, clients=["codex"])
    assert [cf.client for cf in found] == ["codex"]
    with pytest.raises(ValueError, match="nosuch"):
        discover(home=home, cwd=cwd, platform="linux", environ=environ, clients=["nosuch"])


def test_env_overrides_for_codex_claude_and_copilot_homes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    codex_home = tmp_path / "codexhome"
    place_config(codex_home / "config.toml", "codex-config.toml", cwd)
    place_config(
        home / ".codex" / "config.toml", "codex-config.toml", cwd
    )  # not read: CODEX_HOME wins
    copilot_home = tmp_path / "cop"
    place_config(copilot_home / "mcp-config.json", "copilot-mcp-config.json", cwd)
    environ = {"CODEX_HOME": str(codex_home), "COPILOT_HOME": str(copilot_home)}
    found = discover(home=home, cwd=cwd, platform="linux", environ=environ)
    copilot_file = str(copilot_home / "mcp-config.json")
    assert sorted((cf.client, cf.source) for cf in found) == sorted(
        [
            ("codex", str(codex_home / "config.toml")),
            ("copilot", copilot_file),
            ("github-app", copilot_file),  # the Copilot app reads the CLI's file
        ]
    )


def test_settings_files_without_mcp_block_are_not_listed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    cwd = tmp_path / "cwd"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text('{"theme": "dark"}')
    (cwd / ".zed").mkdir(parents=True)
    (cwd / ".zed" / "settings.json").write_text("// nothing\n{}")
    (home / ".cursor").mkdir()
    (home / ".cursor" / "mcp.json").write_text("{}")  # a dedicated MCP file: listed anyway
    found = discover(home=home, cwd=cwd, platform="linux", environ={})
    assert [(cf.client, cf.state) for cf in found] == [("cursor", ConfigState.DECLARES_NOTHING)]


def test_managed_and_system_files_under_system_root(tmp_path: Path) -> None:
    root = tmp_path / "sys"
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    place_config(root / "etc" / "claude-code" / "managed-mcp.json", "dot-mcp.json", cwd)
    place_config(root / "etc" / "gemini-cli" / "settings.json", "gemini-settings.json", cwd)
    found = discover(home=tmp_path / "h", cwd=cwd, platform="linux", environ={}, system_root=root)
    assert {(cf.client, cf.scope) for cf in found} == {
        ("claude-code", "managed"),
        ("gemini", "managed"),
    }


def test_windows_msix_claude_desktop_and_vscode_profiles(tmp_path: Path) -> None:
    home = tmp_path / "home"
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    local = tmp_path / "local"
    msix = local / "Packages/Claude_pzs8sxrjxfjjc/LocalCache/Roaming/Claude"
    place_config(msix / "claude_desktop_config.json", "claude_desktop_config.json", cwd)
    profile = home / "AppData/Roaming/Code - Insiders/User/profiles/3f2a/mcp.json"
    place_config(profile, "vscode-mcp.jsonc", cwd)
    found = discover(home=home, cwd=cwd, platform="win32", environ={"LOCALAPPDATA": str(local)})
    assert sorted(Path(cf.source) for cf in found) == sorted(
        [msix / "claude_desktop_config.json", profile]
    )


# ---------------------------------------------------------------- unreadable files


def test_directory_in_place_of_file_is_an_error(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".cursor" / "mcp.json").mkdir(parents=True)
    found = discover(home=home, cwd=tmp_path, platform="linux", environ={})
    assert len(found) == 1
    assert found[0].state is ConfigState.ERROR
    assert found[0].error == "cannot read: is a directory"


def test_broken_symlink_is_an_error(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".codeium" / "windsurf").mkdir(parents=True)
    os.symlink(tmp_path / "gone.json", home / ".codeium" / "windsurf" / "mcp_config.json")
    found = discover(home=home, cwd=tmp_path, platform="linux", environ={})
    assert [(cf.client, cf.state, cf.error) for cf in found] == [
        ("windsurf", ConfigState.ERROR, "cannot read: broken symbolic link")
    ]


def test_not_utf8_and_broken_json_are_errors_with_position(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".cursor").mkdir(parents=True)
    (home / ".cursor" / "mcp.json").write_bytes(b'{"mcpServers": {"\xff": {}}}')
    (home / ".copilot").mkdir()
    (home / ".copilot" / "mcp-config.json").write_text('{\n  "mcpServers": {\n    "a": {,}\n')
    found = {
        cf.client: cf for cf in discover(home=home, cwd=tmp_path, platform="linux", environ={})
    }
    assert found["cursor"].state is ConfigState.ERROR
    assert "not UTF-8" in (found["cursor"].error or "")
    assert found["copilot"].state is ConfigState.ERROR
    assert "line 3 column 11" in (found["copilot"].error or "")


# ---------------------------------------------------------------- Claude Code project key


def _claude_with_key(home: Path, key: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    data = {"projects": {key: {"mcpServers": {"local": {"command": "echo"}}}}}
    (home / ".claude.json").write_text(json.dumps(data))


@pytest.mark.parametrize("suffix", ["", "/", "//"])
def test_claude_project_key_trailing_slash(tmp_path: Path, suffix: str) -> None:
    cwd = tmp_path / "proj"
    cwd.mkdir()
    _claude_with_key(tmp_path / "home", str(cwd) + suffix)
    (cf,) = discover(home=tmp_path / "home", cwd=cwd, platform="linux", environ={})
    assert [e.name for e in cf.entries] == ["local"]


def test_claude_project_key_through_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real" / "proj"
    real.mkdir(parents=True)
    link = tmp_path / "link"
    os.symlink(tmp_path / "real", link)
    _claude_with_key(tmp_path / "home", str(real))
    (cf,) = discover(home=tmp_path / "home", cwd=link / "proj", platform="linux", environ={})
    assert [e.name for e in cf.entries] == ["local"]
    # and the other way round: the key names the link, the shell sits in the real directory
    _claude_with_key(tmp_path / "home", str(link / "proj"))
    (cf,) = discover(home=tmp_path / "home", cwd=real, platform="linux", environ={})
    assert [e.name for e in cf.entries] == ["local"]


def test_claude_project_key_other_project_not_used(tmp_path: Path) -> None:
    cwd = tmp_path / "proj"
    cwd.mkdir()
    _claude_with_key(tmp_path / "home", str(tmp_path / "proj-other"))
    (cf,) = discover(home=tmp_path / "home", cwd=cwd, platform="linux", environ={})
    assert cf.state is ConfigState.DECLARES_NOTHING


# ---------------------------------------------------------------- explicit and project configs


def _ctx(tmp_path: Path) -> ParseContext:
    return ParseContext(environ=ENVIRON, home=str(tmp_path), cwd=str(tmp_path))


@pytest.mark.parametrize(
    ("fixture", "expected"),
    [
        ("claude_desktop_config.json", {"filesystem": "ok", "github": "ok", "linear": "ok"}),
        ("codex-config.toml", EXPECTED["codex-config.toml"]),
        ("goose-config.yaml", EXPECTED["goose-config.yaml"]),
        ("continue-config.yaml", EXPECTED["continue-config.yaml"]),
        ("zed-settings.json", EXPECTED["zed-settings.json"]),
        ("opencode.json", EXPECTED["opencode.json"]),
        ("vscode-mcp.jsonc", EXPECTED["vscode-mcp.jsonc"]),
        ("vscode-settings.json", EXPECTED["vscode-settings.json"]),
    ],
)
def test_explicit_config_shape_by_content(
    tmp_path: Path, fixture: str, expected: dict[str, str]
) -> None:
    dest = tmp_path / "renamed.conf"  # the name says nothing: content decides
    dest.write_bytes((CONFIGS / fixture).read_bytes())
    (cf,) = load_explicit([dest], context=_ctx(tmp_path))
    assert cf.client == "explicit" and cf.scope == "explicit"
    assert _shape(cf) == expected


def test_explicit_missing_file_says_no_such_file(tmp_path: Path) -> None:
    (cf,) = load_explicit([tmp_path / "missing.json"], context=_ctx(tmp_path))
    assert cf.state is ConfigState.ERROR
    assert cf.error == f"no such file: {tmp_path / 'missing.json'}"
    assert "standard locations" not in (cf.error or "")


def test_explicit_garbage_is_an_error_not_a_crash(tmp_path: Path) -> None:
    dest = tmp_path / "x"
    dest.write_text("key: [unclosed\n  - : :")
    (cf,) = load_explicit([dest], context=_ctx(tmp_path))
    assert cf.state is ConfigState.ERROR
    assert "line" in (cf.error or "")


def test_project_config_paths_map_to_clients() -> None:
    assert ".mcp.json" in PROJECT_CONFIG_PATHS
    assert ".codex/config.toml" in PROJECT_CONFIG_PATHS
    assert project_client(".continue/mcpServers/pw.yaml") == "continue"
    assert project_client(".continue/mcpServers/sub/pw.yaml") is None
    assert project_client("./.vscode/mcp.json") == "vscode"
    assert project_client("src/.mcp.json") is None
    for path in PROJECT_CONFIG_PATHS:
        assert project_client(path.replace("*", "x")) is not None


def test_parse_project_config_from_blob_text(tmp_path: Path) -> None:
    text = (CONFIGS / "codex-config.toml").read_text()
    cf = parse_project_config(".codex/config.toml", text, _ctx(tmp_path))
    assert (cf.client, cf.scope, cf.source) == ("codex", "project", ".codex/config.toml")
    assert _shape(cf) == EXPECTED["codex-config.toml"]
    other = parse_project_config(
        "tools/mcp.json", '{"mcpServers": {"a": {"command": "x"}}}', _ctx(tmp_path)
    )
    assert other.client == "explicit" and _shape(other) == {"a": "ok"}


def test_config_listing_names_only(tmp_path: Path) -> None:
    home, cwd, environ, _ = build_home(tmp_path, "linux")
    files = discover(home=home, cwd=cwd, platform="linux", environ=environ, clients=["windsurf"])
    (listing,) = config_listing(files)
    assert (listing.client, listing.state) == ("windsurf", "ok")
    lines = {s.name: s for s in listing.servers}
    assert lines["puppeteer"].disabled
    assert lines["brave-search"].note == "unresolved ${file:/home/me/.secrets/brave} in env"
    assert not lines["brave-search"].launchable
    assert lines["figma"].line == 3
    assert "figma-value" not in repr(listing)


def test_locations_rejects_unknown_platform(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        locations(home=tmp_path, cwd=tmp_path, platform="beos", environ={})


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_file_without_read_permission_is_an_error(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".cursor").mkdir(parents=True)
    target = home / ".cursor" / "mcp.json"
    target.write_text("{}")
    target.chmod(0)
    try:
        (cf,) = discover(home=home, cwd=tmp_path, platform="linux", environ={})
    finally:
        target.chmod(0o600)
    assert cf.state is ConfigState.ERROR and cf.error == "cannot read: Permission denied"


def test_explicit_directory_and_broken_symlink(tmp_path: Path) -> None:
    os.symlink(tmp_path / "nowhere", tmp_path / "dangling.json")
    files = load_explicit([tmp_path, tmp_path / "dangling.json"], context=_ctx(tmp_path))
    assert [cf.error for cf in files] == [
        "cannot read: is a directory",
        "cannot read: broken symbolic link",
    ]


@pytest.mark.parametrize("platform", ["linux", "darwin", "win32"])
def test_discovery_looks_for_every_project_file_the_action_reads(platform: str) -> None:
    cwd = Path("/repo")
    found = {
        (loc.client, loc.pattern.relative_to(cwd).as_posix())
        for loc in locations(home=Path("/h"), cwd=cwd, platform=platform, environ={})
        if loc.scope == "project"
    }
    expected = {(project_client(p), p) for p in PROJECT_CONFIG_PATHS}
    assert expected <= found
    assert found - expected == {("vscode", ".vscode/settings.json")}  # the legacy "mcp" block


# ---------------------------------------------------------------- Claude Code .mcp.json approval

NOT_APPROVED_NOTE = "not approved in any settings file: Claude Code asks before loading it"


def _project(tmp_path: Path, *names: str) -> tuple[Path, Path, Path]:
    """A temp home, a project with ``.mcp.json`` declaring ``names``, and a system root."""
    home, cwd, root = tmp_path / "home", tmp_path / "proj", tmp_path / "root"
    for d in (home, cwd, root):
        d.mkdir()
    servers = {n: {"command": "node", "args": [f"{n}.js"]} for n in names}
    (cwd / ".mcp.json").write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    return home, cwd, root


def _settings(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def _dot_mcp(home: Path, cwd: Path, root: Path, *, trust: bool = True) -> ConfigFile:
    files = discover(
        home=home,
        cwd=cwd,
        platform="linux",
        environ={},
        clients={"claude-code"},
        system_root=root,
        trust_project=trust,
    )
    (found,) = [f for f in files if f.source == str(cwd / ".mcp.json")]
    return found


def _approval_shape(cf: ConfigFile) -> dict[str, str]:
    out = {}
    for e in cf.entries:
        if e.disabled:
            out[e.name] = f"off: {e.disabled_reason}"
        elif NOT_APPROVED_NOTE in e.notes:
            out[e.name] = "asks"
        else:
            out[e.name] = "approved"
    return out


def test_no_settings_at_all_flags_every_project_server(tmp_path: Path) -> None:
    home, cwd, root = _project(tmp_path, "a", "b")
    cf = _dot_mcp(home, cwd, root)
    assert _approval_shape(cf) == {"a": "asks", "b": "asks"}
    assert cf.state is ConfigState.OK
    assert all(e.spec is not None for e in cf.entries), "measured when the user trusts it"
    untrusted = _dot_mcp(home, cwd, root, trust=False)
    assert all(e.spec is None for e in untrusted.entries), "not launched without consent"


def test_enabled_list_in_each_settings_file_approves(tmp_path: Path) -> None:
    home, cwd, root = _project(tmp_path, "local", "proj", "user", "managed", "none")
    _settings(cwd / ".claude" / "settings.local.json", {"enabledMcpjsonServers": ["local"]})
    _settings(cwd / ".claude" / "settings.json", {"enabledMcpjsonServers": ["proj"]})
    _settings(home / ".claude" / "settings.json", {"enabledMcpjsonServers": ["user"]})
    _settings(
        root / "etc/claude-code/managed-settings.json", {"enabledMcpjsonServers": ["managed"]}
    )
    assert _approval_shape(_dot_mcp(home, cwd, root)) == {
        "local": "approved",
        "proj": "approved",
        "user": "approved",
        "managed": "approved",
        "none": "asks",
    }


def test_disabled_wins_over_enabled_and_names_the_file(tmp_path: Path) -> None:
    home, cwd, root = _project(tmp_path, "a", "b", "c")
    local = _settings(
        cwd / ".claude" / "settings.local.json",
        {"enabledMcpjsonServers": ["a", "b"], "enableAllProjectMcpServers": True},
    )
    user = _settings(home / ".claude" / "settings.json", {"disabledMcpjsonServers": ["a"]})
    _settings(cwd / ".claude" / "settings.json", {"disabledMcpjsonServers": ["c"]})
    cf = _dot_mcp(home, cwd, root)
    assert _approval_shape(cf) == {
        "a": f"off: disabled in {user}",
        "b": "approved",
        "c": f"off: disabled in {cwd / '.claude' / 'settings.json'}",
    }
    assert cf.disabled_names == ("a", "c")
    assert local.exists()


def test_enable_all_approves_and_the_highest_precedence_file_decides(tmp_path: Path) -> None:
    home, cwd, root = _project(tmp_path, "a", "b")
    _settings(home / ".claude" / "settings.json", {"enableAllProjectMcpServers": True})
    assert _approval_shape(_dot_mcp(home, cwd, root)) == {"a": "approved", "b": "approved"}
    _settings(
        cwd / ".claude" / "settings.json",
        {"enableAllProjectMcpServers": False, "enabledMcpjsonServers": ["b"]},
    )
    assert _approval_shape(_dot_mcp(home, cwd, root)) == {"a": "asks", "b": "approved"}


def test_every_project_server_disabled_makes_the_file_all_disabled(tmp_path: Path) -> None:
    home, cwd, root = _project(tmp_path, "a")
    _settings(cwd / ".claude" / "settings.local.json", {"disabledMcpjsonServers": ["a"]})
    cf = _dot_mcp(home, cwd, root)
    assert cf.state is ConfigState.ALL_DISABLED
    assert cf.live_entries == ()


def test_unreadable_or_wrong_typed_settings_are_problems(tmp_path: Path) -> None:
    home, cwd, root = _project(tmp_path, "a", "b")
    broken = _settings(cwd / ".claude" / "settings.local.json", "{not json")
    odd = _settings(
        home / ".claude" / "settings.json",
        {
            "enabledMcpjsonServers": "a",
            "disabledMcpjsonServers": [1],
            "enableAllProjectMcpServers": "yes",
        },
    )
    cf = _dot_mcp(home, cwd, root)
    assert _approval_shape(cf) == {"a": "asks", "b": "asks"}
    assert cf.problems == (
        f"settings file {broken} cannot be read: its approvals are unknown",
        f"settings file {odd}: enableAllProjectMcpServers is not true or false (ignored)",
        f"settings file {odd}: enabledMcpjsonServers is not a list of server names (ignored)",
        f"settings file {odd}: disabledMcpjsonServers is not a list of server names (ignored)",
    )


def test_approval_applies_only_to_the_project_mcp_json(tmp_path: Path) -> None:
    home, cwd, root = _project(tmp_path, "p")
    (home / ".claude.json").write_text(
        json.dumps({"mcpServers": {"u": {"command": "x"}}}), encoding="utf-8"
    )
    _settings(home / ".claude" / "settings.json", {"disabledMcpjsonServers": ["u", "p"]})
    files = discover(home=home, cwd=cwd, platform="linux", environ={}, system_root=root)
    (user,) = [f for f in files if f.source == str(home / ".claude.json")]
    assert user.entries[0].disabled is False and user.entries[0].notes == ()
    (project,) = [f for f in files if f.source == str(cwd / ".mcp.json")]
    assert project.entries[0].disabled is True


def test_approval_settings_can_be_passed_in(tmp_path: Path) -> None:
    from mcpcost.configs.clients.settings_files import (
        ClientSettings,
        ReadState,
        SettingsLayer,
        SettingsText,
    )

    home, cwd, _root = _project(tmp_path, "a", "b")
    user = SettingsText(
        layer=SettingsLayer.USER,
        path="/x/settings.json",
        state=ReadState.READ,
        text=b'{"enabledMcpjsonServers": ["a"]}',
    )
    given = {"claude-code": ClientSettings(files=(user,))}
    (cf,) = [
        f
        for f in discover(home=home, cwd=cwd, platform="linux", environ={}, settings=given)
        if f.source.endswith(".mcp.json")
    ]
    assert _approval_shape(cf) == {"a": "approved", "b": "asks"}


def test_approval_and_deferral_read_one_set_of_settings_files_each_once(tmp_path: Path) -> None:
    from mcpcost.configs.clients import Places, client_named
    from mcpcost.configs.clients.claude_code import settings_paths
    from mcpcost.configs.clients.settings_files import read_settings

    home, cwd = tmp_path / "h", tmp_path / "c"
    read: list[str] = []

    def reader(path: str) -> bytes | None:
        read.append(path)
        return None

    at = Places.build(home=home, cwd=cwd, platform="linux", environ={})
    got = read_settings(client_named("claude-code").settings_files(at), reader)
    expected = settings_paths(home=str(home), cwd=str(cwd), platform="linux", environ={})
    # the four settings files both hooks read, then the project block's ~/.claude.json
    assert read == [p for _, p in expected] + [str(home / ".claude.json")]
    assert [(s.layer, s.state) for s in got.files] == [
        *((layer, "absent") for layer, _ in expected),
        ("client-state", "absent"),
    ]


def test_env_file_read_during_discovery(tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "proj"
    (cwd / ".cursor").mkdir(parents=True)
    home.mkdir()
    (cwd / ".cursor" / ".env").write_text("TOKEN=envfile-discovery-secret\n", encoding="utf-8")
    (cwd / ".cursor" / "mcp.json").write_text(
        json.dumps({"mcpServers": {"s": {"command": "x", "envFile": ".env"}}}), encoding="utf-8"
    )
    (cf,) = discover(
        home=home, cwd=cwd, platform="linux", environ={}, clients={"cursor"}, trust_project=True
    )
    spec = cf.entries[0].spec
    assert spec is not None and dict(spec.env) == {"TOKEN": "envfile-discovery-secret"}
    (cf,) = load_explicit([cwd / ".cursor" / "mcp.json"], context=_ctx(tmp_path))
    spec = cf.entries[0].spec
    assert spec is not None and dict(spec.env) == {"TOKEN": "envfile-discovery-secret"}


def test_config_listing_carries_approval_and_env_file_notes(tmp_path: Path) -> None:
    home, cwd, root = _project(tmp_path, "a", "b")
    user = _settings(home / ".claude" / "settings.json", {"disabledMcpjsonServers": ["a"]})
    (listing,) = config_listing([_dot_mcp(home, cwd, root)])
    notes = {s.name: (s.disabled, s.launchable, s.note) for s in listing.servers}
    assert notes == {
        "a": (True, True, f"disabled in {user}"),
        "b": (False, True, NOT_APPROVED_NOTE),
    }
