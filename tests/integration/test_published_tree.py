"""The project's committed published tree: it verifies clean, every catalogued entry has a status
(measured ones with a badge, the others with their reason), and the README's short table is the
one scripts/render-readme-table.py makes from it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.helpers.paths import ROOT

SCRIPT = ROOT / "scripts" / "render-readme-table.py"


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *argv], capture_output=True, text=True, timeout=300, check=False, cwd=ROOT
    )


def test_the_committed_results_verify_clean() -> None:
    proc = _run("-m", "mcpcost", "verify", "results", "--json")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]


def test_every_measurement_has_its_badge_and_every_pending_entry_its_reason() -> None:
    measured = {p.parent.name for p in (ROOT / "results").glob("*/measurement.json")}
    badges = {p.stem for p in (ROOT / "badges").glob("*.json")}
    assert measured and measured == badges
    pending = json.loads((ROOT / "results" / "not-yet-run.json").read_text())
    assert pending["servers"] and not set(pending["servers"]) & measured
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
