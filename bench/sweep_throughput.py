#!/usr/bin/env python3
"""Sweep throughput over local servers at concurrency 1, 2 and 4 (servers per minute).

usage: python bench/sweep_throughput.py [--servers N] [--repeat R]

Builds a catalog of N local stdio servers (our fixture server in several modes plus the pinned
real npm servers when installed), sweeps it in host mode into a fresh directory per run, and
prints wall time, servers/minute and the speed-up over concurrency 1. Each measurement launches
every server twice (the dual capture), so a "server" here is two launches.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shlex
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mcpcost.measuring import MeasureOptions  # noqa: E402
from mcpcost.sweep.catalog import load_catalog  # noqa: E402
from mcpcost.sweep.measure_adapter import make_measure  # noqa: E402
from mcpcost.sweep.runner import SweepOptions, run_sweep  # noqa: E402
from tests.servers.registry import fixture_argv, real_server_argv  # noqa: E402

MODES = ("good", "banner", "paginated", "server-requests")
REAL = ("memory", "sequential-thinking", "everything", "filesystem")


def catalog_text(n: int) -> str:
    pool: list[list[str]] = [fixture_argv(m) for m in MODES]
    pool += [argv for name in REAL if (argv := real_server_argv(name)) is not None]
    lines = ["servers:"]
    for i in range(n):
        argv = pool[i % len(pool)]
        lines += [f"  - name: s{i:03d}", f"    command: {shlex.join(argv)!r}"]
    return "\n".join(lines) + "\n"


def run_once(n: int, concurrency: int) -> float:
    cat = load_catalog(catalog_text(n), "bench.yaml")
    now = dt.datetime.now(dt.UTC)
    with tempfile.TemporaryDirectory(prefix="mcpcost-bench-") as tmp:
        started = time.perf_counter()
        outcome = run_sweep(
            cat,
            list(cat.entries),
            Path(tmp),
            make_measure(None, MeasureOptions(now=lambda: now)),
            SweepOptions(concurrency=concurrency, default_timeout_s=30),
            clock=lambda: now,
            progress=lambda _line: None,
        )
        elapsed = time.perf_counter() - started
    good = sum(1 for s in outcome.statuses.values() if s.has_number)
    if good != n:
        print(f"  warning: only {good}/{n} measured", file=sys.stderr)
    return elapsed


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--servers", type=int, default=16)
    p.add_argument("--repeat", type=int, default=1)
    args = p.parse_args()
    print(f"sweep throughput: {args.servers} local servers, host mode, {os.cpu_count()} CPUs")
    base: float | None = None
    for concurrency in (1, 2, 4):
        elapsed = min(run_once(args.servers, concurrency) for _ in range(args.repeat))
        per_min = args.servers / elapsed * 60
        base = base or per_min
        print(
            f"  concurrency {concurrency}: {elapsed:6.2f} s  {per_min:7.1f} servers/min  "
            f"x{per_min / base:.2f} vs concurrency 1"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
