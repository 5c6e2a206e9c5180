"""A home with one healthy config (``~/.claude.json`` declaring our stdio fixture server) and the
broken files a test adds, and ``mcpcost audit`` run there in-process: the unit and integration
tests of unreadable configs share them."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

from mcpcost.cli import audit_cmd
from tests.servers.registry import fixture_argv

# a JSON error on line 4: a missing comma between two entries
BROKEN = '{\n  "mcpServers": {\n    "docs": {"command": "docs-mcp"}\n    "search": {}\n  }\n}\n'


def home_with(tmp: Path, broken: dict[str, str]) -> tuple[Path, Path]:
    """A home whose ~/.claude.json declares one real server, plus the broken files given
    (path relative to home -> text); the project directory (home/shop) is empty."""
    home, cwd = tmp / "home", tmp / "home" / "shop"
    cwd.mkdir(parents=True)
    argv = fixture_argv("good")
    good = {"mcpServers": {"notes": {"command": argv[0], "args": argv[1:]}}}
    (home / ".claude.json").write_text(json.dumps(good))
    for rel, text in broken.items():
        path = home / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return home, cwd


def audit_at(home: Path, cwd: Path, *argv: str, measure: Any = None) -> tuple[int, str, str]:
    """``mcpcost audit`` with this home and working directory, on Linux, PATH only."""
    out, err = io.StringIO(), io.StringIO()
    code = audit_cmd.run(
        [*argv, "--timeout", "20"],
        out,
        err,
        environ={"PATH": os.environ.get("PATH", "")},
        home=home,
        cwd=cwd,
        platform="linux",
        measure=measure,
    )
    return code, out.getvalue(), err.getvalue()
