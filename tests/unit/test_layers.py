"""The package's layers import downward only; ``core`` is pure.

cli | action  ->  serve  ->  render | sweep | author | adoption  ->  audit  ->  configs  ->  measuring
  ->  transports  ->  auth  ->  runtime  ->  core  ->  escaping  ->  errors

``core`` is the methodology: values in, values out. It imports only modules that compute, from an
allow-list; the few exceptions are named per module with the reason, and the IO that remains
(reading the package's own data files) lives in one module, ``core/bundled.py``. ``escaping``
holds the one escaping boundary per output kind (terminal, CI log, Markdown) and imports nothing
of ours but ``errors``.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers.paths import PACKAGE

RANK = {
    "errors": 0,
    "escaping": 1,
    "core": 2,
    "runtime": 3,
    "auth": 4,
    "transports": 5,
    "measuring": 6,
    "configs": 7,
    "audit": 8,
    "render": 9,
    "sweep": 9,
    "author": 9,
    "adoption": 9,
    "serve": 10,
    "cli": 11,
    "action": 11,
}
# What any core module may import: the standard library's computation, nothing that reaches a
# file, a process, the network, the clock, a thread or the interpreter's own state.
CORE_MAY_IMPORT = frozenset(
    {
        "__future__",
        "array",
        "base64",
        "bisect",
        "collections",
        "collections.abc",
        "dataclasses",
        "difflib",
        "enum",
        "functools",
        "hashlib",
        "itertools",
        "json",
        "math",
        "re",
        "shlex",
        "struct",
        "typing",
        "urllib.parse",
        "zlib",
    }
)
# The exceptions, module by module, each with its reason.
CORE_EXCEPTIONS: dict[str, dict[str, str]] = {
    "mcpcost.core.bundled": {
        "os": "the path of the package's data directory, and opening a file in it",
        "mmap": "the rank table is mapped, so a process reads only the pages it looks up",
    },
    "mcpcost.core.tokenizer": {
        "threading": "a lock: measurements on several threads build the one tokenizer once",
        "tiktoken": "its byte-pair encoder, built for bulk counting (public Encoding only)",
    },
    "mcpcost.core.pretokenize": {
        "threading": "a lock: the class tables are read once however many threads split text",
    },
}
# Never in core, whatever the allow-list says (a check on the allow-list itself).
IO_MODULES = frozenset(
    {
        "atexit",
        "fcntl",
        "http",
        "io",
        "mmap",
        "msvcrt",
        "os",
        "pathlib",
        "requests",
        "docker",
        "select",
        "selectors",
        "shutil",
        "signal",
        "socket",
        "subprocess",
        "sys",
        "tempfile",
        "threading",
        "time",
        "urllib.request",
    }
)
# Builtins that read or write the world (or import around the check).
CORE_MAY_NOT_CALL = frozenset(
    {"open", "print", "input", "breakpoint", "exit", "quit", "exec", "eval", "__import__"}
)


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


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and ast.unparse(node.test) in (
        "TYPE_CHECKING",
        "typing.TYPE_CHECKING",
    )


def _runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node that runs: what sits under ``if TYPE_CHECKING:`` is for the type checker."""
    out: list[ast.AST] = []
    todo = [tree]
    while todo:
        node = todo.pop()
        out.append(node)
        if _is_type_checking(node):
            assert isinstance(node, ast.If)
            todo.extend(node.orelse)
            continue
        todo.extend(ast.iter_child_nodes(node))
    return out


def _runtime_imports(path: Path) -> list[str]:
    """Modules outside ``mcpcost`` that ``path`` imports when it runs."""
    names: list[str] = []
    for node in _runtime_nodes(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return [n for n in names if n.split(".")[0] != "mcpcost"]


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


def _core_modules() -> list[tuple[str, Path]]:
    return [(m, p) for m, p in _modules() if _layer(m) == "core"]


def test_core_imports_only_what_computes() -> None:
    problems = []
    for module, path in _core_modules():
        allowed = CORE_MAY_IMPORT | CORE_EXCEPTIONS.get(module, {}).keys()
        for imported in _runtime_imports(path):
            if imported not in allowed:
                problems.append(f"{module} imports {imported}")
    assert problems == []


def test_core_calls_no_builtin_that_does_io() -> None:
    problems = []
    for module, path in _core_modules():
        if module in CORE_EXCEPTIONS and "os" in CORE_EXCEPTIONS[module]:
            continue  # the one module that reads the package's data files
        for node in _runtime_nodes(ast.parse(path.read_text("utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in CORE_MAY_NOT_CALL
            ):
                problems.append(f"{module}:{node.lineno} calls {node.func.id}()")
    assert problems == []


def test_the_core_allow_list_holds_no_io_and_no_stale_exception() -> None:
    assert CORE_MAY_IMPORT.isdisjoint(IO_MODULES)
    core = dict(_core_modules())
    for module, exceptions in CORE_EXCEPTIONS.items():
        assert module in core, f"{module} no longer exists"
        used = set(_runtime_imports(core[module]))
        assert set(exceptions) <= used, f"{module} no longer needs {set(exceptions) - used}"
    # only the data-file reader touches files, and only locks come from threading
    reading = [m for m, e in CORE_EXCEPTIONS.items() if {"os", "mmap"} & e.keys()]
    assert reading == ["mcpcost.core.bundled"]


def test_core_takes_only_a_lock_from_threading() -> None:
    problems = []
    for module, path in _core_modules():
        for node in _runtime_nodes(ast.parse(path.read_text("utf-8"))):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "threading"
                and node.attr != "Lock"
            ):
                problems.append(f"{module}:{node.lineno} uses threading.{node.attr}")
            if isinstance(node, ast.ImportFrom) and node.module == "threading":
                problems.append(f"{module}:{node.lineno} imports from threading")
    assert problems == []
