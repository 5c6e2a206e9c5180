"""Audit wall time for a 4-server real config next to the slowest server's bare floor.

Per server: the bare floor (spawn -> ``tools/list`` answered, minimal client, median of N), the CPU
seconds one launch burns, and ``measure_server`` alone (two captures, median). The audit is
``mcpcost audit --config <4 servers> --json`` run in-process at the default concurrency (4), so
it starts 8 servers at once (two captures each). Target (issue 4): audit wall <= 1.15 x the
slowest server's bare floor. On a machine with few cores the 8 start-ups are CPU-bound: their
summed CPU seconds divided by the usable CPUs is a lower bound no client can beat, printed too.

The dual-launch floor (issue 13) is the least any tool that checks for dynamic output can do:
every server launched twice, all eight at once, by the bare client. ``mcpcost audit`` as a user
runs it (a fresh process: interpreter, imports, tokenizer, the eight launches) is timed against
it, interleaved run by run (each pair in alternating order). Target: at most 1.10x. The CLI runs
from an environment with the checkout installed as a user installs it (``pip install .`` into
``.venv-bench``, made on the first run; bytecode compiled): a development environment adds an
editable-install hook and test tools that load at start-up. ``--checkout`` runs it with this
interpreter instead. The ratio of the medians, the paired ratio (1 + the median of each CLI
run's difference from its own floor, over the median floor, with a 95% bootstrap interval), the
median of the per-run ratios and the ratio of the lower quartiles are printed: on a shared
machine the load drifts, and a run is compared with its neighbour. ``--save`` keeps each pair;
``--pool`` prints saved runs, each and together, without running anything.

    python bench/audit_wall.py [--repeat N] [--pairs N] [--concurrency N] [--checkout] [--save F]
    python bench/audit_wall.py --pool F [F ...]
"""

from __future__ import annotations

import argparse
import compileall
import io
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from measure_floor import floor_once, floor_with_cpu, machine_line  # noqa: E402

from mcpcost.audit.compose import DEFAULT_CONCURRENCY  # noqa: E402
from mcpcost.cli import main  # noqa: E402
from mcpcost.core.model import Measurement  # noqa: E402
from mcpcost.core.spec import ServerSpec  # noqa: E402
from mcpcost.measuring import MeasureOptions, measure_server  # noqa: E402
from mcpcost.transports.stdio import safe_base_env  # noqa: E402
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


def measure_alone(argv: list[str], repeat: int) -> float:
    """Median seconds of ``measure_server`` for one server alone (tokenizer already loaded)."""
    spec = ServerSpec.stdio("floor", argv)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        m = measure_server(spec, MeasureOptions(timeout_s=TIMEOUT_S))
        times.append(time.perf_counter() - t0)
        if not m.has_number:
            raise SystemExit(f"{argv}: {m.status} {m.notes}")
    return statistics.median(times)


def bare_floor(argv: list[str], repeat: int) -> tuple[float, float]:
    """(median wall, median CPU seconds) of one bare launch."""
    env = safe_base_env(os.environ)
    floor_with_cpu(argv, env)  # warm the file cache
    runs = [floor_with_cpu(argv, env) for _ in range(repeat)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def audit_wall(config: Path, concurrency: int, repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        out, err = io.StringIO(), io.StringIO()
        t0 = time.perf_counter()
        argv = ["audit", "--config", str(config), "--json", "--concurrency", str(concurrency)]
        code = main([*argv, "--timeout", str(TIMEOUT_S)], out, err)
        times.append(time.perf_counter() - t0)
        report = json.loads(out.getvalue())
        if code != 0 or report["configs"][0]["serverCount"] != len(SERVERS):
            raise SystemExit(f"audit failed ({code}): {err.getvalue()}")
    return times


def dual_launch_floor() -> float:
    """Wall seconds of every server launched twice, all at once, by the bare client."""
    env = safe_base_env(os.environ)
    argvs = [argv for argv in SERVERS.values() for _ in range(2)]
    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=len(argvs)) as pool:
        list(pool.map(lambda argv: floor_once(argv, env), argvs))
    return time.perf_counter() - t0


def quartile(values: list[float]) -> float:
    """The lower quartile (the 25th percentile)."""
    return statistics.quantiles(values, n=4)[0]


INSTALLED = ROOT / ".venv-bench"  # the package as a user installs it (pip install .)


def installed_python() -> Path:
    """The interpreter of an environment with this checkout installed as a user installs it:
    ``pip install .``, no editable-install hook, no test tools. Made once (dependencies from the
    package index); the package itself is reinstalled on every run, so it is the checkout's."""
    python = INSTALLED / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(INSTALLED)], check=True)
        subprocess.run([*pip, str(ROOT)], check=True)
    subprocess.run([*pip, "--no-deps", "--force-reinstall", str(ROOT)], check=True)
    subprocess.run([str(python), "-m", "compileall", "-q", str(INSTALLED / "lib")], check=False)
    return python


def audit_cli_once(config: Path, python: Path) -> float:
    """Wall seconds of ``python -m mcpcost audit --config CONFIG --json`` in a fresh process
    (run outside the checkout, so the installed package is the one imported)."""
    argv = [str(python), "-m", "mcpcost", "audit", "--config", str(config), "--json"]
    t0 = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=config.parent, check=False)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"audit failed ({proc.returncode}): {proc.stderr}")
    return elapsed


def engine_overhead(concurrency: int, seconds: float = 0.5) -> float:
    """Wall of the engine alone over four I/O-bound stand-ins that each take ``seconds``."""
    from mcpcost.audit.compose import measure_launches
    from tests.helpers.audit_builders import measured, tools

    def sleepy(spec: ServerSpec) -> Measurement:
        time.sleep(seconds)
        return measured(spec, tools(spec.name, 3))

    launches = {str(i): ServerSpec.stdio(f"s{i}", ["x", str(i)]) for i in range(len(SERVERS))}
    t0 = time.perf_counter()
    measure_launches(launches, sleepy, concurrency=concurrency)
    return (time.perf_counter() - t0) / seconds


def paired_ratio(floors: list[float], clis: list[float]) -> float:
    """1 + the median of the paired differences (each CLI run minus its own floor) over the
    median floor: the statistic the alternating pairs are made for."""
    diffs = [c - f for f, c in zip(floors, clis, strict=True)]
    return 1 + statistics.median(diffs) / statistics.median(floors)


def bootstrap_interval(
    floors: list[float], clis: list[float], resamples: int = 2000
) -> tuple[float, float]:
    """The 2.5th and 97.5th percentiles of ``paired_ratio`` over pairs resampled with
    replacement (a fixed seed, so the same data print the same interval)."""
    rng = random.Random(0)
    pairs = list(zip(floors, clis, strict=True))
    ratios = []
    for _ in range(resamples):
        sample = [pairs[rng.randrange(len(pairs))] for _ in pairs]
        ratios.append(paired_ratio([f for f, _ in sample], [c for _, c in sample]))
    cuts = statistics.quantiles(ratios, n=40)
    return cuts[0], cuts[-1]


def pair_summary(floors: list[float], clis: list[float]) -> list[str]:
    """The figures of a set of CLI/floor pairs, each statistic against the 1.10x target."""
    dual, cli = statistics.median(floors), statistics.median(clis)
    pairs = sorted(c / d for c, d in zip(clis, floors, strict=True))
    low, high = bootstrap_interval(floors, clis)
    # noise on a shared machine only ever adds time, so the fast end of each side is shown too
    low_cli, low_dual = quartile(clis), quartile(floors)
    return [
        f"dual-launch floor (med)  {dual * 1000:8.0f} ms   8 bare launches at once",
        f"mcpcost audit CLI (med)  {cli * 1000:8.0f} ms   {cli / dual:.3f}x dual-launch floor",
        f"paired                   {paired_ratio(floors, clis):.3f}x (1 + median of CLI - its "
        f"floor, over the median floor; 95% bootstrap {low:.3f}-{high:.3f})",
        f"per-run CLI / floor      median {statistics.median(pairs):.3f}x "
        f"(range {pairs[0]:.2f}-{pairs[-1]:.2f}, {len(pairs)} runs)",
        f"lower quartiles          {low_cli * 1000:.0f} / {low_dual * 1000:.0f} ms = "
        f"{low_cli / low_dual:.3f}x; minima {min(clis) / min(floors):.2f}x",
    ]


def pool(files: list[str]) -> None:
    """Print each saved run's figures and those of all of them together (nothing is run)."""
    floors: list[float] = []
    clis: list[float] = []
    for name in files:
        saved = json.loads(Path(name).read_text("utf-8"))
        print(f"{name}:")
        print("\n".join("  " + line for line in pair_summary(saved["floor_s"], saved["cli_s"])))
        floors += saved["floor_s"]
        clis += saved["cli_s"]
    if len(files) > 1:
        print(f"pooled, {len(files)} runs:")
        print("\n".join("  " + line for line in pair_summary(floors, clis)))
    print("target: audit CLI <= 1.10x the dual-launch floor")


def run() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--concurrency", type=int, default=DEFAULT_CONCURRENCY)
    ap.add_argument(
        "--pairs", type=int, default=0, help="CLI/floor pairs to time (default: --repeat)"
    )
    ap.add_argument(
        "--checkout",
        dest="installed",
        action="store_false",
        help="run the CLI with this interpreter from the checkout, not from an installed copy",
    )
    ap.add_argument("--save", help="write each pair's seconds to this JSON file")
    ap.add_argument(
        "--pool",
        nargs="+",
        metavar="FILE",
        help="print the figures of runs saved with --save, each and together; run nothing",
    )
    args = ap.parse_args()
    if args.pool:
        pool(args.pool)
        return
    print(machine_line("before"))
    compileall.compile_dir(str(ROOT / "mcpcost"), quiet=1)
    from mcpcost.core.tokenizer import get_tokenizer

    get_tokenizer()
    floors = {name: bare_floor(argv, args.repeat) for name, argv in SERVERS.items()}
    alone = {name: measure_alone(argv, args.repeat) for name, argv in SERVERS.items()}
    print(f"{'server':22} {'bare floor ms':>13} {'cpu s/launch':>12} {'measure alone ms':>16}")
    for name, (wall, cpu) in floors.items():
        print(f"{name:22} {wall * 1000:13.0f} {cpu:12.2f} {alone[name] * 1000:16.0f}")
    slowest = max(wall for wall, _ in floors.values())
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cpu_total = 2 * sum(cpu for _, cpu in floors.values())
    bound = max(slowest, cpu_total / (usable or 1))
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "mcp.json"
        servers = {name: {"command": a[0], "args": a[1:]} for name, a in SERVERS.items()}
        config.write_text(json.dumps({"mcpServers": servers}), "utf-8")
        walls = audit_wall(config, args.concurrency, args.repeat)
        dual_floors, cli_walls = [], []
        python = installed_python() if args.installed else Path(sys.executable)
        print(f"the CLI runs with {python}")
        for i in range(args.pairs or args.repeat):
            # each pair in alternating order, so neither side always runs just after the other
            if i % 2:
                cli_walls.append(audit_cli_once(config, python))
                dual_floors.append(dual_launch_floor())
            else:
                dual_floors.append(dual_launch_floor())
                cli_walls.append(audit_cli_once(config, python))
    best, median = min(walls), statistics.median(walls)
    print(f"slowest bare floor       {slowest * 1000:8.0f} ms")
    least = cpu_total / (usable or 1) * 1000
    print(f"CPU of the 8 launches    {cpu_total:8.2f} s on {usable} usable CPUs -> {least:.0f} ms")
    print(f"audit wall (best)        {best * 1000:8.0f} ms   {best / slowest:.2f}x slowest floor")
    print(
        f"audit wall (median)      {median * 1000:8.0f} ms   {median / slowest:.2f}x slowest "
        f"floor, {median / bound:.2f}x max(slowest floor, CPU bound)"
    )
    print("\n".join(pair_summary(dual_floors, cli_walls)))
    if args.save:
        Path(args.save).write_text(
            json.dumps({"floor_s": dual_floors, "cli_s": cli_walls}, indent=1), "utf-8"
        )
    print("target: audit CLI <= 1.10x the dual-launch floor")
    try:
        overhead = f"{engine_overhead(args.concurrency):.2f}x"
    except ImportError as exc:  # the stand-ins come from the test suite (pytest installed)
        overhead = f"not measured ({exc})"
    print(f"engine alone, 4 x 500 ms I/O-bound stand-ins: {overhead}")
    print(f"concurrency {args.concurrency}; target <= 1.15x slowest floor")
    print(machine_line("after"))


if __name__ == "__main__":
    run()
