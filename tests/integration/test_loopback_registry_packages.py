"""The loopback registry's package listing is one a sweep measures: ``serve_loopback_registry``
with ``package_entries.pinned_entries`` (as ``bench/sweep_scale.py``'s packages point uses it),
swept by ``mcpcost sweep --registry`` through the offline ``npx``/``uvx`` shims."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.paths import ROOT
from tests.servers.package_entries import pinned_entries, pinned_servers, write_shims
from tests.servers.registry import serve_loopback_registry


@pytest.mark.slow
def test_a_sweep_measures_the_loopback_registrys_package_entries_as_listed(
    tmp_path: Path,
) -> None:
    servers = pinned_servers()
    if "memory" not in servers or "time" not in servers:
        pytest.skip("the pinned memory and time servers are not installed")
    every = pinned_entries(len(servers) + 1)  # one round, then memory again as a repeat
    chosen = [every[servers.index("memory")], every[servers.index("time")], every[-1]]
    assert [(e.server, e.repeat) for e in chosen] == [("memory", 1), ("time", 1), ("memory", 2)]
    log = tmp_path / "launches.jsonl"
    write_shims(tmp_path / "bin", log)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env["PATH"] = f"{tmp_path / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    out = tmp_path / "site"
    with serve_loopback_registry(1, packages=[e.item for e in chosen]) as base:
        argv = [
            sys.executable, "-m", "mcpcost", "sweep", "--registry", base,
            "--allow-private-addresses", "--no-publish", "--out", str(out),
            "--concurrency", "3", "--timeout", "30",
        ]  # fmt: skip
        done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "1 remote endpoint and 3 packages to measure" in done.stderr
    records = {
        d.name: json.loads((d / "measurement.json").read_text())
        for d in (out / "results").iterdir()
        if (d / "measurement.json").is_file()
    }
    by_entry = {r["registryEntry"]["name"]: r for r in records.values()}
    assert sorted(by_entry) == sorted(
        ["io.github.loopback/remote-00000", *(e.item["server"]["name"] for e in chosen)]
    )
    assert {name: r["status"] for name, r in by_entry.items()} == dict.fromkeys(
        by_entry, "measured"
    )
    for e in chosen:
        assert by_entry[e.item["server"]["name"]]["launchCommand"] == shlex.join(e.argv)
    # two captures per entry, each launched exactly as the entry implies
    launches = sorted(tuple(json.loads(line)) for line in log.read_text().splitlines())
    assert launches == sorted(tuple(e.argv) for e in chosen for _ in range(2))
    first, _, repeat = (by_entry[e.item["server"]["name"]] for e in chosen)
    assert (first["totalTokens"], first["canonicalSha256"]) == (
        repeat["totalTokens"],
        repeat["canonicalSha256"],
    )
    assert first["toolCount"] > 0
