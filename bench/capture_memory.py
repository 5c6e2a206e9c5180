"""Bench: what one measurement of a very large server costs in memory and time.

A stdio server (``tests/servers/fixtures/many_tools_server.py``) answers ``tools/list`` with one
line of N compact tools. Each run is a fresh interpreter whose peak resident memory (VmHWM) and
wall time are read when it ends:

* ``floor``    read the same answer line from the same server and ``json.loads`` it, once: the
               least any client that holds the parsed tools pays
* ``measure``  ``measure_server`` as ``mcpcost measure`` runs it (two captures, compared, counted)
* ratios       measure / floor, and peak MiB per MiB of canonical bytes

    PYTHONPATH=. python bench/capture_memory.py [--tools N]... [--pad BYTES]

The default sizes are 100,000 and 1,000,000 compact tools (about 5 and 52 MB of canonical bytes).
A size past the capture cap (``transports.session.MAX_TOOLS_BYTES``) shows the guard's cost
instead: a ``startup-failure`` after reading up to the cap. The load average is printed: on a
shared machine the times grow with it, the memory does not.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVER = ROOT / "tests" / "servers" / "fixtures" / "many_tools_server.py"

FLOOR = """
import json, subprocess, sys
argv = json.loads(sys.argv[1])
proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "f", "version": "0"}}}
ask = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
proc.stdin.write((json.dumps(hello) + "\\n" + json.dumps(ask) + "\\n").encode())
proc.stdin.flush()
proc.stdout.readline()
tools = json.loads(proc.stdout.readline())["result"]["tools"]
proc.kill()
proc.wait()
print(json.dumps({"tools": len(tools)}))
"""

MEASURE = """
import json, sys
from mcpcost.core.spec import ServerSpec
from mcpcost.measuring import MeasureOptions, measure_server
argv = json.loads(sys.argv[1])
options = MeasureOptions(timeout_s=600, retry_timeouts=False)
m = measure_server(ServerSpec.stdio("many", argv), options)
print(json.dumps({"status": str(m.status), "tools": m.tool_count, "tokens": m.total_tokens,
                  "notes": m.notes}))
"""

PEAK = """
import atexit, os
def _peak():
    with open("/proc/self/status") as f:
        hwm = [l for l in f if l.startswith("VmHWM:")][0].split()[1]
    os.write(2, ("VMHWM " + hwm + "\\n").encode())
atexit.register(_peak)
"""


def run(code: str, argv: list[str]) -> tuple[float, int, dict[str, object]]:
    """(seconds, peak KiB, the child's JSON line) of ``code`` in a fresh interpreter."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", PEAK + code, json.dumps(argv)],
        capture_output=True,
        text=True,
        env=env,
        timeout=1800,
        check=True,
    )
    seconds = time.monotonic() - start
    peak = int(next(ln for ln in done.stderr.splitlines() if ln.startswith("VMHWM")).split()[1])
    return seconds, peak, json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, action="append")
    parser.add_argument("--pad", type=int, default=0)
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for count in args.tools or [100_000, 1_000_000]:
        argv = [sys.executable, str(SERVER), str(count), "--pad", str(args.pad)]
        canonical = count * (52 + (args.pad + 17 if args.pad else 0))
        f_s, f_kib, _ = run(FLOOR, argv)
        m_s, m_kib, result = run(MEASURE, argv)
        mib = canonical / (1 << 20)
        print(
            f"{count:>9,} tools ~{mib:6.1f} MiB canonical | floor {f_s:6.2f} s {f_kib / 1024:7.0f} "
            f"MiB | measure {m_s:6.2f} s {m_kib / 1024:7.0f} MiB | x{m_s / f_s:4.1f} time "
            f"x{m_kib / f_kib:4.1f} memory | {m_kib / 1024 / mib:5.1f} MiB per MiB | {result}"
        )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
