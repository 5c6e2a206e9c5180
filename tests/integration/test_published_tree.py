"""The project's committed published tree: it verifies clean, every catalogued entry has a status
(measured ones with their measurement's badge, the not-yet-run ones with their reason and the
grey ``not yet run`` badge), and the README's short table is the one
scripts/render-readme-table.py makes from it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from mcpcost.core.badge import BadgeState, badge_file_text, state_badge_file_text
from mcpcost.core.model import Measurement
from tests.helpers.paths import ROOT

SCRIPT = ROOT / "scripts" / "render-readme-table.py"


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *argv], capture_output=True, text=True, timeout=300, check=False, cwd=ROOT
    )


def test_the_committed_results_verify_clean() -> None:
    proc = _run("-m", "mcpcost", "verify", "results", "--json")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]


def test_every_entry_has_its_badge_and_every_pending_entry_its_reason() -> None:
    measured = {p.parent.name for p in (ROOT / "results").glob("*/measurement.json")}
    badges = {p.stem: p.read_text() for p in (ROOT / "badges").glob("*.json")}
    pending = json.loads((ROOT / "results" / "not-yet-run.json").read_text())
    assert measured and pending["servers"] and not set(pending["servers"]) & measured
    dataset = json.loads((ROOT / "results" / "data.json").read_text())
    statuses = {e["name"]: e["status"] for e in dataset["entries"]}
    gated = {n for n, s in statuses.items() if s == "remote-auth-wall"} - measured
    assert set(badges) == measured | set(pending["servers"]) | gated
    for name in gated:  # listed behind a sign-in, never measured: the badge says so
        assert badges[name] == state_badge_file_text(BadgeState.OAUTH_GATED), name
    for name in measured:
        m = Measurement.from_dict(
            json.loads((ROOT / "results" / name / "measurement.json").read_text())
        )
        assert badges[name] == badge_file_text(m), name
    for name in pending["servers"]:
        assert badges[name] == state_badge_file_text(BadgeState.NOT_YET_RUN), name
    assert {n for n, s in statuses.items() if s == "not-yet-run"} == set(pending["servers"])
    assert all(reason.strip() for reason in pending["servers"].values())
    board = (ROOT / "results" / "leaderboard.md").read_text()
    for name in pending["servers"]:
        line = next(row for row in board.splitlines() if row.startswith(f"| {name} |"))
        assert "not-yet-run" in line and "not run yet:" in line


def test_the_readme_table_is_current() -> None:
    proc = _run(str(SCRIPT), "--check")
    assert proc.returncode == 0, proc.stderr


def test_a_stale_readme_table_is_caught(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text()
    stale = tmp_path / "README.md"
    stale.write_text(readme.replace(" tokens |", " tokens (old) |", 1))
    assert stale.read_text() != readme
    proc = _run(str(SCRIPT), "--check", "--readme", str(stale))
    assert proc.returncode == 1 and "stale" in proc.stderr
    assert _run(str(SCRIPT), "--readme", str(stale)).returncode == 0  # rewritten
    assert stale.read_text() == readme
