"""``mcpcost merge`` at GitHub's matrix limit: 256 shard directories, as the registry-sweep
workflow's matrix jobs leave them, merged into one published tree by the CLI."""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mcpcost.core.badge import badge_file_text
from mcpcost.core.model import render_measurement
from mcpcost.sweep.files import badge_path, measurement_path
from tests.helpers.paths import ROOT
from tests.helpers.sweep_sites import measured, tools

SHARDS = 256  # GitHub's limit on the jobs of one matrix
PER_SHARD = 4


def write(path: Path, text: str) -> None:
    """A shard's file as a matrix job's artifact brings it (set-up: no fsync needed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def shard_dirs(base: Path) -> tuple[list[Path], dict[str, bytes]]:
    """256 shard outputs (``sweep --no-publish``), each with its slice of 1,024 entries; one name
    is in two shards, measured on two days (the newer is kept)."""
    dirs, expected = [], {}
    for k in range(SHARDS):
        shard = base / f"shard-{k:03d}"
        for j in range(PER_SHARD):
            name = f"io.github.synthetic-server-{j * SHARDS + k:05d}"
            m = measured(name, tools(1 + (k + j) % 5), day="2026-11-30")
            write(measurement_path(shard, name), render_measurement(m))
            write(badge_path(shard, name), badge_file_text(m))
            expected[name] = render_measurement(m).encode()
        dirs.append(shard)
    twice = "io.github.synthetic-server-00000"
    newer = measured(twice, tools(7), day="2026-12-01")
    write(measurement_path(dirs[-1], twice), render_measurement(newer))
    expected[twice] = render_measurement(newer).encode()
    return dirs, expected


@pytest.mark.slow
def test_256_shards_merge_into_one_published_tree(tmp_path: Path) -> None:
    dirs, expected = shard_dirs(tmp_path / "shards")
    site = tmp_path / "site"
    argv = [sys.executable, "-m", "mcpcost", "merge", *map(str, dirs), "--out", str(site)]
    started = time.perf_counter()
    proc = subprocess.run(
        argv,
        cwd=tmp_path,  # no servers.yaml: the tree is the shards' alone
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=600,
    )
    seconds = time.perf_counter() - started
    assert proc.returncode == 0, proc.stderr
    print(f"merged {len(expected)} measurements from {SHARDS} shards in {seconds:.1f} s")
    assert f"merged {len(expected):,} measurements from {SHARDS} shards" in proc.stderr
    merged = {
        d.name: (d / "measurement.json").read_bytes()
        for d in (site / "results").iterdir()
        if d.is_dir()
    }
    assert merged == expected  # byte for byte, the newer of the name in two shards
    assert len(list((site / "badges").iterdir())) == len(expected)
    rows = list(csv.reader(io.StringIO((site / "results" / "history.csv").read_text())))
    assert len(rows) == 1 + len(expected)  # the header, one row a server
    assert (site / "results" / "leaderboard.md").is_file()
    assert not (site / ".mcpcost-pending").exists()
