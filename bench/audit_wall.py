"""Audit wall time for a 4-server real config next to the slowest server's bare floor.

The floor is the time ``measure_server`` takes for one server alone (best of N); the audit is
``mcpcost audit --config <4 servers> --json`` run in-process at the default concurrency (4).
Target (issue 4): audit wall <= 1.15 x the slowest server's floor.

    python bench/audit_wall.py [--repeat N] [--concurrency N]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mcpcost.audit.engine import DEFAULT_CONCURRENCY  # noqa: E402
from mcpcost.cli import main  # noqa: E402
from mcpcost.core.model import Measurement  # noqa: E402
from mcpcost.core.spec import ServerSpec  # noqa: E402
from mcpcost.measuring import measure_server  # noqa: E402
from tests.servers.registry import fixture_argv, real_server_argv  # noqa: E402

# The README's four-server stack (pinned npm servers from scripts/setup-test-env.sh); our stdlib
# fixture server stands in for any that is not installed.
REAL = ("filesystem", "memory", "everything", "sequential-thinking")
FALLBACK = ("good", "paginated", "banner", "dynamic")
SERVERS = {
    name: real_server_argv(name) or fixture_argv(mode)
    for name, mode in zip(REAL, FALLBACK, strict=True)
}
TIMEOUT_S = 30.0


def floor(argv: list[str], repeat: int) -> float:
    spec = ServerSpec.stdio("floor", argv)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        m = measure_server(spec, timeout_s=TIMEOUT_S)
        times.append(time.perf_counter() - t0)
        if not m.has_number:
            raise SystemExit(f"{argv}: {m.status} {m.notes}")
    return min(times)


def audit_wall(config: Path, concurrency: int, repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        out, err = io.StringIO(), io.StringIO()
        t0 = time.perf_counter()
        code = main(["audit", "--config", str(config), "--json", "--concurrency", str(concurrency),
                     "--timeout", str(TIMEOUT_S)], out, err)  # fmt: skip
        times.append(time.perf_counter() - t0)
        report = json.loads(out.getvalue())
        if code != 0 or report["configs"][0]["serverCount"] != len(SERVERS):
            raise SystemExit(f"audit failed ({code}): {err.getvalue()}")
    return times


def engine_overhead(concurrency: int, seconds: float = 0.5) -> float:
    """Wall of the engine alone over four I/O-bound stand-ins that each take ``seconds``."""
    from mcpcost.audit.engine import measure_all
    from tests.test_audit_report import measured, tools

    def sleepy(spec: ServerSpec) -> Measurement:
        time.sleep(seconds)
        return measured(spec, tools(spec.name, 3))

    launches = {str(i): ServerSpec.stdio(f"s{i}", ["x", str(i)]) for i in range(len(SERVERS))}
    t0 = time.perf_counter()
    measure_all(launches, sleepy, concurrency=concurrency)
    return (time.perf_counter() - t0) / seconds


def run() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--concurrency", type=int, default=DEFAULT_CONCURRENCY)
    args = ap.parse_args()
    floors = {name: floor(argv, args.repeat) for name, argv in SERVERS.items()}
    for name, seconds in floors.items():
        print(f"floor {name:<20} {seconds * 1000:8.1f} ms")
    slowest = max(floors.values())
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "mcp.json"
        config.write_text(json.dumps({"mcpServers": {
            name: {"command": argv[0], "args": argv[1:]} for name, argv in SERVERS.items()
        }}), "utf-8")  # fmt: skip
        walls = audit_wall(config, args.concurrency, args.repeat)
    best, median = min(walls), statistics.median(walls)
    print(f"slowest floor            {slowest * 1000:8.1f} ms")
    print(f"audit wall (best)        {best * 1000:8.1f} ms   ratio {best / slowest:.2f}x")
    print(f"audit wall (median)      {median * 1000:8.1f} ms   ratio {median / slowest:.2f}x")
    print(f"engine alone, 4 x 500 ms I/O-bound stand-ins: {engine_overhead(args.concurrency):.2f}x")
    print(f"concurrency {args.concurrency}; {os.cpu_count()} CPUs; load {os.getloadavg()[0]:.1f}; "
          "target <= 1.15x")  # fmt: skip


if __name__ == "__main__":
    run()
