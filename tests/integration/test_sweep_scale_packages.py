"""``bench/sweep_scale.py``'s packages point, small: both arms run over real package entries,
every launch is counted, and the sweep's numbers equal measuring the same commands directly."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.helpers.paths import ROOT
from tests.servers.package_entries import pinned_servers


@pytest.mark.slow
def test_the_packages_point_runs_both_arms_and_finds_the_direct_numbers() -> None:
    servers = pinned_servers()
    if len(servers) < 2:
        pytest.skip("fewer than two pinned real servers are installed")
    k = len(servers) + 1  # one round and a repeat
    argv = [
        sys.executable, str(ROOT / "bench" / "sweep_scale.py"), "--points", "",
        "--packages", str(k), "--concurrency", "2",
    ]  # fmt: skip
    done = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr + done.stdout
    out = done.stdout
    assert f"the other 1 repeat them under other names: {servers[0]}-repeat-2" in out
    assert f"{len(servers)}/{len(servers)} answered tools/list" in out
    row = next(line for line in out.splitlines() if line.startswith(f"| {k} |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[-3:] == [f"{2 * k} / {2 * k}", f"{k}/{k}", f"{k}/{k}"]
    short = re.findall(r"(?m)^ +(?:bare|sweep) at \d+: exit .*$", out)
    assert short == []  # an arm with fewer entries done than listed says so
