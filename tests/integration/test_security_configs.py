"""Hostile config files, through the real CLI: a YAML alias bomb, thousands of nested brackets in
YAML, JSONC and TOML, each a one-line error; one bad file found by discovery never stops the
others; a ``--config`` TOML file is read as TOML whatever its first line."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.paths import ROOT

MEMORY_LIMIT = 1 << 30  # the alias bomb used to take 3 GB

ALIAS_BOMB = (
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    + "".join(
        f"{n}: &{n} [{','.join([f'*{p}'] * 9)}]\n"
        for p, n in zip("abcdefgh", "bcdefghi", strict=True)
    )
    + "mcpServers:\n  x: {command: echo, args: *i}\n"
)
DEPTH = 5000


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _mcpcost(cwd: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "mcpcost", "audit", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_limit_memory,
    )


def _one_line_error(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, (done.returncode, done.stderr[-500:])
    assert "Traceback" not in done.stderr and "RecursionError" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def test_alias_bomb_is_eleven_lines() -> None:
    assert len(ALIAS_BOMB.splitlines()) == 11


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("bomb.yaml", ALIAS_BOMB, "aliases expand past"),
        ("deep.yaml", "[" * DEPTH + "]" * DEPTH, "nested"),
        ("deep.jsonc", '{"mcpServers": // deep\n' + "[" * DEPTH + "]" * DEPTH + "}", "nest"),
        ("deep.json", '{"mcpServers": {"x": {"args": ' + "[" * DEPTH + "]" * DEPTH + "}}}", "nest"),
        ("deep.toml", "a = " + "[" * DEPTH + "]" * DEPTH + "\n", "nested"),
        ("inline.toml", "a = " + "{b = " * DEPTH + "1" + "}" * DEPTH + "\n", "nested"),
    ],
    ids=["yaml-alias-bomb", "yaml-deep", "jsonc-deep", "json-deep", "toml-deep", "toml-inline"],
)
def test_a_hostile_explicit_config_is_a_one_line_error(
    tmp_path: Path, name: str, text: str, expected: str
) -> None:
    path = tmp_path / name
    path.write_text(text, "utf-8")
    for flags in (["--list-configs"], ["--json"]):
        line = _one_line_error(_mcpcost(tmp_path, tmp_path, *flags, "--config", str(path)))
        assert expected in line and str(path) in line, line


def test_one_bad_file_in_discovery_never_stops_the_others(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    (project / ".continue" / "mcpServers").mkdir(parents=True)
    (project / ".continue" / "mcpServers" / "bomb.yaml").write_text(ALIAS_BOMB, "utf-8")
    (project / ".codex").mkdir()
    (project / ".codex" / "config.toml").write_text("a = " + "[" * DEPTH + "]" * DEPTH, "utf-8")
    (project / ".vscode").mkdir()
    (project / ".vscode" / "mcp.json").write_text("{" * DEPTH + "}" * DEPTH, "utf-8")
    good = {"mcpServers": {"fine": {"command": "echo"}}}
    (project / ".mcp.json").write_text(json.dumps(good), "utf-8")
    done = _mcpcost(project, home, "--list-configs", "--json")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    configs = {Path(c["source"]).name: c for c in json.loads(done.stdout)["configs"]}
    assert configs[".mcp.json"]["state"] == "ok"
    assert [s["name"] for s in configs[".mcp.json"]["servers"]] == ["fine"]
    for bad in ("bomb.yaml", "config.toml", "mcp.json"):
        assert configs[bad]["state"] == "error", configs[bad]
        assert "\n" not in configs[bad]["error"]


@pytest.mark.parametrize("name", ["servers.toml", "servers.conf"])
def test_explicit_toml_opening_with_a_table_is_read_as_toml(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text('[mcp_servers.echo]\ncommand = "echo"\nargs = ["hi"]\n', "utf-8")
    done = _mcpcost(tmp_path, tmp_path, "--list-configs", "--json", "--config", str(path))
    assert done.returncode == 0, done.stderr
    (config,) = json.loads(done.stdout)["configs"]
    assert config["state"] == "ok"
    assert [s["name"] for s in config["servers"]] == ["echo"]
