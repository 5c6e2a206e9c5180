"""The test suite's own shape: every test module sits in the folder of its kind, no test module
(nor a benchmark) imports a test module: what several share lives in tests/helpers, or in a
conftest as a fixture; and no test module finds the repository from its own place (its
``__file__``, one level off once it moves): tests/helpers/paths.py holds the directories."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers.paths import ROOT, TESTS

KINDS = ("unit", "integration", "e2e")
INSTALLED = ("node_modules", ".venv")  # what scripts/setup-test-env.sh puts under tests/


def _ours(pattern: str, under: Path = TESTS) -> list[Path]:
    return sorted(
        path
        for path in under.rglob(pattern)
        if not any(part in INSTALLED for part in path.relative_to(under).parts)
    )


def _is_test_module(name: str) -> bool:
    return name.rsplit(".", 1)[-1].startswith("test_")


def imported_test_modules(source: str) -> list[str]:
    """The test modules (``test_*``) that ``source`` imports, by module name."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if _is_test_module(alias.name)]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if _is_test_module(module):
                found.append(module)
            found += [
                f"{module}.{alias.name}" for alias in node.names if _is_test_module(alias.name)
            ]
    return found


def test_the_import_scan_finds_each_spelling() -> None:
    source = (
        "import tests.unit.test_a\nfrom tests.unit.test_b import helper\n"
        "from tests.unit import test_c\nfrom . import test_d\nfrom .test_e import x\n"
        "from tests.helpers.audit_builders import tools\nimport test_f as f\n"
    )
    assert imported_test_modules(source) == [
        "tests.unit.test_a",
        "tests.unit.test_b",
        "tests.unit.test_c",
        ".test_d",
        "test_e",
        "test_f",
    ]


def test_test_modules_sit_in_their_kind_folder_and_none_is_imported() -> None:
    strays = [
        str(path.relative_to(TESTS))
        for path in _ours("test_*.py")
        if path.relative_to(TESTS).parts[0] not in KINDS
    ]
    importers = {
        str(path.relative_to(ROOT)): imported
        for path in [*_ours("*.py"), *_ours("*.py", ROOT / "bench")]
        if (imported := imported_test_modules(path.read_text("utf-8")))
    }
    self_located = [
        str(path.relative_to(TESTS))
        for path in _ours("test_*.py")
        if any(
            isinstance(node, ast.Name) and node.id == "__file__"
            for node in ast.walk(ast.parse(path.read_text("utf-8")))
        )
    ]
    assert strays == []
    assert importers == {}
    assert self_located == []
