"""What the ``audit`` command tests share: the command run in this process (as given, or with
an injected measure, home, cwd and environment), a JSON file writer, and a two-server config."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from mcpcost.cli import audit_cmd, main


def cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["audit", *argv], out, err)
    return code, out.getvalue(), err.getvalue()


def cli_with(argv: list[str], **kw: Any) -> tuple[int, str, str]:
    """The command with injected measure/home/cwd/environ (errors mapped as main maps them)."""
    out, err = io.StringIO(), io.StringIO()
    try:
        code = audit_cmd.run(argv, out, err, **kw)
    except Exception as exc:  # UsageError / InputError, as main() maps them
        from mcpcost.errors import InputError, UsageError

        assert isinstance(exc, UsageError | InputError), exc
        err.write(f"{exc}\n")
        code = 2
    return code, out.getvalue(), err.getvalue()


def write_json(path: Path, obj: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj), "utf-8")
    return path


@pytest.fixture(name="demo")
def demo_fixture(tmp_path: Path) -> Path:
    """A project config of two servers, for audits whose measure is a fake."""
    return write_json(
        tmp_path / ".mcp.json",
        {
            "mcpServers": {
                "one": {"command": "srv", "args": ["one"]},
                "two": {"command": "srv", "args": ["two22"]},
            }
        },
    )
