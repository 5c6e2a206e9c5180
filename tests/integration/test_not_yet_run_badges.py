"""A not-yet-run entry of the interim tree has the grey ``not yet run`` badge, so a README that
embeds its endpoint shows an honest state; a later real sweep of the entry replaces it with the
measurement's badge, in the same commit as the measurement (a real fixture server, host mode)."""

from __future__ import annotations

import io
import json
import shlex
import subprocess
import sys
from pathlib import Path

from mcpcost.cli import main
from mcpcost.core.badge import BadgeState, badge_file_text, state_badge_file_text
from mcpcost.core.model import Measurement, render_measurement
from mcpcost.core.status import Status
from tests.helpers.paths import ROOT
from tests.servers.registry import fixture_argv

ENV = "this machine reaches only npm and PyPI"


def failed(name: str) -> Measurement:
    return Measurement(
        status=Status.STARTUP_FAILURE,
        server_name=name,
        launch_command="x",
        measured_at="2026-12-02T00:00:00.000Z",
        timeout_ms=1000,
        notes="lookup ghcr.io: no such host",
    )


def test_interim_badge_then_a_real_measurement_replaces_it(tmp_path: Path) -> None:
    command = shlex.join(fixture_argv("good"))
    catalog = tmp_path / "servers.yaml"
    catalog.write_text(
        "servers:\n"
        f"  - name: kept\n    command: {command!r}\n"
        f"  - name: offline\n    command: {command!r}\n"
        "  - name: walled\n    command: https://x.example/sse\n    remote: true\n"
    )
    out = tmp_path / "out"
    # the swept tree: "kept" measured for real, "offline" failed for this machine's reasons
    swept = tmp_path / "swept"
    code = main(
        ["sweep", "--servers", str(catalog), "--only", "kept", "--out", str(swept)],
        io.StringIO(),
        io.StringIO(),
    )
    assert code == 0
    (swept / "results" / "offline").mkdir()
    (swept / "results" / "offline" / "measurement.json").write_text(
        render_measurement(failed("offline"))
    )
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "interim-tree.py"),
            str(swept),
            *("--out", str(out), "--date", "2026-12-02", "--environment", ENV),
            *("--servers", str(catalog)),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "  badges/offline.json\n" in proc.stdout  # written by the interim publish
    badge = out / "badges" / "offline.json"
    assert badge.read_text() == state_badge_file_text(BadgeState.NOT_YET_RUN)
    walled = out / "badges" / "walled.json"  # remote-auth-wall, listed and never measured
    assert walled.read_text() == state_badge_file_text(BadgeState.OAUTH_GATED)
    listed = json.loads((out / "results" / "not-yet-run.json").read_text())
    assert list(listed["servers"]) == ["offline"]
    dataset = json.loads((out / "results" / "data.json").read_text())
    status = {e["name"]: e["status"] for e in dataset["entries"]}
    assert status == {"kept": "measured", "offline": "not-yet-run", "walled": "remote-auth-wall"}

    # a later sweep measures it: the measurement's badge replaces the state badge
    err = io.StringIO()
    code = main(
        ["sweep", "--servers", str(catalog), "--only", "offline", "--out", str(out)],
        io.StringIO(),
        err,
    )
    assert code == 0, err.getvalue()
    m = Measurement.from_dict(
        json.loads((out / "results" / "offline" / "measurement.json").read_text())
    )
    assert m.status is Status.MEASURED and m.has_number
    assert badge.read_text() == badge_file_text(m) != state_badge_file_text(BadgeState.NOT_YET_RUN)
    assert "tokens" in json.loads(badge.read_text())["message"]
    dataset = json.loads((out / "results" / "data.json").read_text())
    status = {e["name"]: e["status"] for e in dataset["entries"]}
    assert status["offline"] == "measured"
    # and publishing again leaves it alone
    assert main(["publish", "--out", str(out), "--servers", str(catalog)], io.StringIO(), err) == 0
    assert badge.read_text() == badge_file_text(m)
