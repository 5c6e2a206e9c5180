"""Bench: ``mcpcost measure`` wall time against the bare floor, per real pinned server.

The floor is what any client must pay: spawn the server, ``initialize``, ``notifications/
initialized``, ``tools/list`` answered (a minimal blocking client, no threads, no checks).
``measure_server`` does two full captures concurrently (two launches), compares them and tears
the process groups down. Target (issue 3): measure <= 1.15x the floor.

Columns (medians over ``--runs``, milliseconds unless said):

* ``floor``        one bare launch, the target's denominator
* ``cpu s/launch`` CPU seconds (user+sys) one launch of the server burns until its answer
* ``2 floors``     two bare launches at once: what two concurrent start-ups cost on this machine
                   with no client overhead at all; on 2 busy cores this alone exceeds 1.15x
* ``measure``      ``measure_server`` in-process (tokenizer already loaded): two captures
* ``cli``          ``python -m mcpcost measure --json`` as a user runs it: interpreter start,
                   imports, tokenizer load (overlapping the launches) and the two captures
* ratios           measure / floor, measure / 2 floors (the part mcpcost adds), cli / floor

    PYTHONPATH=. python bench/measure_floor.py [--runs N] [SERVER...]
    taskset -c 0,1 PYTHONPATH=. python bench/measure_floor.py   # pin, on a bigger machine

Servers come from ``tests/servers/registry.py`` (installed by scripts/setup-test-env.sh);
missing ones are listed as skipped. The load average and CPU affinity are printed before and
after: on a machine shared with other jobs every ratio grows with the load.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mcpcost.core.spec import ServerSpec  # noqa: E402
from mcpcost.core.tokenizer import get_tokenizer  # noqa: E402
from mcpcost.measuring import MeasureOptions, measure_server  # noqa: E402
from mcpcost.transports.stdio import safe_base_env  # noqa: E402
from tests.servers.registry import (  # noqa: E402
    REAL_STDIO_SERVERS,
    real_server,
    real_server_missing,
)


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def floor_once(argv: list[str], env: dict[str, str]) -> float:
    """Seconds from spawn to the tools/list answer, with the simplest possible client."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        start_new_session=True,
    )
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
        send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "floor", "version": "0"},
                },
            }
        )
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


def floor_with_cpu(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the launch); the child is reaped, so its usage counts."""
    before = children_cpu()
    wall = floor_once(argv, env)
    return wall, children_cpu() - before


def floor_pair(argv: list[str], env: dict[str, str]) -> float:
    """Two floors at once: what two concurrent launches cost on this machine, client aside."""
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(lambda _: floor_once(argv, env), range(2)))
    return time.perf_counter() - started


def measure_once(name: str, argv: list[str], env: dict[str, str]) -> tuple[float, str]:
    spec = ServerSpec.stdio(name, argv, env=env)
    started = time.perf_counter()
    m = measure_server(spec, MeasureOptions(timeout_s=60, retry_timeouts=False))
    return time.perf_counter() - started, str(m.status)


def cli_once(argv: list[str], env: dict[str, str]) -> tuple[float, str]:
    """``python -m mcpcost measure --json`` as a subprocess: what a user waits for."""
    flags = [x for name in env for x in ("--env", name)]
    cmd = [
        sys.executable,
        "-m",
        "mcpcost",
        "measure",
        "--json",
        "--no-retry",
        "--timeout",
        "60",
        *flags,
        "--",
        *argv,
    ]
    child_env = {**os.environ, **env, "PYTHONPATH": str(ROOT)}
    started = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, env=child_env, check=False)
    wall = time.perf_counter() - started
    try:
        status = str(json.loads(done.stdout)["status"])
    except (ValueError, KeyError):
        status = f"exit {done.returncode}"
    return wall, status


def machine_line(when: str) -> str:
    one, five, _ = os.getloadavg()
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    return (
        f"{when}: load average {one:.2f} (1 min) {five:.2f} (5 min); {os.cpu_count()} CPUs, "
        f"this process may run on {cpus}"
    )


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--no-cli", action="store_true", help="skip the CLI subprocess column")
    p.add_argument("servers", nargs="*", default=list(REAL_STDIO_SERVERS))
    args = p.parse_args()
    print(machine_line("before"))
    started = time.perf_counter()
    get_tokenizer()
    print(
        f"one-time tokenizer load in this process: {(time.perf_counter() - started) * 1000:.0f}"
        " ms (the cli column pays it on every run, overlapped with the launches)"
    )
    print(
        f"{'server':20} {'floor':>6} {'cpu s/launch':>12} {'2 floors':>9} {'measure':>8} "
        f"{'cli':>6} {'measure/floor':>13} {'measure/2 floors':>16} {'cli/floor':>9}  status"
    )
    for name in args.servers:
        missing = real_server_missing(name)
        server = real_server(name)
        if missing is not None or server is None:
            print(f"{name:20} skipped: {missing}")
            continue
        argv = list(server.argv)
        env = {**safe_base_env(os.environ), **dict(server.env)}
        floor_once(argv, env)  # warm the OS file cache once
        floors, cpus, pairs, walls, clis, statuses = [], [], [], [], [], set()
        for _ in range(args.runs):
            wall_s, cpu_s = floor_with_cpu(argv, env)
            floors.append(wall_s)
            cpus.append(cpu_s)
            pairs.append(floor_pair(argv, env))
            wall, status = measure_once(name, argv, dict(server.env))
            walls.append(wall)
            statuses.add(status)
            if not args.no_cli:
                cli, status = cli_once(argv, dict(server.env))
                clis.append(cli)
                statuses.add(status)
        floor, wall = statistics.median(floors), statistics.median(walls)
        pair = statistics.median(pairs)
        cli = statistics.median(clis) if clis else float("nan")
        print(
            f"{name:20} {floor * 1000:6.0f} {statistics.median(cpus):12.2f} {pair * 1000:9.0f} "
            f"{wall * 1000:8.0f} {cli * 1000:6.0f} {wall / floor:13.2f} {wall / pair:16.2f} "
            f"{cli / floor:9.2f}  {','.join(sorted(statuses))}"
        )
    print(machine_line("after"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
