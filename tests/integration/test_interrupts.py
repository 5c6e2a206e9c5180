"""SIGINT and SIGTERM during ``measure``, ``audit`` and ``sweep`` with real servers: the command
exits within 3 s with 128 + the signal number, no server it started is left running, and the
published tree is as it was."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from tests.helpers.live_processes import alive, children_of, tagged
from tests.helpers.paths import ROOT
from tests.servers.registry import FIXTURES_DIR

pytestmark = [
    pytest.mark.slow,
    pytest.mark.linux_only("scans /proc"),
]

PLATFORM_SERVER = FIXTURES_DIR / "platform_server.py"
SERVERS = 3
EXIT_WITHIN_S = 3.0


def hang_argv(tag: str, n: int) -> list[str]:
    return [sys.executable, str(PLATFORM_SERVER), "--mode", "hang", "--tag", f"{tag}-{n}"]


def command(kind: str, tag: str, tmp: Path) -> list[str]:
    base = [sys.executable, "-m", "mcpcost"]
    if kind == "measure":
        return [*base, "measure", "--timeout", "60", "--", *hang_argv(tag, 0)]
    if kind == "audit":
        servers = {
            f"s{n}": {"command": hang_argv(tag, n)[0], "args": hang_argv(tag, n)[1:]}
            for n in range(SERVERS)
        }
        config = tmp / "mcp.json"
        config.write_text(json.dumps({"mcpServers": servers}))
        return [*base, "audit", "--config", str(config), "--timeout", "60"]
    lines = ["servers:"]
    for n in range(SERVERS + 2):  # more servers than the concurrency: some are still queued
        lines += [
            f"  - name: s{n}",
            f"    command: {shlex.join(hang_argv(tag, n))!r}",
            "    category: community",
        ]
    catalog = tmp / "servers.yaml"
    catalog.write_text("\n".join(lines) + "\n")
    return [
        *base,
        "sweep",
        "--servers",
        str(catalog),
        "--out",
        str(tmp / "site"),
        "--concurrency",
        str(SERVERS),
        "--timeout",
        "60",
    ]


def interrupt(proc: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    """Send ``sig`` to a running command and check that it ended within ``EXIT_WITHIN_S`` with
    128 + the signal and ``interrupted``, no traceback (one still running after 30 s is
    killed)."""
    if proc.poll() is not None:
        pytest.fail(f"the command ended before the signal: {proc.communicate()}")
    sent = time.monotonic()
    proc.send_signal(sig)
    try:
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    took = time.monotonic() - sent
    assert took < EXIT_WITHIN_S, (took, err)
    assert proc.returncode == 128 + sig
    assert b"interrupted" in err and b"Traceback" not in err


def published(root: Path) -> dict[str, bytes]:
    """The tree's files; an interrupted sweep leaves its pending directory to resume from."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and not p.relative_to(root).parts[0] == ".mcpcost-pending"
    }


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("kind", ["measure", "audit", "sweep"])
def test_a_signal_ends_the_command_promptly_with_nothing_left(
    kind: str, sig: signal.Signals, tmp_path: Path
) -> None:
    tag = f"mcpcost-interrupt-{uuid.uuid4().hex}"
    site = tmp_path / "site"
    (site / "results" / "s0").mkdir(parents=True)
    (site / "results" / "s0" / "measurement.json").write_text('{"status": "measured"}\n')
    before = published(site)
    expected = 2 if kind == "measure" else SERVERS  # measure runs two captures at once
    proc = subprocess.Popen(
        command(kind, tag, tmp_path),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        deadline = time.monotonic() + 90
        while len(tagged(tag)) < expected and time.monotonic() < deadline:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)
        assert len(tagged(tag)) >= expected, "the servers never started"
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    interrupt(proc, sig)
    time.sleep(0.2)  # a SIGKILLed server is reaped by init a moment later
    assert tagged(tag) == set()
    assert published(site) == before
    # no server answered, so nothing was staged for a resumed sweep to take
    assert not (site / ".mcpcost-pending" / "tree").exists()


@pytest.mark.parametrize("path", ["stop", "kill"])
def test_other_launches_are_ended_and_refused_after(path: str) -> None:
    from mcpcost.runtime.processes import (
        LiveTrees,
        OtherLaunch,
        kill_every_tree,
        stop_every_tree,
    )

    calls: list[str] = []
    registry = LiveTrees()
    hung = threading.Event()
    quick = OtherLaunch(
        "quick", stop=lambda: calls.append("stop"), kill=lambda: calls.append("kill")
    )
    stuck = OtherLaunch("stuck", stop=lambda: hung.wait(30), kill=lambda: hung.wait(30))
    assert registry.add_other(quick) and registry.add_other(stuck)
    started = time.monotonic()
    try:
        ended = (
            stop_every_tree(0.1, registry=registry) if path == "stop" else kill_every_tree(registry)
        )
        assert ended == 2
        assert calls == [path]
        assert time.monotonic() - started < 3.0  # an engine that does not answer holds no one
        assert not registry.add_other(OtherLaunch("late", stop=lambda: None, kill=lambda: None))
    finally:
        hung.set()


def test_the_wakeup_channel_and_its_watchdog_end_with_the_command() -> None:
    # a library caller runs many commands in one process: each leaves no descriptor and no
    # thread behind, and the interpreter's wakeup descriptor is restored
    from mcpcost.cli.interrupts import handling_interrupts

    def watchdogs() -> list[threading.Thread]:
        return [t for t in threading.enumerate() if t.name == "mcpcost-interrupts"]

    before = set(os.listdir("/proc/self/fd"))
    wakeup_before = signal.set_wakeup_fd(-1)
    signal.set_wakeup_fd(wakeup_before)
    for _ in range(20):
        with handling_interrupts() as caught:
            assert signal.getsignal(signal.SIGTERM) == caught.handle
            assert watchdogs()
    deadline = time.monotonic() + 5
    while watchdogs() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert watchdogs() == []
    assert set(os.listdir("/proc/self/fd")) == before
    assert signal.set_wakeup_fd(wakeup_before) == wakeup_before


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_ends_a_sweep_and_its_measuring_processes_promptly(
    sig: signal.Signals, tmp_path: Path
) -> None:
    """Endpoints in flight in two measuring processes (each answer 20 s late): the sweep exits
    promptly with 128 + the signal, its measuring processes with it, and records nothing."""
    from tests.servers.registry import serve_loopback_registry

    site = tmp_path / "site"
    with serve_loopback_registry(6, delay_ms=20_000) as registry:
        argv = [sys.executable, "-m", "mcpcost", "sweep", "--registry", registry]
        argv += ["--allow-private-addresses", "--out", str(site), "--timeout", "60"]
        argv += ["--concurrency", "4", "--processes", "2"]
        proc = subprocess.Popen(
            argv,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        try:
            deadline = time.monotonic() + 60
            while (
                len(children_of(proc.pid, "mcpcost.measuring.child")) < 2
                and time.monotonic() < deadline
            ):
                assert proc.poll() is None, proc.communicate()
                time.sleep(0.05)
            children = children_of(proc.pid, "mcpcost.measuring.child")
            assert len(children) == 2, "the measuring processes never started"
            time.sleep(1.0)  # their jobs are in flight, waiting for the endpoints
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        interrupt(proc, sig)
        deadline = time.monotonic() + 5
        while any(alive(p) for p in children) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(alive(p) for p in children)
    # nothing answered, so nothing was staged: no failure was recorded for the dropped jobs
    assert not (site / ".mcpcost-pending" / "tree").exists()
    assert not (site / "results").exists()
