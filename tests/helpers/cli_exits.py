"""What the exit-code tests share: the command line run in this process from a directory, and
a directory holding inputs that are broken in each way a command must refuse."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from mcpcost.cli import main


def run(argv: list[str], cwd: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old = Path.cwd()
    os.chdir(cwd)
    try:
        code = main(argv, out, err)
    finally:
        os.chdir(old)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(name="work")
def work_fixture(tmp_path: Path) -> Path:
    """A directory of inputs: not JSON, not YAML, the wrong shape, a directory, a plain file."""
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    (tmp_path / "list.json").write_text("[1, 2]", encoding="utf-8")
    (tmp_path / "bad.yaml").write_text("servers: [\n", encoding="utf-8")
    (tmp_path / "list.yaml").write_text("- 1\n", encoding="utf-8")
    (tmp_path / "adir").mkdir()
    (tmp_path / "afile").write_text("x", encoding="utf-8")
    (tmp_path / "shard" / "results").mkdir(parents=True)
    (tmp_path / "config.json").write_text('{"mcpServers": {}}', encoding="utf-8")
    (tmp_path / "state" / "results").mkdir(parents=True)
    (tmp_path / "state" / "results" / "badge-adoption.json").write_text("[]", encoding="utf-8")
    return tmp_path
