"""What the ``verify``, ``count`` and ``badge`` command tests share: the command line run in this
process (with bytes on stdin when given), and a measurement.json file that verifies."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from mcpcost.cli import main
from mcpcost.core.measure import measure_tools
from mcpcost.core.model import Measurement, render_measurement
from mcpcost.core.status import Status


def run(*argv: str, stdin: bytes | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    if stdin is not None:
        old = sys.stdin
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
        try:
            code = main(list(argv), out, err)
        finally:
            sys.stdin = old
    else:
        code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(name="good")
def good_fixture(tmp_path: Path) -> Path:
    """A measurement.json of one tool whose capture, hash and count agree."""
    tools = [{"name": "echo", "description": "Echo it", "inputSchema": {"type": "object"}}]
    m = measure_tools(tools)
    doc = Measurement(
        status=Status.MEASURED,
        server_name="echo-server",
        launch_command="echo",
        measured_at="2026-11-30T00:00:00.000Z",
        timeout_ms=1000,
        total_tokens=m.total_tokens,
        tool_count=1,
        tools=m.tools,
        canonical_sha256=m.canonical.sha256,
        raw_tools_capture=m.capture,
    )
    path = tmp_path / "measurement.json"
    path.write_text(render_measurement(doc), encoding="utf-8")
    return path
