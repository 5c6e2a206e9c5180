"""The audit launches its servers before it loads what only the report needs.

On a busy machine every bit of CPU the command spends before its last launch delays that launch,
and the servers' start-up is the longest part of an audit. So the modules that parse configs and
launch servers are the only ones loaded before the first launch; the report, gates, renderers and
the sign-in client load while the servers start (or not at all when unused), and the tokenizer
only once the last of the first wave of launches is under way."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import cast

from mcpcost.audit.engine import measure_all
from mcpcost.core.model import Measurement
from mcpcost.core.spec import ServerSpec
from mcpcost.transports.base import Transport
from mcpcost.transports.open import CountingOpener
from tests.servers.registry import fixture_argv
from tests.test_audit_report import measured, tools

ROOT = Path(__file__).resolve().parent.parent

# Loaded only after the launches are under way, or only when a flag or a server needs them.
NOT_BEFORE_LAUNCH = (
    "mcpcost.audit.report",
    "mcpcost.audit.report_model",
    "mcpcost.audit.gates",
    "mcpcost.audit.render_json",
    "mcpcost.audit.render_text",
    "mcpcost.audit.render_markdown",
    "mcpcost.audit.sarif",
    "mcpcost.audit.diff",
    "mcpcost.audit.baseline",
    "mcpcost.audit.deferral",
    "mcpcost.core.tokenizer",
    "mcpcost.transports.oauth.authorizer",
    "requests",
    "yaml",
    "tomllib",
)

PROBE = """
import json, sys
import mcpcost.transports.stdio as stdio
import mcpcost.transports.open as opener
import time
seen = []
real = opener.spawn_stdio
def spawn(*args, **kwargs):
    if seen:
        time.sleep(0.3)  # a slow launch: what runs meanwhile shows in sys.modules
    seen.append(sorted(sys.modules))
    return real(*args, **kwargs)
opener.spawn_stdio = spawn
from mcpcost.cli import main
code = main(["audit", "--config", sys.argv[1], "--json"])
sys.stderr.write(json.dumps({"code": code, "at_launches": seen, "at_end": sorted(sys.modules)}))
"""


def test_report_modules_load_after_the_first_launch(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    argvs = {"one": fixture_argv("good"), "two": fixture_argv("paginated")}
    servers = {name: {"command": argv[0], "args": argv[1:]} for name, argv in argvs.items()}
    config.write_text(json.dumps({"mcpServers": servers}), "utf-8")
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, str(config)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    result = json.loads(proc.stderr.strip().splitlines()[-1])
    assert result["code"] == 0
    report = json.loads(proc.stdout)
    assert [c["serverCount"] for c in report["configs"]] == [2]
    first, *_, last = result["at_launches"]
    assert len(result["at_launches"]) == 4  # two captures of each server
    assert set(first) & set(NOT_BEFORE_LAUNCH) == set()
    # nothing that only counting needs competes with the launches for the interpreter
    assert {"mcpcost.core.tokenizer", "mcpcost.core.ranks"}.isdisjoint(last)
    # and the ones the report needs were loaded by the end (the probe saw the real run)
    assert {"mcpcost.audit.report", "mcpcost.audit.render_json"} <= set(result["at_end"])
    assert {"requests", "yaml", "mcpcost.audit.render_markdown"}.isdisjoint(result["at_end"])


def test_while_waiting_runs_once_on_the_caller_after_every_launch_is_handed_over() -> None:
    started: list[str] = []
    release = threading.Event()
    calls: list[tuple[str, list[str]]] = []

    def slow(spec: ServerSpec) -> Measurement:
        started.append(spec.name)
        release.wait(5)
        return measured(spec, tools(spec.name, 1))

    def waiting() -> None:
        deadline = time.monotonic() + 5
        while len(started) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        calls.append((threading.current_thread().name, sorted(started)))
        release.set()

    launches = {str(i): ServerSpec.stdio(f"s{i}", ["x", str(i)]) for i in range(3)}
    out = measure_all(launches, slow, concurrency=3, while_waiting=waiting)
    assert calls == [(threading.current_thread().name, ["s0", "s1", "s2"])]
    assert sorted(out) == ["0", "1", "2"]


def test_while_waiting_runs_even_with_nothing_to_launch() -> None:
    calls: list[int] = []

    def never(spec: ServerSpec) -> Measurement:
        raise AssertionError("nothing to launch")

    assert measure_all({}, never, while_waiting=lambda: calls.append(1)) == {}
    assert calls == [1]


def test_counting_opener_counts_opens_and_failed_opens() -> None:
    def factory(spec: ServerSpec, timeout_s: float) -> Transport:
        if spec.name == "bad":
            raise OSError("no such command")
        return cast(Transport, object())

    opener = CountingOpener(factory)
    assert not opener.wait_for(1, 0.01)
    threads = [
        threading.Thread(target=opener, args=(ServerSpec.stdio("ok", ["x"]), 1.0)),
        threading.Thread(target=lambda: _swallow(opener, ServerSpec.stdio("bad", ["y"]))),
    ]
    for t in threads:
        t.start()
    assert opener.wait_for(2, 5.0)
    for t in threads:
        t.join()
    assert opener.opened == 2


def _swallow(opener: CountingOpener, spec: ServerSpec) -> None:
    try:
        opener(spec, 1.0)
    except OSError:
        pass
