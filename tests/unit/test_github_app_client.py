"""The GitHub Copilot app as a client: it reads the Copilot CLI's ``~/.copilot/mcp-config.json``
(``$COPILOT_HOME`` moves it) as a session of its own, and whether it defers tool definitions
is the vendor's to decide: the posture is ``vendor-gated`` whatever this machine holds, and
the audit claims no up-front figure from it."""

from __future__ import annotations

import json
from pathlib import Path

from mcpcost.audit.deferral import DeferralServer, LoadInputs, decide
from mcpcost.configs.clients import client_named, presentation_of
from mcpcost.configs.clients.presentation import DeferralMode, LoadVerdict
from mcpcost.configs.discovery import discover

CONFIG = {
    "mcpServers": {
        "gh": {"command": "node", "args": ["gh.js"], "tools": ["search"], "deferTools": "auto"},
        "web": {"type": "http", "url": "https://mcp.example.com/mcp"},
    }
}


def _place(base: Path) -> Path:
    path = base / "mcp-config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(CONFIG), "utf-8")
    return path


def test_it_reads_the_copilot_file_as_its_own_session(tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "cwd"
    cwd.mkdir()
    path = _place(home / ".copilot")
    found = discover(home=home, cwd=cwd, platform="linux", environ={}, clients=["github-app"])
    (cf,) = found
    assert (cf.client, cf.source, cf.scope) == ("github-app", str(path), "user")
    gh, web = cf.entries
    assert gh.spec is not None and gh.spec.argv == ("node", "gh.js")
    assert gh.enabled_tools == ("search",)
    assert web.spec is not None and web.spec.url == "https://mcp.example.com/mcp"
    assert client_named("github-app").label == "GitHub Copilot app"


def test_copilot_home_moves_it(tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "cwd"
    cwd.mkdir()
    _place(home / ".copilot")  # not read: COPILOT_HOME wins
    moved = _place(tmp_path / "elsewhere")
    found = discover(
        home=home,
        cwd=cwd,
        platform="linux",
        environ={"COPILOT_HOME": str(tmp_path / "elsewhere")},
        clients=["github-app"],
    )
    assert [cf.source for cf in found] == [str(moved)]


def test_its_deferral_is_vendor_gated_whatever_the_machine_says() -> None:
    model = presentation_of("github-app").deferral
    assert model is not None
    for shell in ({}, {"ENABLE_TOOL_SEARCH": "true"}, {"COPILOT_TOOL_SEARCH": "1"}):
        for settings in (None, ()):
            posture = model.resolve(shell, settings)
            assert posture.mode is DeferralMode.VENDOR_GATED
            assert posture.setting.read_from_machine is False
    assert not DeferralMode.VENDOR_GATED.defers
    assert "github/app/issues/3172" in model.provenance.source
    assert model.provenance.confidence == "reported"


def test_the_verdict_cannot_be_said_and_names_the_vendors_gating() -> None:
    model = presentation_of("github-app").deferral
    assert model is not None
    inputs = LoadInputs(
        client="github-app",
        sources=("~/.copilot/mcp-config.json",),
        servers=(DeferralServer(name="gh", tokens=151_111),),
        context_window=200_000,
        posture=model.resolve({"ENABLE_TOOL_SEARCH": "true"}, None),
    )
    loading = decide(inputs, presentation_of("github-app"), tool_count=40)
    assert loading.mode is DeferralMode.VENDOR_GATED
    assert loading.verdict is LoadVerdict.CANNOT_BE_SAID
    assert loading.mechanism == "tool-search"
    assert "vendor decides per account" in loading.condition
    assert any("github/app/issues/3172" in (e.source or "") for e in loading.evidence)
