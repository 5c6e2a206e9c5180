"""Every POSIX-only process call lives in the platform layer (``mcpcost/runtime/processes``):
nothing else signals process groups, reads ``/proc`` or asks for a new session."""

from __future__ import annotations

import ast

from tests.helpers.paths import PACKAGE

LAYER = PACKAGE / "runtime" / "processes"
POSIX_ONLY_CALLS = frozenset({"killpg", "getpgid", "getpgrp", "setsid", "setpgid", "getsid"})
POSIX_ONLY_KEYWORDS = frozenset({"start_new_session", "preexec_fn", "process_group"})


def stray_calls(source: str) -> list[str]:
    """POSIX-only process calls and ``/proc`` paths in ``source`` (code, not comments)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in POSIX_ONLY_CALLS:
            found.append(f"line {node.lineno}: .{node.attr}")
        elif isinstance(node, ast.Name) and node.id in POSIX_ONLY_CALLS:
            found.append(f"line {node.lineno}: {node.id}")
        elif isinstance(node, ast.keyword) and node.arg in POSIX_ONLY_KEYWORDS:
            found.append(f"line {node.value.lineno}: {node.arg}=")
        elif isinstance(node, ast.alias) and node.name in POSIX_ONLY_CALLS:
            found.append(f"import of {node.name}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value == "/proc" or node.value.startswith("/proc/"):
                found.append(f"line {node.lineno}: {node.value!r}")
    return found


def test_the_scan_finds_each_kind_of_stray_call() -> None:
    source = (
        "import os, subprocess\nfrom os import killpg\n"
        "os.killpg(1, 9)\nos.getpgid(2)\nopen('/proc/1/stat')\nopen(f'/proc/{x}/stat')\n"
        "os.listdir('/proc')\nsubprocess.Popen(['x'], start_new_session=True)\n"
        "subprocess.Popen(['x'], preexec_fn=os.setsid)\n"
        "# os.killpg in a comment is fine; so is '/procurement'\nx = '/procurement'\n"
    )
    assert len(stray_calls(source)) == 9  # the f-string's literal head counts as a path


def test_no_posix_only_process_call_outside_the_platform_layer() -> None:
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if LAYER in path.parents:
            continue
        problems += [
            f"{path.relative_to(PACKAGE.parent)} {hit}"
            for hit in stray_calls(path.read_text("utf-8"))
        ]
    assert problems == []


def test_the_platform_layer_is_where_they_are() -> None:
    hits = [h for p in LAYER.rglob("*.py") for h in stray_calls(p.read_text("utf-8"))]
    assert any("killpg" in h for h in hits) and any("/proc" in h for h in hits)
    assert any("start_new_session" in h for h in hits)
