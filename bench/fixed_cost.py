"""Bench: the fixed cost of an ``mcpcost`` process, against a bare interpreter in the same run.

Every CLI run pays interpreter start, imports and the tokenizer before it does anything useful.
This measures ``mcpcost count`` of a 14-byte document (the smallest useful run) against
``python3 -c pass`` (the floor no Python tool can go under), interleaved run by run so machine
load hits both alike. Targets (issue 13): at most 0.25 s above the floor, at most 70 MiB peak
RSS. A third row, the previous way of loading (tiktoken's full encoder from the published ranks),
shows what the compact table saves.

    PYTHONPATH=. python bench/fixed_cost.py [--runs N]

Columns: wall-clock median / min / max in ms, peak RSS median in MiB, and the difference and
ratio of the medians against the floor.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

FULL_LOAD = """
import gzip, base64, tiktoken
from mcpcost.core.tokenizer import O200K_PAT_STR, O200K_SPECIAL_TOKENS
raw = gzip.decompress(open(%r, "rb").read())
ranks = {base64.b64decode(t): int(r) for t, r in (l.split() for l in raw.splitlines() if l)}
enc = tiktoken.Encoding("o200k_base", pat_str=O200K_PAT_STR, mergeable_ranks=ranks,
                        special_tokens=O200K_SPECIAL_TOKENS)
print(len(enc.encode_ordinary(open(%r).read())))
"""


def run_once(argv: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of one child process."""
    start = time.perf_counter()
    quiet = [(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)]
    pid = os.posix_spawn(argv[0], argv, dict(os.environ), file_actions=quiet)
    _, status, usage = os.wait4(pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(argv)}")
    return elapsed, usage.ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        doc = Path(tmp) / "tiny.json"
        doc.write_text('{"a": [1, 2]}\n')  # 14 bytes
        published = ROOT / "spec" / "data" / "o200k_base.tiktoken.gz"
        rows = {
            "python3 -c pass (floor)": [sys.executable, "-c", "pass"],
            "mcpcost count (14 bytes)": [sys.executable, "-m", "mcpcost", "count", str(doc)],
            "full tiktoken encoder load": [
                sys.executable,
                "-c",
                FULL_LOAD % (str(published), str(doc)),
            ],
        }
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in rows}
        for argv in rows.values():  # warm the page cache once
            run_once(argv)
        for _ in range(args.runs):
            for name, argv in rows.items():
                samples[name].append(run_once(argv))
    load = os.getloadavg()
    print(f"runs: {args.runs} each, interleaved; load average {load[0]:.1f} {load[1]:.1f}")
    floor = statistics.median(s[0] for s in samples["python3 -c pass (floor)"])
    print(f"{'':28} {'median':>8} {'min':>7} {'max':>7} {'rss MiB':>8} {'- floor':>8} {'ratio':>6}")
    for name, runs in samples.items():
        walls = [s[0] for s in runs]
        med = statistics.median(walls)
        rss = statistics.median(s[1] for s in runs)
        print(
            f"{name:28} {med * 1000:8.0f} {min(walls) * 1000:7.0f} {max(walls) * 1000:7.0f} "
            f"{rss:8.1f} {(med - floor) * 1000:+8.0f} {med / floor:6.2f}"
        )
    count = statistics.median(s[0] for s in samples["mcpcost count (14 bytes)"])
    rss = statistics.median(s[1] for s in samples["mcpcost count (14 bytes)"])
    print(
        f"target: count at most 250 ms above the floor ({(count - floor) * 1000:.0f} ms) "
        f"and at most 70 MiB ({rss:.1f} MiB)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
