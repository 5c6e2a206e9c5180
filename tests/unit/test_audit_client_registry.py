"""The client registry is the one place that lists clients: every client module is registered,
no other module names or imports a client, and each has a fixture that discovery finds (the
newest client, LM Studio, is audited with a real server in
tests/integration/test_audit_client_real_server.py)."""

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
    assert len(modules) == 16
    assert sorted(c.name for c in modules.values()) == sorted(KNOWN_CLIENTS)
    assert [c.name for c in CLIENTS] == list(KNOWN_CLIENTS)
    assert len(set(KNOWN_CLIENTS)) == len(KNOWN_CLIENTS)
    assert len({c.label for c in CLIENTS}) == len(CLIENTS)
    for module, client in modules.items():
        assert client_named(client.name) is client, module


# the MCP pagination parameter shares a client's name; no client is meant where it is written
PAGINATION = {"cursor"}
PAGINATION_LAYERS = ("transports", "sweep")


def _client_imports(path: Path, modules: set[str]) -> set[str]:
    """The client modules ``path`` imports (``import``/``from`` forms, relative ones too)."""
    found: set[str] = set()
    prefix = "mcpcost.configs.clients"
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolve against the importing module's package
                parts = list(path.relative_to(MCPCOST.parent).with_suffix("").parts)
                base = ".".join([*parts[: len(parts) - node.level], *([base] if base else [])])
            names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        for name in names:
            if name.startswith(prefix + "."):
                head = name[len(prefix) + 1 :].split(".")[0]
                if head in modules:
                    found.add(head)
    return found


def test_no_client_is_named_or_imported_outside_its_module_and_the_registry() -> None:
    """Shared code reaches a client only through its ``Client`` hooks: no client's name is a
    string literal, and no client's module is imported, anywhere in the package but that
    client's own module (or package) and the registry, which imports every one and names none."""
    names = set(KNOWN_CLIENTS)
    own = {module: client.name for module, client in _client_modules().items()}
    problems: list[str] = []
    for path in sorted(MCPCOST.rglob("*.py")):
        rel = path.relative_to(PACKAGE) if PACKAGE in path.parents else None
        home = rel.parts[0].removesuffix(".py") if rel is not None else None
        allowed_names = {own[home]} if home in own else set()
        layer = path.relative_to(MCPCOST).parts[0]
        if layer in PAGINATION_LAYERS:
            allowed_names |= PAGINATION
        spelled = _string_constants(path) & names - allowed_names
        if spelled:
            problems.append(f"{path.relative_to(MCPCOST)} names {sorted(spelled)}")
        if home == "registry":
            continue
        imported = _client_imports(path, set(own)) - ({home} if home in own else set())
        if imported:
            problems.append(f"{path.relative_to(MCPCOST)} imports {sorted(imported)}")
    assert problems == []


def test_the_name_check_sees_literals_and_imports(tmp_path: Path) -> None:
    """Not vacuous: both checks find what they look for."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import mcpcost.configs.clients.zed\n"
        "from mcpcost.configs.clients import cursor\n"
        "from mcpcost.configs.clients.claude_code.tool_search import DEFERRAL\n"
        "NAME = 'cursor'\n",
        "utf-8",
    )
    assert _string_constants(probe) & set(KNOWN_CLIENTS) == {"cursor"}
    assert _client_imports(probe, set(_client_modules())) == {"cursor", "claude_code", "zed"}


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
