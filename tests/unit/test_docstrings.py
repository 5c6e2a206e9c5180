"""Docstrings stay true about the modules they name.

Every module and package docstring of ``mcpcost`` is read for what it names: a dotted
``mcpcost.x.y`` (a module, or a name a module defines), a ``file.py`` (bare, or a path from the
repository root or from ``mcpcost/``), and, in a subpackage's docstring, the bulleted list of
its modules (``* ``name``  what it is``, or several to a line: ``; ``other``: what it is``),
which must name every module there is and no other.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.helpers.paths import PACKAGE, ROOT

DOTTED = re.compile(r"\bmcpcost(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
PY_FILE = re.compile(r"(?<![\w/.-])((?:[A-Za-z0-9_.-]+/)*[A-Za-z_][A-Za-z0-9_]*\.py)\b")
BULLET = re.compile(r"^\s*\*\s+``([a-z_][a-z0-9_]*)``(.*)$", re.MULTILINE)
ALSO = re.compile(r";\s+``([a-z_][a-z0-9_]*)``:")
SKIPPED_DIRS = {".venv", "node_modules", ".git", "__pycache__"}


def docstring(path: Path) -> str:
    return ast.get_docstring(ast.parse(path.read_text("utf-8"))) or ""


def module_file(dotted: str) -> Path | None:
    base = ROOT.joinpath(*dotted.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def defines(path: Path, name: str) -> bool:
    for node in ast.parse(path.read_text("utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if node.name == name:
                return True
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return True
        elif isinstance(node, ast.Import | ast.ImportFrom):
            if any((a.asname or a.name.split(".")[0]) == name for a in node.names):
                return True
    return False


def dotted_exists(dotted: str) -> bool:
    """``mcpcost.a.b`` is a module, or ``mcpcost.a.b.name`` a name module ``mcpcost.a.b`` defines."""
    parts = dotted.split(".")
    for end in range(len(parts), 1, -1):
        found = module_file(".".join(parts[:end]))
        if found is not None:
            rest = parts[end:]
            return not rest or (len(rest) == 1 and defines(found, rest[0]))
    return False


def repository_files() -> set[str]:
    return {p.name for p in ROOT.rglob("*.py") if not SKIPPED_DIRS & set(p.relative_to(ROOT).parts)}


def listed_modules(text: str) -> set[str]:
    listed: set[str] = set()
    for first, rest in BULLET.findall(text):
        listed |= {first, *ALSO.findall(rest)}
    return listed


def modules_of(package: Path) -> set[str]:
    return {
        p.stem if p.is_file() else p.name
        for p in package.iterdir()
        if (p.suffix == ".py" and p.name != "__init__.py") or (p / "__init__.py").is_file()
    }


def test_every_module_a_docstring_names_exists() -> None:
    names = repository_files()
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text, where = docstring(path), path.relative_to(ROOT)
        problems += [f"{where}: {d}" for d in DOTTED.findall(text) if not dotted_exists(d)]
        for named in PY_FILE.findall(text):
            if "/" in named:
                found = (ROOT / named).is_file() or (PACKAGE / named).is_file()
            else:
                found = named in names
            if not found:
                problems.append(f"{where}: {named}")
    assert problems == []


def test_a_subpackage_that_lists_its_modules_lists_exactly_them() -> None:
    problems = []
    for init in sorted(PACKAGE.glob("*/**/__init__.py")):
        listed = listed_modules(docstring(init))
        if not listed:
            continue
        actual = modules_of(init.parent)
        where = init.relative_to(ROOT)
        problems += [f"{where} lists {name}, which is not there" for name in listed - actual]
        problems += [f"{where} does not list {name}" for name in actual - listed]
    assert problems == []


def test_the_checks_can_fail() -> None:
    assert not dotted_exists("mcpcost.core.no_such_module")
    assert not dotted_exists("mcpcost.core.spec.NoSuchName")
    assert dotted_exists("mcpcost.core.spec.ServerSpec") and dotted_exists("mcpcost.runtime")
    listing = "* ``base``  the interface\n* ``http``  HTTP;  ``sse``: SSE\n``not``: a bullet"
    assert listed_modules(listing) == {"base", "http", "sse"}
