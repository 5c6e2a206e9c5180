#!/usr/bin/env python3
"""Bench: a registry sweep at scale against a bare concurrent client on the same entries.

    PYTHONPATH=. python bench/sweep_scale.py [--points 1000,5000,10000] [--concurrency 8]
                                             [--pairs 1] [--packages 24]

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
(sweep / bare; the goal is >= 0.9x), each arm's peak RSS, summed over its process tree (the
sweep's measuring processes included; the goal is <= 300 MiB at 10,000 entries), and the
sweep's seconds per 1,000 entries (constant if its time grows linearly). The
load average is printed before and after every arm.

The packages point (``--packages K``, 0 to leave it out; ``--points ''`` runs it alone): a
loopback registry listing only K package entries for the real npm and PyPI servers pinned under
tests/servers (``tests/servers/package_entries.py``: one entry per distinct server, then the
same servers again under other names, ``<name>-repeat-2`` and up, to reach K; the output says
which are repeats). ``npx -y pkg@version`` / ``uvx pkg==version`` are launched as each entry
says, through the PATH shims the e2e test uses, which resolve the pinned version to the local
install (no network, no package cache; a wrong pin fails) and log every launch. Both arms run
with those shims first on PATH:

* ``sweep``  the same command as above, on this registry.
* ``bare``   a separate Python process that pages through the registry and, for every package
             entry, launches the command the entry implies twice (plain ``subprocess`` pipes),
             2C launches at a time, says ``initialize``, ``notifications/initialized``,
             ``tools/list`` as JSON lines, then stops the process (stdin closed, SIGTERM).

Before the first arm every distinct command is launched once, untimed, so that both arms find
the same warm page cache (node_modules, the venv, Python's bytecode). Printed besides the row:
how many launches each arm made (from the shims' log; 2K expected), how many entries the sweep
launched with exactly the command the entry implies, and how many of the sweep's numbers
(``totalTokens``, ``toolCount``, ``canonicalSha256``) equal ``mcpcost measure`` of that command.
Peak RSS is ``wait4``'s: the largest single process of the arm's tree (a server or the client).
CPU per entry includes the servers' CPU (each arm reaps its servers).
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


def tree_rss_mib(root: int) -> float:
    """The resident memory of ``root`` and every process below it, summed (Linux ``/proc``)."""
    from mcpcost.runtime.processes.linux import LinuxPlatform

    parents = {pid: ppid for pid, ppid, _ in LinuxPlatform().processes()}
    tree, grew = {root}, True
    while grew:
        below = {pid for pid, parent in parents.items() if parent in tree} - tree
        grew = bool(below)
        tree |= below
    total = 0
    for pid in tree:
        try:
            with open(f"/proc/{pid}/statm") as f:
                total += int(f.read().split()[1])
        except (OSError, ValueError, IndexError):
            continue
    return total * os.sysconf("SC_PAGE_SIZE") / (1 << 20)


def sample_tree_rss(root: int, stop: threading.Event, peak: list[float]) -> None:
    """Keep the largest ``tree_rss_mib(root)`` seen in ``peak[0]`` until ``stop``: a sweep's
    measuring processes are its own, and ``wait4`` reports only the largest single one."""
    while not stop.wait(0.25):
        peak[0] = max(peak[0], tree_rss_mib(root))


def run_arm(argv: list[str], env: dict[str, str]) -> tuple[float, float, float, int, str]:
    """(wall seconds, CPU seconds, peak RSS MiB of its process tree, exit code, output tail) of
    one child process (CPU: the process and every process below it that it waited for)."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    stop, peak = threading.Event(), [0.0]
    sampler = threading.Thread(target=sample_tree_rss, args=(proc.pid, stop, peak))
    sampler.start()
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
    stop.set()
    sampler.join()
    for t in threads:
        t.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    text = (tails.get("out", b"") + tails.get("err", b"")).decode("utf-8", "replace")
    cpu = usage.ru_utime + usage.ru_stime
    return elapsed, cpu, max(peak[0], usage.ru_maxrss / 1024), proc.returncode, text


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


# -- the bare stdio client (python bench/sweep_scale.py --bare-packages URL C) -------------------

# The variables a launched server gets besides the entry's own (as a client's minimal env).
STDIO_ENV = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "TZ", "TMPDIR")
DUMMY = "dummy"  # a required variable without a value, as the methodology sets it


def _words(arguments: list[dict[str, Any]] | None) -> list[str]:
    out: list[str] = []
    for arg in arguments or []:
        value = arg.get("value", arg.get("default"))
        if value is None:
            continue
        out.extend([arg["name"], str(value)] if arg.get("type") == "named" else [str(value)])
    return out


def implied_launch(package: dict[str, Any]) -> tuple[list[str], dict[str, str]]:
    """The command and environment a ``packages[]`` item (npm or PyPI) implies, read by the bare
    client itself: ``npx -y [runtime] id@version [args]`` / ``uvx [runtime] id==version [args]``."""
    runtime = _words(package.get("runtimeArguments"))
    args = _words(package.get("packageArguments"))
    ident, version = package["identifier"], package.get("version")
    if package["registryType"] == "npm":
        argv = ["npx", "-y", *runtime, f"{ident}@{version}" if version else ident, *args]
    else:
        argv = ["uvx", *runtime, f"{ident}=={version}" if version else ident, *args]
    env = {k: os.environ[k] for k in STDIO_ENV if k in os.environ}
    for var in package.get("environmentVariables") or []:
        value = var.get("value", var.get("default"))
        if value is None and var.get("isRequired"):
            value = DUMMY
        if value is not None:
            env[var["name"]] = str(value)
    return argv, env


def _reply(stream: Any, want: int) -> dict[str, Any] | None:
    """The JSON-RPC answer to id ``want`` from a server's stdout lines (others skipped)."""
    for line in stream:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if isinstance(msg, dict) and msg.get("id") == want:
            return msg
    return None


def bare_stdio_capture(argv: list[str], env: dict[str, str], timeout: float = 60) -> bool:
    """Launch, initialize, list the tools, stop: one capture with nothing kept."""
    import signal

    proc = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        start_new_session=True,
    )
    assert proc.stdin is not None and proc.stdout is not None

    def stop() -> None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass

    timer = threading.Timer(timeout, stop)
    timer.start()
    try:
        proc.stdin.write(json.dumps(INIT).encode() + b"\n")
        proc.stdin.flush()
        if _reply(proc.stdout, 1) is None:
            return False
        proc.stdin.write(
            json.dumps(INITIALIZED).encode() + b"\n" + json.dumps(LIST).encode() + b"\n"
        )
        proc.stdin.flush()
        listed = _reply(proc.stdout, 2)
        return listed is not None and isinstance(listed.get("result", {}).get("tools"), list)
    except OSError:
        return False
    finally:
        timer.cancel()
        try:
            proc.stdin.close()
        except OSError:
            pass
        stop()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        proc.stdout.close()


def registry_packages(base: str) -> list[tuple[str, dict[str, Any]]]:
    """(entry name, first packages[] item) of every entry with packages, page by page."""
    import requests

    found: list[tuple[str, dict[str, Any]]] = []
    cursor = ""
    with requests.Session() as http:
        while True:
            query = {"limit": "100", "version": "latest", **({"cursor": cursor} if cursor else {})}
            page = http.get(base + "/v0.1/servers", params=query, timeout=30).json()
            for item in page["servers"]:
                packages = item["server"].get("packages") or []
                if packages:
                    found.append((item["server"]["name"], packages[0]))
            cursor = page.get("metadata", {}).get("nextCursor") or ""
            if not cursor:
                return found


def bare_packages(base: str, concurrency: int) -> int:
    """Launch every package entry's command twice, 2 * concurrency at a time."""
    import queue

    work: queue.Queue[tuple[list[str], dict[str, str]] | None] = queue.Queue()
    done = [0]
    lock = threading.Lock()

    def worker() -> None:
        while (job := work.get()) is not None:
            if bare_stdio_capture(*job):
                with lock:
                    done[0] += 1

    threads = [threading.Thread(target=worker) for _ in range(2 * concurrency)]
    for t in threads:
        t.start()
    for _, package in registry_packages(base):
        job = implied_launch(package)
        work.put(job)
        work.put(job)
    for _ in threads:
        work.put(None)
    for t in threads:
        t.join()
    print(done[0] // 2)
    return 0


# -- the benchmark -------------------------------------------------------------------------------


Arm = tuple[float, float, float]  # wall s, CPU s, peak RSS MiB


def run_pairs(
    n: int,
    pairs: int,
    flip: int,
    argv_of: Any,
    env: dict[str, str],
    counted: Any,
    before_arm: Any = None,
) -> tuple[dict[str, list[Arm]], list[str]]:
    """Both arms ``pairs`` times on ``n`` entries, their order alternating from ``flip`` on:
    ``argv_of(arm, out)`` is an arm's command, ``counted(arm, out, tail)`` its entries done
    (read before ``out`` goes), ``before_arm(arm)`` runs first, untimed."""
    runs: dict[str, list[Arm]] = {"bare": [], "sweep": []}
    loads: list[str] = []
    for pair in range(pairs):
        order = ("bare", "sweep") if (flip + pair) % 2 == 0 else ("sweep", "bare")
        for arm in order:
            if before_arm is not None:
                before_arm(arm)
            with tempfile.TemporaryDirectory(prefix="mcpcost-bench-") as tmp:
                before = load()
                wall, cpu, peak, code, tail = run_arm(argv_of(arm, tmp), env)
                after = load()
                got = counted(arm, Path(tmp), tail)
            loads.append(f"{before}->{after}")
            if code != 0 or got != n:
                print(f"  {arm} at {n}: exit {code}, {got}/{n} entries\n{tail[-1500:]}")
            runs[arm].append((wall, cpu, peak))
            print(
                f"  {n:>6} entries  {arm:<5} {wall:8.1f} s  {n / wall:7.1f} entries/s  "
                f"CPU {cpu / n * 1000:5.1f} ms/entry  "
                f"peak RSS {peak:6.1f} MiB  load {before} -> {after}",
                flush=True,
            )
    return runs, loads


def row(n: int, runs: dict[str, list[Arm]], loads: list[str]) -> dict[str, Any]:
    bare_s = statistics.median(w for w, _, _ in runs["bare"])
    sweep_s = statistics.median(w for w, _, _ in runs["sweep"])
    return {
        "n": n,
        "bare": bare_s,
        "sweep": sweep_s,
        "ratio": bare_s / sweep_s,
        "pair_ratios": [b[0] / s[0] for b, s in zip(runs["bare"], runs["sweep"], strict=True)],
        "rss_sweep": max(r for _, _, r in runs["sweep"]),
        "rss_bare": max(r for _, _, r in runs["bare"]),
        "cpu_sweep": statistics.median(c for _, c, _ in runs["sweep"]) / n * 1000,
        "cpu_bare": statistics.median(c for _, c, _ in runs["bare"]) / n * 1000,
        "loads": loads,
    }


def print_table(rows: list[dict[str, Any]], extra: tuple[str, ...] = ()) -> None:
    """The rows' table; ``extra`` names more columns, each a key of every row."""
    print(
        "| entries | bare client | sweep | throughput ratio (sweep / bare) | sweep s per 1,000 "
        "| CPU per entry (sweep / bare) | sweep peak RSS | bare peak RSS "
        "| load (before -> after each arm) |" + "".join(f" {x} |" for x in extra)
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |" + " --- |" * len(extra))
    for r in rows:
        print(
            f"| {r['n']:,} | {r['bare']:.1f} s ({r['n'] / r['bare']:.1f}/s) "
            f"| {r['sweep']:.1f} s ({r['n'] / r['sweep']:.1f}/s) | {r['ratio']:.2f}x "
            f"| {r['sweep'] / r['n'] * 1000:.1f} s "
            f"| {r['cpu_sweep']:.1f} / {r['cpu_bare']:.1f} ms | {r['rss_sweep']:.0f} MiB "
            f"| {r['rss_bare']:.0f} MiB | {'; '.join(r['loads'])} |"
            + "".join(f" {r[x]} |" for x in extra)
        )


def sweep_command(base: str, out: str, c: int) -> list[str]:
    return [
        sys.executable, "-m", "mcpcost", "sweep", "--registry", base,
        "--allow-private-addresses", "--no-publish", "--out", out,
        "--concurrency", str(c), "--timeout", "60",
    ]  # fmt: skip


def remote_points(points: list[int], c: int, pairs: int, env: dict[str, str]) -> int:
    """The remote points' table; returns how many pairs ran (for the order's alternation)."""
    from tests.servers.registry import serve_loopback_registry

    rows: list[dict[str, Any]] = []
    flip = 0
    for n in points:

        def argv_of(arm: str, tmp: str, base: str = "") -> list[str]:
            if arm == "sweep":
                return sweep_command(base, tmp, c)
            return [sys.executable, str(Path(__file__)), "--bare", base, str(c)]

        def counted(arm: str, out: Path, tail: str) -> int:
            return count_results(out) if arm == "sweep" else int(tail.split()[0] or 0)

        with serve_loopback_registry(n) as base:
            runs, loads = run_pairs(
                n, pairs, flip, lambda arm, tmp: argv_of(arm, tmp, base), env, counted
            )
        flip += pairs
        rows.append(row(n, runs, loads))
    if rows:
        print()
        print_table(rows)
    return flip


def direct_numbers(argv: list[str], env: dict[str, str]) -> tuple[Any, ...] | str:
    """``mcpcost measure`` of one command: (totalTokens, toolCount, canonicalSha256), or why not."""
    done = subprocess.run(
        [sys.executable, "-m", "mcpcost", "measure", "--json", "--timeout", "60", "--", *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    if done.returncode != 0:
        return f"exit {done.returncode}: {done.stderr.strip()[-300:]}"
    doc = json.loads(done.stdout)
    return (doc["totalTokens"], doc["toolCount"], doc["canonicalSha256"])


def packages_point(k: int, c: int, pairs: int, flip: int, env: dict[str, str]) -> None:
    """The packages point: K real package entries, both arms through the launch shims."""
    import shlex

    from tests.servers.package_entries import pinned_entries, write_shims
    from tests.servers.registry import serve_loopback_registry

    entries = pinned_entries(k)
    distinct = [e for e in entries if e.repeat == 1]
    repeats = [e.item["server"]["name"] for e in entries if e.repeat > 1]
    print(
        f"\npackages point: {k} package entries, {len(distinct)} distinct pinned servers "
        f"({', '.join(e.server for e in distinct)}); "
        + (
            f"the other {len(repeats)} repeat them under other names: "
            + ", ".join(r.rsplit("/", 1)[-1] for r in repeats)
            if repeats
            else "no repeats"
        )
    )
    with tempfile.TemporaryDirectory(prefix="mcpcost-bench-shims-") as shims:
        log = Path(shims) / "launches.jsonl"
        write_shims(Path(shims) / "bin", log)
        env = dict(env, PATH=f"{Path(shims) / 'bin'}{os.pathsep}{env.get('PATH', '')}")
        stdio_env = {k: env[k] for k in STDIO_ENV if k in env}
        started = time.perf_counter()
        warm = [bare_stdio_capture(list(e.argv), stdio_env) for e in distinct]
        print(
            f"  warm-up (untimed): each distinct command launched once, "
            f"{sum(warm)}/{len(warm)} answered tools/list, {time.perf_counter() - started:.1f} s"
        )
        launches: dict[str, list[int]] = {"bare": [], "sweep": []}
        swept: list[dict[str, dict[str, Any]]] = []  # each sweep run's records by entry name

        def before_arm(arm: str) -> None:
            log.write_text("")

        def counted(arm: str, out: Path, tail: str) -> int:
            launches[arm].append(len(log.read_text().splitlines()))
            if arm == "bare":
                return int(tail.split()[0] or 0)
            records: dict[str, dict[str, Any]] = {}
            for directory in (out / "results").iterdir():
                record = directory / "measurement.json"
                if record.is_file():
                    doc = json.loads(record.read_text())
                    records[doc.get("registryEntry", {}).get("name", directory.name)] = doc
            swept.append(records)
            return sum(1 for d in records.values() if d.get("status") == "measured")

        with serve_loopback_registry(0, packages=[e.item for e in entries]) as base:

            def argv_of(arm: str, tmp: str) -> list[str]:
                if arm == "sweep":
                    return sweep_command(base, tmp, c)
                return [sys.executable, str(Path(__file__)), "--bare-packages", base, str(c)]

            listed = registry_packages(base)
            runs, loads = run_pairs(k, pairs, flip, argv_of, env, counted, before_arm)
        # every sweep run's records against the commands the registry implies, measured
        # directly, once per distinct command (a repeat is the same command)
        implied = {name: implied_launch(package)[0] for name, package in listed}
        direct = {tuple(e.argv): direct_numbers(list(e.argv), env) for e in distinct}
    same_launch: list[int] = []
    same_numbers: list[int] = []
    for records in swept:
        same_launch.append(0)
        same_numbers.append(0)
        for e in entries:
            name = e.item["server"]["name"]
            doc = records.get(name, {})
            argv = implied.get(name)
            if argv == list(e.argv) and doc.get("launchCommand") == shlex.join(argv):
                same_launch[-1] += 1
            got = (doc.get("totalTokens"), doc.get("toolCount"), doc.get("canonicalSha256"))
            want = direct[tuple(e.argv)]
            if doc.get("status") == "measured" and got == want:
                same_numbers[-1] += 1
            else:
                print(f"  {name}: sweep {doc.get('status')} {got}, direct {want}")
    for argv, numbers in direct.items():
        print(f"  direct: {shlex.join(argv)} -> {numbers}")
    result = row(k, runs, loads)
    result["launches (sweep / bare)"] = (
        f"{'/'.join(map(str, launches['sweep']))} / {'/'.join(map(str, launches['bare']))}"
    )
    result["launched as listed"] = ", ".join(f"{n}/{k}" for n in same_launch)
    result["numbers equal direct"] = ", ".join(f"{n}/{k}" for n in same_numbers)
    print()
    print_table([result], ("launches (sweep / bare)", "launched as listed", "numbers equal direct"))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--points", default="1000,5000,10000", help="remote points; '' for none")
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--pairs", type=int, default=1, help="runs of both arms per point")
    p.add_argument(
        "--packages", type=int, default=24, metavar="K", help="package entries (0: no such point)"
    )
    p.add_argument("--bare", nargs=2, metavar=("URL", "C"), help=argparse.SUPPRESS)
    p.add_argument("--bare-packages", nargs=2, metavar=("URL", "C"), help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.bare:
        return bare(args.bare[0], int(args.bare[1]))
    if args.bare_packages:
        return bare_packages(args.bare_packages[0], int(args.bare_packages[1]))

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    points = [int(x) for x in args.points.split(",") if x.strip()]
    c = args.concurrency
    print(
        f"sweep at scale: loopback registry, concurrency {c}, {os.cpu_count()} CPUs "
        f"(affinity {len(os.sched_getaffinity(0))}), load {load()}"
    )
    flip = remote_points(points, c, args.pairs, env)
    if args.packages > 0:
        packages_point(args.packages, c, args.pairs, flip, env)
    print(f"load at the end {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
