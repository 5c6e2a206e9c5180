"""Bench: ``measure_server`` wall time against the bare floor, per real pinned server.

The floor is what any client must pay: spawn the server, ``initialize``, ``notifications/
initialized``, ``tools/list`` answered (a minimal blocking client, no threads, no checks).
``measure_server`` does two full captures concurrently, compares them and tears the process
groups down. Target: measure <= 1.15x the floor. The extra column runs two floors at once: on a
machine with few free cores two concurrent launches cost more than one whatever the client does,
and the last ratio isolates what mcpcost itself adds. The pipelined floor (``tests/servers/
floor.py``) sends initialize, initialized and tools/list without waiting, which the spec does not
allow a client to do; it is shown for reference only.

    PYTHONPATH=. python bench/measure_floor.py [--runs N] [SERVER...]

Servers come from ``tests/servers/registry.py`` (installed by scripts/setup-test-env.sh);
missing ones are listed as skipped. Prints one row per server: medians in milliseconds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mcpcost.core.spec import ServerSpec
from mcpcost.core.tokenizer import get_tokenizer
from mcpcost.measuring import measure_server
from mcpcost.transports.stdio import safe_base_env
from tests.servers.floor import bare_floor
from tests.servers.registry import (
    REAL_STDIO_SERVERS,
    real_server,
    real_server_missing,
)


def floor_once(argv: list[str], env: dict[str, str]) -> float:
    """Seconds from spawn to the tools/list answer, with the simplest possible client."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env, start_new_session=True)  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None

    def send(msg: dict[str, object]) -> None:
        assert proc.stdin is not None
        proc.stdin.write((json.dumps(msg) + "\n").encode())
        proc.stdin.flush()

    def wait_id(rid: int) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if isinstance(msg, dict) and msg.get("id") == rid and "method" not in msg:
                return
        raise RuntimeError("server closed before answering")

    try:
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "floor", "version": "0"}}})  # fmt: skip
        wait_id(1)
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        wait_id(2)
        return time.perf_counter() - started
    finally:
        try:
            os.killpg(proc.pid, 9)
        except ProcessLookupError:
            pass
        proc.wait()
        proc.stdin.close()
        proc.stdout.close()


def floor_pair(argv: list[str], env: dict[str, str]) -> float:
    """Two floors at once: what two concurrent launches cost on this machine, client aside."""
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(lambda _: floor_once(argv, env), range(2)))
    return time.perf_counter() - started


def measure_once(name: str, argv: list[str], env: dict[str, str]) -> tuple[float, str]:
    spec = ServerSpec.stdio(name, argv, env=env)
    started = time.perf_counter()
    m = measure_server(spec, timeout_s=60, retry_timeouts=False)
    return time.perf_counter() - started, str(m.status)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("servers", nargs="*", default=list(REAL_STDIO_SERVERS))
    args = p.parse_args()
    started = time.perf_counter()
    get_tokenizer()
    print(f"one-time tokenizer load: {(time.perf_counter() - started) * 1000:.0f} ms "
          "(measure_server overlaps it with server start-up; excluded below)")  # fmt: skip
    print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs "
          "(the two captures compete for CPU with everything else)")  # fmt: skip
    print(f"{'server':22} {'floor ms':>9} {'measure ms':>11} {'ratio':>6} "
          f"{'2 floors at once ms':>20} {'ratio to that':>14} {'pipelined floor ms':>19}  "
          "status")  # fmt: skip
    for name in args.servers:
        missing = real_server_missing(name)
        server = real_server(name)
        if missing is not None or server is None:
            print(f"{name:22} skipped: {missing}")
            continue
        argv = list(server.argv)
        env = {**safe_base_env(os.environ), **dict(server.env)}
        floor_once(argv, env)  # warm the OS file cache once
        floors, pairs, walls, piped, statuses = [], [], [], [], set()
        for _ in range(args.runs):
            floors.append(floor_once(argv, env))
            piped.append(bare_floor(argv))
            pairs.append(floor_pair(argv, env))
            wall, status = measure_once(name, argv, dict(server.env))
            walls.append(wall)
            statuses.add(status)
        floor, wall = statistics.median(floors), statistics.median(walls)
        pair = statistics.median(pairs)
        print(f"{name:22} {floor * 1000:9.0f} {wall * 1000:11.0f} {wall / floor:6.2f} "
              f"{pair * 1000:20.0f} {wall / pair:14.2f} {statistics.median(piped) * 1000:19.0f}  "
              f"{','.join(sorted(statuses))}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
