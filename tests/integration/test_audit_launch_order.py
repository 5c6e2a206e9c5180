"""The audit launches its servers as soon as it knows what to launch.

On a busy machine every bit of CPU the command spends before a launch delays it, and the
servers' start-up is the longest part of an audit. So what is heavy to import stays out of the
way of the first launch: the report and its renderers and the sign-in client with its HTTP stack
load while the servers start (or not at all when unused), YAML only for a YAML config, and the
tokenizer only once the last of the first wave of launches is under way. What lighter modules
cost is measured by ``bench/`` (fixed cost and the audit against its floor), not banned here."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, cast

from mcpcost.audit.compose import measure_launches
from mcpcost.core.model import Measurement
from mcpcost.core.spec import ServerSpec
from mcpcost.transports.base import Transport
from mcpcost.transports.failures import SpawnFailed
from mcpcost.transports.open import AheadOpener, open_transport
from mcpcost.transports.stdio import group_alive
from tests.helpers.audit_builders import measured, tools
from tests.helpers.paths import ROOT
from tests.servers.registry import fixture_argv

# Heavy, and loaded only after the launches are under way, or only when a flag or a server
# needs them: the report, the renderers, the tokenizer, the HTTP stack, YAML.
NOT_BEFORE_LAUNCH = (
    "mcpcost.audit.report",
    "mcpcost.audit.report_model",
    "mcpcost.render.json_report",
    "mcpcost.render.text_report",
    "mcpcost.render.markdown_report",
    "mcpcost.render.sarif_report",
    "mcpcost.core.tokenizer",
    "mcpcost.auth.authorizer",
    "requests",
    "yaml",
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


def audit_through(probe: str, tmp_path: Path, modes: tuple[str, ...]) -> tuple[Any, Any]:
    """Audit a config of the fixture servers ``modes`` with ``probe`` (a Python program that
    runs the audit and writes what it saw as JSON on stderr's last line): (report, what it saw)."""
    config = tmp_path / "mcp.json"
    servers = {m: {"command": fixture_argv(m)[0], "args": fixture_argv(m)[1:]} for m in modes}
    config.write_text(json.dumps({"mcpServers": servers}), "utf-8")
    proc = subprocess.run(
        [sys.executable, "-c", probe, str(config)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    result = json.loads(proc.stderr.strip().splitlines()[-1])
    assert result["code"] == 0
    return json.loads(proc.stdout), result


def test_report_modules_load_after_the_first_launch(tmp_path: Path) -> None:
    report, result = audit_through(PROBE, tmp_path, ("good", "paginated"))
    assert [c["serverCount"] for c in report["configs"]] == [2]
    first, *_, last = result["at_launches"]
    assert len(result["at_launches"]) == 4  # two captures of each server
    assert set(first) & set(NOT_BEFORE_LAUNCH) == set()
    # nothing that only counting needs competes with the launches for the interpreter
    assert {"mcpcost.core.tokenizer", "mcpcost.core.ranks"}.isdisjoint(last)
    # and the ones the report needs were loaded by the end (the probe saw the real run)
    assert {"mcpcost.audit.report", "mcpcost.render.json_report"} <= set(result["at_end"])
    assert {"requests", "yaml", "mcpcost.render.markdown_report"}.isdisjoint(result["at_end"])


def test_while_launching_runs_once_on_the_caller_after_every_launch_is_handed_over() -> None:
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
    out = measure_launches(launches, slow, concurrency=3, while_launching=waiting)
    assert calls == [(threading.current_thread().name, ["s0", "s1", "s2"])]
    assert sorted(out) == ["0", "1", "2"]


def test_while_launching_runs_even_with_nothing_to_launch() -> None:
    calls: list[int] = []

    def never(spec: ServerSpec) -> Measurement:
        raise AssertionError("nothing to launch")

    assert measure_launches({}, never, while_launching=lambda: calls.append(1)) == {}
    assert calls == [1]


class StandIn:
    """A transport that only records whether it was closed."""

    def __init__(self, spec: ServerSpec) -> None:
        self.spec = spec
        self.closed = False

    def close(self) -> None:
        self.closed = True


class RecordingFactory:
    """Opens ``StandIn`` transports; a spec named ``bad`` fails, one named ``slow`` waits for
    ``release``. Every call is recorded with the thread it ran on."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []
        self.opened: list[StandIn] = []
        self.release = threading.Event()

    def __call__(self, spec: ServerSpec, timeout_s: float) -> Transport:
        self.calls.append((spec.name, threading.current_thread().name))
        if spec.name == "bad":
            raise SpawnFailed("spawn failed: bad: No such file or directory")
        if spec.name == "slow":
            self.release.wait(5)
        opened = StandIn(spec)
        self.opened.append(opened)
        return cast(Transport, opened)


ONE = ServerSpec.stdio("one", ["x", "1"])
TWO = ServerSpec.stdio("two", ["x", "2"])


def test_ahead_opener_hands_out_what_it_opened_ahead_then_opens_fresh() -> None:
    factory = RecordingFactory()
    opener = AheadOpener(factory)
    opener.open_ahead([ONE, ONE, TWO], 1.0)
    first, second, third = opener(ONE, 1.0), opener(ONE, 1.0), opener(TWO, 1.0)
    ahead = {id(t) for t in factory.opened}
    assert {id(first), id(second), id(third)} == ahead and len(ahead) == 3
    assert [c[1] for c in factory.calls] == ["mcpcost-open-ahead"] * 3  # off the caller's thread
    fresh = opener(ONE, 1.0)  # none left for ONE: opened now, on the caller's thread
    assert id(fresh) not in ahead
    assert factory.calls[-1] == ("one", threading.current_thread().name)
    opener.finish()
    assert not any(cast(StandIn, t).closed for t in (first, second, third, fresh))


def test_ahead_opener_waits_for_an_open_still_under_way() -> None:
    factory = RecordingFactory()
    opener = AheadOpener(factory)
    slow = ServerSpec.stdio("slow", ["x", "slow"])
    opener.open_ahead([slow], 1.0)
    taken: list[Transport] = []
    taker = threading.Thread(target=lambda: taken.append(opener(slow, 1.0)))
    taker.start()
    taker.join(0.2)
    assert taker.is_alive() and not taken  # waiting, not opening a second one
    assert not opener.wait_opened(0.01)
    factory.release.set()
    assert opener.wait_opened(5)
    taker.join(5)
    assert len(factory.calls) == 1 and taken == [factory.opened[0]]


def test_ahead_opener_raises_a_failed_open_to_the_call_that_takes_it() -> None:
    factory = RecordingFactory()
    opener = AheadOpener(factory)
    bad = ServerSpec.stdio("bad", ["x", "bad"])
    opener.open_ahead([bad], 1.0)
    try:
        opener(bad, 1.0)
    except SpawnFailed as exc:
        assert "No such file" in str(exc)
    else:
        raise AssertionError("the failed open was not raised")
    assert len(factory.calls) == 1


def test_ahead_opener_closes_what_no_call_took() -> None:
    factory = RecordingFactory()
    opener = AheadOpener(factory)
    opener.open_ahead([ONE, TWO, TWO], 1.0)
    taken = cast(StandIn, opener(TWO, 1.0))
    opener.finish()
    assert [t.closed for t in factory.opened if t is not taken] == [True, True]
    assert not taken.closed


def test_ahead_opener_stops_real_servers_no_capture_took() -> None:
    opened: list[Transport] = []

    def real(spec: ServerSpec, timeout_s: float) -> Transport:
        opened.append(open_transport(spec, timeout_s))
        return opened[-1]

    spec = ServerSpec.stdio("good", fixture_argv("good"))
    opener = AheadOpener(real)
    opener.open_ahead([spec, spec], 10.0)
    taken = opener(spec, 10.0)
    opener.finish()
    groups = {id(t): t.diagnostics.pgid for t in opened}
    assert len(groups) == 2 and all(groups.values())
    left = next(t for t in opened if t is not taken)
    assert not group_alive(cast(int, groups[id(left)]))
    assert group_alive(cast(int, groups[id(taken)]))
    taken.close()
    assert not group_alive(cast(int, groups[id(taken)]))


def test_a_released_server_stops_off_the_callers_thread_and_finish_waits_for_it() -> None:
    # a successful capture's server is stopped while the caller folds and reports; finish()
    # (the command's cleanup) returns only once every such stop has ended
    spec = ServerSpec.stdio("good", fixture_argv("good"))
    opener = AheadOpener()
    stopped_on: list[str] = []
    transport = opener(spec, 10.0)
    pgid = cast(int, transport.diagnostics.pgid)
    close = transport.close

    def slow_close() -> None:
        time.sleep(0.2)  # a server that takes a while to end
        stopped_on.append(threading.current_thread().name)
        close()

    transport.close = slow_close  # type: ignore[method-assign]
    started = time.monotonic()
    opener.release(transport)
    assert time.monotonic() - started < 0.1  # the caller goes on at once
    assert group_alive(pgid)
    opener.finish()
    assert stopped_on == ["mcpcost-stop"] and not group_alive(pgid)


def test_a_capture_releases_its_transport_only_when_it_succeeded(tmp_path: Path) -> None:
    from mcpcost.measuring.capture import Capture, CaptureFailure, capture_tools

    released: list[Transport] = []
    good = capture_tools(
        ServerSpec.stdio("good", fixture_argv("good")),
        open_transport,
        10.0,
        release=released.append,
    )
    assert isinstance(good, Capture) and len(released) == 1
    pgid = cast(int, released[0].diagnostics.pgid)
    assert group_alive(pgid)  # left to the caller, still running
    released[0].close()
    assert not group_alive(pgid)
    crash = [sys.executable, "-c", "import sys; sys.stderr.write('boom'); sys.exit(3)"]
    failed = capture_tools(
        ServerSpec.stdio("bad", crash), open_transport, 10.0, release=released.append
    )
    # a failure waits for the server's end: its exit code and stderr are in the diagnostics
    assert isinstance(failed, CaptureFailure) and len(released) == 1
    assert failed.diagnostics is not None and failed.diagnostics.exit_code == 3
    assert "boom" in failed.diagnostics.stderr_tail


def test_a_transport_release_refuses_is_stopped_by_the_capture() -> None:
    from mcpcost.measuring.capture import capture_tools

    seen: list[Transport] = []

    def refuse(transport: Transport) -> None:
        seen.append(transport)
        raise RuntimeError("can't start new thread")

    spec = ServerSpec.stdio("good", fixture_argv("good"))
    try:
        capture_tools(spec, open_transport, 10.0, release=refuse)
    except RuntimeError:
        pass
    else:
        raise AssertionError("the release's error was swallowed")
    assert len(seen) == 1 and not group_alive(cast(int, seen[0].diagnostics.pgid))


def test_an_audit_launches_each_capture_once_across_the_ahead_wave(tmp_path: Path) -> None:
    report, result = audit_through(COUNTING_PROBE, tmp_path, ("good", "paginated", "banner"))
    assert [s["status"] for s in report["configs"][0]["servers"]] == ["measured"] * 3
    # two captures per server: the first wave (concurrency 2) opened ahead, the third fresh
    assert sorted(result["spawned"]) == [
        "banner",
        "banner",
        "good",
        "good",
        "paginated",
        "paginated",
    ]
    assert result["ahead"] == 4


COUNTING_PROBE = """
import json, sys, threading
import mcpcost.transports.open as opener
spawned, ahead = [], []
real = opener.spawn_stdio
def spawn(spec, *args, **kwargs):
    spawned.append(spec.name)
    if threading.current_thread().name == "mcpcost-open-ahead":
        ahead.append(spec.name)
    return real(spec, *args, **kwargs)
opener.spawn_stdio = spawn
from mcpcost.cli import main
code = main(["audit", "--config", sys.argv[1], "--json", "--concurrency", "2"])
sys.stderr.write(json.dumps({"code": code, "spawned": spawned, "ahead": len(ahead)}))
"""
