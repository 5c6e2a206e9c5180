"""Issue 26 item 3 on the four reference servers (filesystem, memory, everything,
sequential-thinking), real launches: a Claude Code session shows "about N Claude tokens
(estimate, ±E%)" from the reference calibration, and ``--claude`` with a divergence run whose
rows match every capture's hash shows the exact figure instead; ``--json`` carries it as
``sessions[].claudeEstimate``; a Cursor session (OpenAI-shaped or no projection: not
Anthropic's) shows none; the 0.20x-1.92x band is gone from the report."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcpcost.audit.claude_estimate import REFERENCE_FIT
from mcpcost.cli import audit_cmd
from mcpcost.core.calibration import estimate_request
from mcpcost.core.model import Measurement
from mcpcost.core.spec import ServerSpec
from mcpcost.measuring import MeasureOptions, measure_server
from tests.servers.registry import real_server_argv

REFERENCE = ("filesystem", "memory", "everything", "sequential-thinking")
PROBE_DELTA = 328


class Place:
    def __init__(self, root: Path, measured: dict[str, Measurement]) -> None:
        self.home, self.cwd, self.measured = root / "home", root / "home" / "work", measured
        self.cwd.mkdir(parents=True)

    def audit(self, *args: str) -> tuple[int, str]:
        out, err = io.StringIO(), io.StringIO()
        code = audit_cmd.run(
            ["--concurrency", "4", "--timeout", "60", *args],
            out,
            err,
            environ={"PATH": "/usr/bin:/bin", "COLUMNS": "120"},
            home=self.home,
            cwd=self.cwd,
            platform="linux",
        )
        return code, out.getvalue()


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Place]:
    found = {name: real_server_argv(name) for name in REFERENCE}
    missing = [name for name, argv in found.items() if argv is None]
    if missing:
        pytest.skip(f"pinned servers not installed ({missing}); run scripts/setup-test-env.sh")
    argv = {name: list(a) for name, a in found.items() if a is not None}
    measured = {
        n: measure_server(ServerSpec.stdio(n, a), MeasureOptions(timeout_s=60))
        for n, a in argv.items()
    }
    assert all(m.total_tokens is not None for m in measured.values())
    p = Place(tmp_path_factory.mktemp("claude"), measured)
    servers = {n: {"command": a[0], "args": a[1:]} for n, a in argv.items()}
    (p.home / ".claude.json").write_text(json.dumps({"mcpServers": servers}), "utf-8")
    cursor = p.home / ".cursor" / "mcp.json"
    cursor.parent.mkdir(parents=True)
    cursor.write_text(json.dumps({"mcpServers": servers}), "utf-8")
    yield p


def _session(obj: dict[str, Any], label: str) -> dict[str, Any]:
    return next(s for s in obj["sessions"] if s["label"] == label)


def test_the_estimate_with_its_band_from_the_reference_calibration(place: Place) -> None:
    code, raw = place.audit("--json")
    assert code == 0
    obj = json.loads(raw)
    claude = _session(obj, "Claude Code")["claudeEstimate"]
    # the audit's figure is the calibration's own estimate of the same captures
    expected = estimate_request(list(place.measured.values()), REFERENCE_FIT)
    assert expected is not None and not expected.exact
    assert (claude["tokens"], claude["bandPct"], claude["exact"]) == (
        expected.tokens,
        expected.band_pct,
        False,
    )
    assert 0 < claude["bandPct"] <= 12 and claude["model"] == "claude-opus-5"
    assert claude["text"].startswith(f"about {expected.tokens:,} Claude tokens (estimate, ±")
    assert "claudeEstimate" not in _session(obj, "Cursor")
    code, text = place.audit()
    flat = " ".join(text.split())
    assert f"about {expected.tokens:,} Claude tokens (estimate, ±{expected.band_pct}%;" in flat
    assert "0.20" not in text and "1.92" not in text


def test_a_matching_divergence_run_gives_the_exact_figure(place: Place, tmp_path: Path) -> None:
    rows = {}
    for name, m in place.measured.items():
        rows[name] = {
            "o200kFull": m.total_tokens,
            "o200kMapped": m.total_tokens,
            "claudeDelta": PROBE_DELTA + 2 * (m.total_tokens or 0),  # a number only the run has
            "toolCount": m.tool_count,
            "capturedSha256": m.canonical_sha256,
        }
    run = {
        "method": "tools-delta/v1",
        "model": "claude-test-model",
        "measuredAt": "2026-11-30",
        "baselineTokens": 7,
        "probeDelta": PROBE_DELTA,
        "servers": rows,
    }
    path = tmp_path / "divergence.json"
    path.write_text(json.dumps(run), "utf-8")
    code, raw = place.audit("--json", "--claude", str(path))
    assert code == 0
    claude = _session(json.loads(raw), "Claude Code")["claudeEstimate"]
    total = sum(m.total_tokens or 0 for m in place.measured.values())
    assert claude["exact"] is True and claude["bandPct"] == 0
    assert claude["tokens"] == PROBE_DELTA + 2 * total
    assert claude["model"] == "claude-test-model"
    assert claude["text"].startswith(f"{PROBE_DELTA + 2 * total:,} Claude tokens (counted by")
