"""The client registry is the one place that lists clients: every client module is registered,
no other module names a client, and each has a fixture that discovery finds (the newest client,
LM Studio, audited with a real server: tests/integration/test_audit_client_real_server.py)."""

from __future__ import annotations

import ast
import importlib
import json
import pkgutil
from pathlib import Path

import pytest

import mcpcost.configs.clients as clients_package
from mcpcost.configs.clients import CLIENTS, KNOWN_CLIENTS, client_named, parse_config
from mcpcost.configs.clients.client import Client
from mcpcost.configs.discovery import discover
from tests.helpers.client_homes import CONFIGS, EXPECTED, build_home

PACKAGE = Path(clients_package.__file__).parent
MCPCOST = PACKAGE.parent.parent


def _client_modules() -> dict[str, Client]:
    """Every module of the package that defines a ``CLIENT``, by module name."""
    out: dict[str, Client] = {}
    for info in pkgutil.iter_modules([str(PACKAGE)]):
        module = importlib.import_module(f"mcpcost.configs.clients.{info.name}")
        found = getattr(module, "CLIENT", None)
        if isinstance(found, Client):
            out[info.name] = found
    return out


def _string_constants(path: Path) -> set[str]:
    tree = ast.parse(path.read_text("utf-8"))
    return {
        n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    }


def test_every_client_module_is_registered_once() -> None:
    modules = _client_modules()
    assert len(modules) == 15
    assert sorted(c.name for c in modules.values()) == sorted(KNOWN_CLIENTS)
    assert [c.name for c in CLIENTS] == list(KNOWN_CLIENTS)
    assert len(set(KNOWN_CLIENTS)) == len(KNOWN_CLIENTS)
    assert len({c.label for c in CLIENTS}) == len(CLIENTS)
    for module, client in modules.items():
        assert client_named(client.name) is client, module


def test_no_other_module_names_a_client() -> None:
    """A client's name is written in its own module only (the registry reads it from there)."""
    names = set(KNOWN_CLIENTS)
    own = {module: client.name for module, client in _client_modules().items()}
    for path in sorted(PACKAGE.glob("*.py")):
        allowed = {own[path.stem]} if path.stem in own else set()
        assert _string_constants(path) & names <= allowed, path.name
    # the layers that handle configs (transports and sweep use "cursor" for pagination)
    for layer in ("audit", "action", "cli"):
        for path in sorted((MCPCOST / layer).rglob("*.py")):
            if PACKAGE not in path.parents:
                assert not _string_constants(path) & names, path


def test_every_client_has_a_fixture_that_discovery_finds(tmp_path: Path) -> None:
    home, cwd, environ, placed = build_home(tmp_path, "linux")
    assert set(placed.values()) <= set(EXPECTED)
    found = discover(home=home, cwd=cwd, platform="linux", environ=environ)
    by_client: dict[str, list[str]] = {}
    for cf in found:
        by_client.setdefault(cf.client, []).append(cf.source)
    assert set(by_client) == set(KNOWN_CLIENTS)
    for cf in found:
        assert cf.entries, (cf.client, cf.source)


def test_lmstudio_fixture_parses_as_cursor_notation() -> None:
    text = (CONFIGS / "lmstudio-mcp.json").read_text("utf-8")
    from mcpcost.configs.clients import ParseContext

    ctx = ParseContext(environ={}, home="/home/u", cwd="/w")
    cf = parse_config("lmstudio", "/home/u/.lmstudio/mcp.json", text, context=ctx)
    local, hub = cf.entries
    assert local.spec is not None and local.spec.transport == "stdio"
    assert local.spec.argv[:2] == ("npx", "-y")
    assert hub.spec is not None and hub.spec.url == "https://hub.example.com/mcp"
    # LM Studio documents no variable expansion: a reference stays as written
    cf = parse_config(
        "lmstudio",
        "/x/mcp.json",
        json.dumps({"mcpServers": {"s": {"command": "${HOME}/bin/s"}}}),
        context=ParseContext(environ={"HOME": "/h"}, home="/h", cwd="/w"),
    )
    (entry,) = cf.entries
    assert entry.spec is not None and entry.spec.argv[0] == "${HOME}/bin/s"


@pytest.mark.parametrize("platform", ["linux", "darwin", "win32"])
def test_lmstudio_found_in_the_home_directory(tmp_path: Path, platform: str) -> None:
    home, cwd = tmp_path / "home", tmp_path / "project"
    cwd.mkdir()
    (home / ".lmstudio").mkdir(parents=True)
    (home / ".lmstudio" / "mcp.json").write_text((CONFIGS / "lmstudio-mcp.json").read_text())
    (cf,) = discover(home=home, cwd=cwd, platform=platform, environ={}, clients={"lmstudio"})
    assert (cf.client, cf.scope, cf.source) == (
        "lmstudio",
        "user",
        str(home / ".lmstudio" / "mcp.json"),
    )
    assert [e.name for e in cf.entries] == ["local-files", "model-hub"]
