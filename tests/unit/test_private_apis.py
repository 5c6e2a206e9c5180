"""No private API of Python or of a dependency: no ``_module`` import, no ``module._name``.

A private name can change in any release, so the package relies only on what Python and its
dependencies document. ``os._exit`` is documented (the underscore marks it as the low-level
exit, not as private), and so it is the one exception.
"""

from __future__ import annotations

import ast

from tests.helpers.paths import PACKAGE

DOCUMENTED = frozenset({"os._exit"})


def _private(dotted: str) -> bool:
    return any(part.startswith("_") and not part.startswith("__") for part in dotted.split("."))


def private_uses(source: str) -> list[str]:
    tree = ast.parse(source)
    outside: dict[str, str] = {}  # local name -> imported module, for modules not ours
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] != "mcpcost":
                    outside[alias.asname or alias.name.split(".")[0]] = alias.name
                    if _private(alias.name):
                        found.append(f"{node.lineno}: import {alias.name}")
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] == "mcpcost":
                continue
            names = [a.name for a in node.names if _private(a.name)]
            if _private(node.module) or names:
                found.append(
                    f"{node.lineno}: from {node.module} import {', '.join(names) or '...'}"
                )
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            first = node.args[0] if node.args else None
            if (
                node.func.attr == "import_module"
                and isinstance(first, ast.Constant)
                and isinstance(first.value, str)
                and _private(first.value)
            ):
                found.append(f"{node.lineno}: import_module({first.value!r})")
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in outside
            and _private(node.attr)
        ):
            dotted = f"{outside[node.value.id]}.{node.attr}"
            if dotted not in DOCUMENTED:
                found.append(f"{node.lineno}: {dotted}")
    return found


def test_the_package_uses_no_private_api() -> None:
    problems = [
        f"{path.relative_to(PACKAGE.parent)}:{use}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for use in private_uses(path.read_text("utf-8"))
    ]
    assert problems == []


def test_the_check_sees_each_form() -> None:
    source = (
        "import atexit, os\n"
        "from _sha2 import sha256\n"
        "import importlib\n"
        "importlib.import_module('tiktoken._tiktoken')\n"
        "atexit._run_exitfuncs()\n"
        "os._exit(0)\n"
    )
    assert [use.split(": ")[1] for use in private_uses(source)] == [
        "from _sha2 import ...",
        "import_module('tiktoken._tiktoken')",
        "atexit._run_exitfuncs",
    ]
