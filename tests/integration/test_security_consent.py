"""Consent before running a project's config: a freshly cloned repository's ``.mcp.json`` and
``.vscode/mcp.json`` launch nothing unless the client itself would run them or the user says so.

Each server's command would create a marker file; the tests clone a real git repository, run
``mcpcost audit`` as a real process with an empty home inside the clone, and look for the files.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mcpcost.audit.compose import audit_configs
from mcpcost.configs.discovery import UNTRUSTED_PROJECT
from tests.helpers.paths import ROOT


def _creates(marker: Path) -> dict[str, object]:
    """A server entry whose command creates ``marker`` (and then exits: a startup failure)."""
    code = f"open({str(marker)!r}, 'w').write('ran')"
    return {"command": sys.executable, "args": ["-c", code]}


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        timeout=60,
    )


def _write(path: Path, obj: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj), "utf-8")


@pytest.fixture
def cloned(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(clone, empty home, marker directory) for a repository with two project configs and a
    project settings file that tries to approve every ``.mcp.json`` server by itself."""
    markers = tmp_path / "markers"
    markers.mkdir()
    origin = tmp_path / "origin"
    origin.mkdir()
    _write(origin / ".mcp.json", {"mcpServers": {"claude-one": _creates(markers / "claude-one")}})
    _write(
        origin / ".vscode" / "mcp.json",
        {"servers": {"vscode-one": {"type": "stdio", **_creates(markers / "vscode-one")}}},
    )
    _write(origin / ".claude" / "settings.json", {"enableAllProjectMcpServers": True})
    _git("init", "-q", "-b", "main", cwd=origin)
    _git("add", "-A", cwd=origin)
    _git("commit", "-q", "-m", "configs", cwd=origin)
    clone = tmp_path / "clone"
    _git("clone", "-q", str(origin), str(clone), cwd=tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    return clone, home, markers


def _audit(clone: Path, home: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "PYTHONPATH": str(ROOT),
    }
    return subprocess.run(
        [sys.executable, "-m", "mcpcost", "audit", "--json", "--timeout", "10", *flags],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _statuses(stdout: str) -> dict[str, tuple[str, str | None]]:
    report = json.loads(stdout)
    return {
        s["name"]: (s["status"], s.get("notes"))
        for c in report["configs"]
        for s in (*c["servers"], *c.get("skipped", ()))
    }


def test_a_cloned_project_launches_nothing_without_consent(cloned: tuple[Path, Path, Path]) -> None:
    clone, home, markers = cloned
    done = _audit(clone, home)
    assert sorted(p.name for p in markers.iterdir()) == []
    assert "--trust-project" in done.stderr
    assert "claude-one" in done.stderr and "vscode-one" in done.stderr
    statuses = _statuses(done.stdout)
    assert statuses["claude-one"] == ("not-launchable", UNTRUSTED_PROJECT)
    assert statuses["vscode-one"] == ("not-launchable", UNTRUSTED_PROJECT)


def test_trust_project_runs_them(cloned: tuple[Path, Path, Path]) -> None:
    clone, home, markers = cloned
    _audit(clone, home, "--trust-project")
    assert sorted(p.name for p in markers.iterdir()) == ["claude-one", "vscode-one"]


def test_an_explicit_config_runs(cloned: tuple[Path, Path, Path]) -> None:
    clone, home, markers = cloned
    _audit(clone, home, "--config", str(clone / ".mcp.json"))
    assert sorted(p.name for p in markers.iterdir()) == ["claude-one"]


def test_claude_codes_own_approval_in_claude_json_runs_that_server(
    cloned: tuple[Path, Path, Path],
) -> None:
    clone, home, markers = cloned
    block = {"enabledMcpjsonServers": ["claude-one"]}
    _write(home / ".claude.json", {"projects": {str(clone): block}})
    _audit(clone, home)
    # Claude Code loads the approved server; VS Code's workspace trust is not on record: not run
    assert sorted(p.name for p in markers.iterdir()) == ["claude-one"]


def test_project_settings_count_once_the_folder_is_trusted(
    cloned: tuple[Path, Path, Path],
) -> None:
    clone, home, markers = cloned
    _audit(clone, home)
    assert list(markers.iterdir()) == []  # the clone's own enableAllProjectMcpServers: ignored
    _write(home / ".claude.json", {"projects": {str(clone): {"hasTrustDialogAccepted": True}}})
    _audit(clone, home)
    assert sorted(p.name for p in markers.iterdir()) == ["claude-one"]


def test_user_settings_approval_runs_and_a_user_disable_wins(
    cloned: tuple[Path, Path, Path],
) -> None:
    clone, home, markers = cloned
    _write(home / ".claude" / "settings.json", {"enabledMcpjsonServers": ["claude-one"]})
    _write(
        home / ".claude.json",
        {"projects": {str(clone): {"disabledMcpjsonServers": ["claude-one"]}}},
    )
    _audit(clone, home)
    assert list(markers.iterdir()) == []


def test_list_configs_names_the_flag_and_launches_nothing(cloned: tuple[Path, Path, Path]) -> None:
    clone, home, markers = cloned
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "mcpcost", "audit", "--list-configs"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("--trust-project") == 2
    assert list(markers.iterdir()) == []
    # the note says once that the server is not launched, and whose rule that is
    held = [line for line in done.stdout.splitlines() if "--trust-project" in line]
    assert len(held) == 2
    for line in held:
        assert line.endswith(f"[{UNTRUSTED_PROJECT}]")
        assert "not launchable" not in line and "not launched" not in line
        assert "by mcpcost" in line and "has not approved" not in line


def test_the_library_call_follows_the_same_rule(cloned: tuple[Path, Path, Path]) -> None:
    clone, home, markers = cloned
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home)}
    report = audit_configs(home=home, cwd=clone, environ=env, timeout_s=10)
    assert list(markers.iterdir()) == []
    notes = {s.name: s.notes for c in report.configs for s in (*c.servers, *c.skipped)}
    assert notes["claude-one"] == UNTRUSTED_PROJECT
    audit_configs(home=home, cwd=clone, environ=env, timeout_s=10, trust_project=True)
    assert sorted(p.name for p in markers.iterdir()) == ["claude-one", "vscode-one"]
