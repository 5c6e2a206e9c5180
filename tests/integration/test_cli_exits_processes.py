"""Exit codes and messages where a real process or connection is involved: ``python -m mcpcost``
prints no traceback, ``measure`` of a real stdio server names its result by the name rule, and a
refused loopback connection reads as a sentence."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.helpers.cli_exits import (
    run,
    work_fixture,  # noqa: F401  (the fixture)
)
from tests.helpers.paths import ROOT


def test_a_subprocess_prints_no_traceback(work: Path) -> None:
    for argv in (["verify", "adir"], ["count", "bad.json"], ["publish", "--out", "nowhere"]):
        proc = subprocess.run(
            [sys.executable, "-m", "mcpcost", *argv],
            cwd=work,
            text=True,
            capture_output=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr


def test_measure_checks_the_name_only_when_it_becomes_a_path(tmp_path: Path) -> None:
    server = [sys.executable, str(ROOT / "tests" / "servers" / "fixtures" / "stdio_server.py")]
    code, out, _ = run(
        [
            "measure",
            "--name",
            "everything-streamableHttp",
            "--out",
            "o",
            "--timeout",
            "20",
            "--",
            *server,
        ],
        tmp_path,
    )
    assert code == 0, out
    assert (tmp_path / "o" / "results" / "everything-streamableHttp" / "measurement.json").is_file()
    assert (tmp_path / "o" / "badges" / "everything-streamableHttp.json").is_file()
    code, _, err = run(["measure", "--name", "a/b", "--out", "o", "--", *server], tmp_path)
    assert code == 2 and "'/'" in err and "--out" in err


def test_a_refused_connection_reads_as_a_sentence(tmp_path: Path) -> None:
    import socket

    with socket.socket() as sock:  # a loopback port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/mcp"
    code, out, _ = run(["measure", "--url", url, "--timeout", "5", "--no-retry"], tmp_path)
    raw_name = re.compile(r"\b(?:[A-Z][a-z]+){2,}(?:Error|Exception|Timeout)\b")
    assert code == 1
    assert not raw_name.search(out) and "connect" in out, out
    code, _, err = run(["verify", f"http://127.0.0.1:{port}/m.json"], tmp_path)
    assert code == 2 and not raw_name.search(err) and "connect" in err, err
