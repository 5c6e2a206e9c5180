"""Sweeps run as a CI job runs them, killed at a crash point and resumed: the shared steps of
the resume tests (a sweep's own process, and the one that measures in child processes)."""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from mcpcost.core.jsonvalue import parse_json
from tests.helpers.paths import ROOT

PENDING = ".mcpcost-pending"


def env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT))


def sessions(base: str) -> dict[int, int]:
    """How many sessions the loopback registry opened for each entry."""
    with urllib.request.urlopen(base + "/stats", timeout=10) as resp:
        doc = json.loads(resp.read())
    return {int(k): v for k, v in doc["initialize"].items()}


def run_until_paused(argv: list[str], point: str, timeout_s: float = 90) -> subprocess.Popen[bytes]:
    """Start ``argv`` (a command run through ``tests.helpers.crash_points``) and return once it
    says it is paused at ``point``; a command that ends or never pauses is killed and fails the
    test."""
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env(),
        cwd=ROOT,
    )
    assert proc.stderr is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stderr, selectors.EVENT_READ)
    seen = b""
    deadline = time.monotonic() + timeout_s
    failure = None
    while f"paused at {point.partition('@')[0]}".encode() not in seen:
        left = deadline - time.monotonic()
        if left <= 0 or not sel.select(left):
            failure = f"never paused at {point}: {seen.decode(errors='replace')}"
            break
        chunk = os.read(proc.stderr.fileno(), 65536)
        if not chunk:
            failure = f"exited before {point}: {seen.decode(errors='replace')}"
            break
        seen += chunk
    sel.close()
    if failure is not None:
        proc.kill()
        proc.wait(timeout=10)
        proc.stderr.close()
        pytest.fail(failure)
    return proc


def kill_when_paused(
    argv: list[str],
    point: str,
    timeout_s: float = 90,
    on_pause: Callable[[int], None] | None = None,
) -> None:
    """Run ``argv`` until it pauses at ``point``, then (after ``on_pause`` is given its pid)
    kill it outright."""
    proc = run_until_paused(argv, point, timeout_s)
    try:
        if on_pause is not None:
            on_pause(proc.pid)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        assert proc.stderr is not None
        proc.stderr.close()


def staged(out: Path) -> set[str]:
    folder = out / PENDING / "tree" / "results"
    return {d.name for d in folder.iterdir() if (d / "measurement.json").is_file()}


def statuses(out: Path) -> dict[str, str]:
    found = {}
    for d in sorted((out / "results").iterdir()):
        if (d / "measurement.json").is_file():
            m = parse_json((d / "measurement.json").read_bytes())
            assert isinstance(m, dict)
            found[d.name] = m["status"]
    return found
