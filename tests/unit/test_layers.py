"""The package's layers import downward only; pure modules do no IO.

cli | action  ->  render | sweep  ->  audit  ->  configs  ->  measuring  ->  transports  ->  auth
  ->  runtime  ->  core  ->  errors
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers.paths import PACKAGE

RANK = {
    "errors": 0,
    "core": 1,
    "runtime": 2,
    "auth": 3,
    "transports": 4,
    "measuring": 5,
    "configs": 6,
    "audit": 7,
    "render": 8,
    "sweep": 8,
    "cli": 9,
    "action": 9,
}
IO_MODULES = {"subprocess", "socket", "requests", "docker", "http", "urllib.request", "shutil"}


def _layer(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "mcpcost" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in RANK else None


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text("utf-8"))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def _modules() -> list[tuple[str, Path]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        out.append((".".join(rel.parts), path))
    return out


def test_layers_import_downward_only() -> None:
    problems = []
    for module, path in _modules():
        own = _layer(module)
        if own is None:
            continue
        for imported in _imports(path):
            other = _layer(imported)
            if other is None or other == own:
                continue
            if RANK[other] >= RANK[own]:
                problems.append(f"{module} imports {imported}")
    assert problems == []


def test_core_does_no_io() -> None:
    problems = []
    for module, path in _modules():
        if _layer(module) != "core":
            continue
        for imported in _imports(path):
            if imported in IO_MODULES or imported.split(".")[0] in {
                "subprocess",
                "requests",
                "docker",
                "socket",
            }:
                problems.append(f"{module} imports {imported}")
    assert problems == []
