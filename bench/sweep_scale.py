#!/usr/bin/env python3
"""Bench: a registry sweep at scale against a bare concurrent client on the same entries.

    PYTHONPATH=. python bench/sweep_scale.py [--points 1000,5000,10000] [--concurrency 8]
                                             [--pairs 1]

For each point N a loopback registry of N remote entries is started
(``tests/servers/loopback_registry.py``: one process serving the registry's pages and every
entry's Streamable HTTP endpoint, each on its own path), then two arms run against it, one after
the other, their order alternating from pair to pair so that the machine's load drifts over
both alike:

* ``sweep``  ``python -m mcpcost sweep --registry URL --allow-private-addresses --no-publish``
             at ``--concurrency`` C, as a matrix shard runs it: the registry read page by page,
             the auth-wall check, two captures per entry, each result written through the
             output tree, the harness guard, the commit.
* ``bare``   the floor: a separate Python process that pages through the same registry and, for
             every entry, makes the two captures a measurement needs (``initialize``,
             ``notifications/initialized``, ``tools/list``, ``DELETE`` of the session, with
             ``requests``, the HTTP client the transports use), 2C captures at a time (the sweep
             runs C entries of two captures each), and does nothing with the answers.

Printed per point: each arm's wall time and entries per second, the throughput ratio
(sweep / bare; the goal is >= 0.9x), each arm's peak RSS (the goal is <= 300 MiB at 10,000
entries), and the sweep's seconds per 1,000 entries (constant if its time grows linearly). The
load average is printed before and after every arm.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def run_arm(argv: list[str], env: dict[str, str]) -> tuple[float, float, float, int, str]:
    """(wall seconds, CPU seconds, peak RSS MiB, exit code, output tail) of one child process."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    # drain both pipes on threads: the sweep writes a progress line per entry
    tails: dict[str, bytes] = {}

    def drain(name: str, stream: Any) -> None:
        tail = b""
        for chunk in iter(lambda: stream.read(65536), b""):
            tail = (tail + chunk)[-4000:]
        tails[name] = tail

    threads = [
        threading.Thread(target=drain, args=(n, s))
        for n, s in (("out", proc.stdout), ("err", proc.stderr))
    ]
    for t in threads:
        t.start()
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - started
    for t in threads:
        t.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    text = (tails.get("out", b"") + tails.get("err", b"")).decode("utf-8", "replace")
    cpu = usage.ru_utime + usage.ru_stime
    return elapsed, cpu, usage.ru_maxrss / 1024, proc.returncode, text


def count_results(out: Path) -> int:
    results = out / "results"
    return (
        sum(1 for d in results.iterdir() if (d / "measurement.json").is_file())
        if results.is_dir()
        else 0
    )


# -- the bare client (run as a child process: python bench/sweep_scale.py --bare URL C) ---------

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bare", "version": "0"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def bare_capture(url: str) -> bool:
    import requests

    with requests.Session() as http:
        r = http.post(url, data=json.dumps(INIT), headers=HEADERS, timeout=30)
        sid = r.headers.get("Mcp-Session-Id", "")
        if r.status_code != 200 or not sid:
            return False
        r.json()
        headers = {**HEADERS, "Mcp-Session-Id": sid}
        http.post(url, data=json.dumps(INITIALIZED), headers=headers, timeout=30).close()
        r = http.post(url, data=json.dumps(LIST), headers=headers, timeout=30)
        ok = r.status_code == 200 and isinstance(r.json().get("result", {}).get("tools"), list)
        http.delete(url, headers={"Mcp-Session-Id": sid}, timeout=30).close()
        return ok


def bare(base: str, concurrency: int) -> int:
    """Page through the registry, capture every remote twice, 2 * concurrency at a time."""
    import queue

    import requests

    work: queue.Queue[str | None] = queue.Queue(maxsize=4 * concurrency)
    done = [0]
    lock = threading.Lock()

    def worker() -> None:
        while (url := work.get()) is not None:
            if bare_capture(url):
                with lock:
                    done[0] += 1

    threads = [threading.Thread(target=worker) for _ in range(2 * concurrency)]
    for t in threads:
        t.start()
    cursor = ""
    with requests.Session() as http:
        while True:
            query = {"limit": "100", "version": "latest", **({"cursor": cursor} if cursor else {})}
            page = http.get(base + "/v0.1/servers", params=query, timeout=30).json()
            for item in page["servers"]:
                for remote in item["server"].get("remotes") or []:
                    work.put(remote["url"])
                    work.put(remote["url"])
            cursor = page.get("metadata", {}).get("nextCursor") or ""
            if not cursor:
                break
    for _ in threads:
        work.put(None)
    for t in threads:
        t.join()
    print(done[0] // 2)
    return 0


# -- the benchmark -------------------------------------------------------------------------------


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--points", default="1000,5000,10000")
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--pairs", type=int, default=1, help="runs of both arms per point")
    p.add_argument("--bare", nargs=2, metavar=("URL", "C"), help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.bare:
        return bare(args.bare[0], int(args.bare[1]))

    from tests.servers.registry import serve_loopback_registry

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    points = [int(x) for x in args.points.split(",")]
    c = args.concurrency
    print(
        f"sweep at scale: loopback registry, concurrency {c}, {os.cpu_count()} CPUs "
        f"(affinity {len(os.sched_getaffinity(0))}), load {load()}"
    )
    rows: list[dict[str, Any]] = []
    flip = 0
    for n in points:
        times: dict[str, list[float]] = {"bare": [], "sweep": []}
        rss: dict[str, list[float]] = {"bare": [], "sweep": []}
        cpus: dict[str, list[float]] = {"bare": [], "sweep": []}
        loads: list[str] = []
        with serve_loopback_registry(n) as base:
            for _ in range(args.pairs):
                order = ("bare", "sweep") if flip % 2 == 0 else ("sweep", "bare")
                flip += 1
                for arm in order:
                    with tempfile.TemporaryDirectory(prefix="mcpcost-bench-") as tmp:
                        if arm == "sweep":
                            argv = [
                                sys.executable, "-m", "mcpcost", "sweep", "--registry", base,
                                "--allow-private-addresses", "--no-publish", "--out", tmp,
                                "--concurrency", str(c), "--timeout", "60",
                            ]  # fmt: skip
                        else:
                            argv = [sys.executable, str(Path(__file__)), "--bare", base, str(c)]
                        before = load()
                        wall, cpu, peak, code, tail = run_arm(argv, env)
                        after = load()
                        got = (
                            count_results(Path(tmp))
                            if arm == "sweep"
                            else int(tail.split()[0] or 0)
                        )
                    loads.append(f"{before}->{after}")
                    if code != 0 or got != n:
                        print(f"  {arm} at {n}: exit {code}, {got}/{n} entries\n{tail[-1500:]}")
                    times[arm].append(wall)
                    cpus[arm].append(cpu)
                    rss[arm].append(peak)
                    print(
                        f"  {n:>6} entries  {arm:<5} {wall:8.1f} s  {n / wall:7.1f} entries/s  "
                        f"CPU {cpu / n * 1000:5.1f} ms/entry  "
                        f"peak RSS {peak:6.1f} MiB  load {before} -> {after}",
                        flush=True,
                    )
        bare_s = statistics.median(times["bare"])
        sweep_s = statistics.median(times["sweep"])
        rows.append(
            {
                "n": n,
                "bare": bare_s,
                "sweep": sweep_s,
                "ratio": bare_s / sweep_s,
                "pair_ratios": [b / s for b, s in zip(times["bare"], times["sweep"], strict=True)],
                "rss_sweep": max(rss["sweep"]),
                "rss_bare": max(rss["bare"]),
                "cpu_sweep": statistics.median(cpus["sweep"]) / n * 1000,
                "cpu_bare": statistics.median(cpus["bare"]) / n * 1000,
                "loads": loads,
            }
        )
    print()
    print(
        "| entries | bare client | sweep | throughput ratio (sweep / bare) | sweep s per 1,000 "
        "| CPU per entry (sweep / bare) | sweep peak RSS | bare peak RSS "
        "| load (before -> after each arm) |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for r in rows:
        print(
            f"| {r['n']:,} | {r['bare']:.1f} s ({r['n'] / r['bare']:.1f}/s) "
            f"| {r['sweep']:.1f} s ({r['n'] / r['sweep']:.1f}/s) | {r['ratio']:.2f}x "
            f"| {r['sweep'] / r['n'] * 1000:.1f} s "
            f"| {r['cpu_sweep']:.1f} / {r['cpu_bare']:.1f} ms | {r['rss_sweep']:.0f} MiB "
            f"| {r['rss_bare']:.0f} MiB | {'; '.join(r['loads'])} |"
        )
    print(f"load at the end {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
