"""The interim tree (scripts/interim-tree.py, ``mcpcost.sweep.interim``): what measured is
published, a failure of this machine is listed as not-yet-run with its reason, never as the
server's failure."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from mcpcost.core.badge import BadgeState, state_badge_file_text
from mcpcost.core.measure import measure_tools
from mcpcost.core.model import Measurement, render_measurement
from mcpcost.core.status import Status
from mcpcost.sweep.interim import parse_not_yet_run, pending_from
from mcpcost.sweep.views import build_board
from tests.helpers.paths import ROOT

ENV = "this machine reaches only npm and PyPI"


def measurement(name: str, status: Status, notes: str | None = None) -> Measurement:
    if not status.has_number:
        return Measurement(
            status=status,
            server_name=name,
            launch_command="x",
            measured_at="2026-12-02T00:00:00.000Z",
            timeout_ms=1000,
            notes=notes,
        )
    m = measure_tools([{"name": "echo", "description": "Echo", "inputSchema": {"type": "object"}}])
    return Measurement(
        status=status,
        server_name=name,
        launch_command="x",
        measured_at="2026-12-02T00:00:00.000Z",
        timeout_ms=1000,
        total_tokens=m.total_tokens,
        tool_count=1,
        tools=m.tools,
        canonical_sha256=m.canonical.sha256,
        raw_tools_capture=m.capture,
    )


def test_failures_become_reasons_and_answers_of_the_server_stay() -> None:
    ms = {
        "a": measurement("a", Status.MEASURED),
        "b": measurement("b", Status.STARTUP_FAILURE, "getaddrinfo ENOTFOUND api.example\nmore"),
        "c": measurement("c", Status.TIMEOUT, "no reply"),
        "d": measurement("d", Status.AUTH_REQUIRED, "401"),
    }
    reasons = pending_from(ms, ENV)
    assert sorted(reasons) == ["b", "c"]
    assert reasons["b"] == (f"{ENV}: startup-failure here, getaddrinfo ENOTFOUND api.example more")
    doc = {"servers": reasons}
    board = build_board(None, {"a": ms["a"], "d": ms["d"]}, [], not_yet_run=doc)
    assert [r.name for r in board.measured] == ["a"]
    assert [(r.name, r.status) for r in board.not_measured] == [("d", Status.AUTH_REQUIRED)]
    assert parse_not_yet_run({"servers": {"x": 1, "y": "why"}}) == {"y": "why"}
    assert parse_not_yet_run("nonsense") == {}


def test_the_script_publishes_what_measured_and_lists_the_rest_with_the_reason(
    tmp_path: Path,
) -> None:
    swept = tmp_path / "swept"
    for name, status, notes in (
        ("good", Status.MEASURED, None),
        ("offline", Status.STARTUP_FAILURE, "lookup ghcr.io: no such host"),
    ):
        folder = swept / "results" / name
        folder.mkdir(parents=True)
        (folder / "measurement.json").write_text(
            render_measurement(measurement(name, status, notes))
        )
        (swept / "badges").mkdir(exist_ok=True)
        (swept / "badges" / f"{name}.json").write_text("{}\n")
    catalog = tmp_path / "servers.yaml"
    catalog.write_text(
        "servers:\n  - name: good\n    command: x\n  - name: offline\n    command: y\n"
    )
    out = tmp_path / "out"
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "interim-tree.py"),
            str(swept),
            "--out",
            str(out),
            "--date",
            "2026-12-02",
            "--environment",
            ENV,
            "--servers",
            str(catalog),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert (out / "results" / "good" / "measurement.json").is_file()
    assert (out / "badges" / "good.json").is_file()
    assert not (out / "results" / "offline").exists()
    # listed, not measured: the grey state badge, so an embedded endpoint does not answer 404
    assert (out / "badges" / "offline.json").read_text() == state_badge_file_text(
        BadgeState.NOT_YET_RUN
    )
    board = (out / "results" / "leaderboard.md").read_text()
    offline = next(line for line in board.splitlines() if "offline" in line)
    assert "not-yet-run" in offline and "startup-failure" in offline
    assert "no such host" in offline and "reaches only npm and PyPI" in offline
    dataset = json.loads((out / "results" / "data.json").read_text())
    entry = next(e for e in dataset["entries"] if e["name"] == "offline")
    assert entry["status"] == "not-yet-run" and "no such host" in entry["notes"]
    history = (out / "results" / "history.csv").read_text()
    assert "good" in history and "offline" not in history
    verify = subprocess.run(
        [sys.executable, "-m", "mcpcost", "verify", str(out / "results")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert verify.returncode == 0, verify.stdout + verify.stderr
