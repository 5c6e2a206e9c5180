"""Two captures of a server launched through a package runner that installs on first use
(``npx``) do not start together: on a cold cache both would install the same package into the
same place at once. The second starts once the first has the server's ``initialize`` answer,
with its own full budget; a plain command starts both at once.

The launcher is a recording wrapper named ``npx`` (or a plain name) on PATH: it appends its
start time (monotonic, the clock this process reads too) to a file and then execs the real
stdio fixture server, which waits ``DELAY_S`` before it reads its first request."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mcpcost.core.spec import ServerSpec
from mcpcost.core.status import Status
from mcpcost.measuring import MeasureOptions, measure_server
from mcpcost.transports.base import Transport
from mcpcost.transports.open import open_transport
from tests.helpers.first_answers import FirstAnswers
from tests.helpers.paths import ROOT
from tests.servers.registry import fixture_argv

pytestmark = pytest.mark.posix_only("a #! script on PATH")

DELAY_S = 1.5
# more than one capture takes (the delay and two interpreter starts), less than two
TIMEOUT_S = 2.6


def recording_launcher(directory: Path, name: str, log: Path) -> None:
    argv = fixture_argv("good", "--startup-delay", str(DELAY_S))
    script = directory / name
    script.write_text(
        f"#!{sys.executable}\n"
        "import os, time\n"
        f"with open({str(log)!r}, 'a') as fh:\n"
        "    fh.write(f'{time.monotonic_ns()}\\n')\n"
        f"os.execv({argv[0]!r}, {argv!r})\n"
    )
    script.chmod(0o755)


def measure_through(
    name: str, args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Status, list[int], FirstAnswers]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "starts"
    recording_launcher(bin_dir, name, log)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    answers = FirstAnswers()

    def factory(spec: ServerSpec, timeout_s: float) -> Transport:
        return answers.around(lambda: open_transport(spec, timeout_s))

    m = measure_server(
        ServerSpec.stdio("first-use", [name, *args]),
        MeasureOptions(timeout_s=TIMEOUT_S, retry_timeouts=False, open_transport=factory),
    )
    starts = [int(line) for line in log.read_text().split()]
    return m.status, starts, answers


def test_npx_second_capture_starts_after_the_first_has_initialize(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    status, starts, answers = measure_through("npx", ["-y", "pkg@1.0.0"], tmp_path, monkeypatch)
    # measured, though the second capture ended later than TIMEOUT_S after the first started:
    # each capture's budget runs from its own start
    assert status is Status.MEASURED, status
    assert len(starts) == 2
    first_answer = answers.answered_ns[0]
    assert first_answer is not None
    assert starts[0] < first_answer < starts[1]
    assert starts[1] - starts[0] >= DELAY_S * 1e9


def test_plain_command_starts_both_captures_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    status, starts, answers = measure_through("mcp-fixture", ["--stdio"], tmp_path, monkeypatch)
    assert status is Status.MEASURED, status
    assert len(starts) == 2
    answered = [t for t in answers.answered_ns if t is not None]
    assert len(answered) == 2
    assert max(starts) < min(answered)  # both were launched before either server answered
    assert abs(starts[1] - starts[0]) < DELAY_S * 1e9 / 2


def test_audit_launches_one_npx_capture_ahead_and_the_second_after_initialize(
    tmp_path: Path,
) -> None:
    """The audit opens its first servers ahead of measuring (two captures each): an ``npx``
    server gets one, and its second capture launches once the first has the server up."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "starts"
    recording_launcher(bin_dir, "npx", log)
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"s": {"command": "npx", "args": ["-y", "p@1"]}}}))
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc = subprocess.run(
        [sys.executable, "-m", "mcpcost", "audit", "--config", str(config), "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    (server,) = json.loads(proc.stdout)["configs"][0]["servers"]
    assert server["status"] == "measured", server
    starts = [int(line) for line in log.read_text().split()]
    assert len(starts) == 2 and starts[1] - starts[0] >= DELAY_S * 1e9
