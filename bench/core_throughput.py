"""Tokenizer load time and canonical+count throughput over the reference captures.

Target (issue 2): every published capture parsed, canonicalised, hashed and counted, per tool
too, in under 0.5 s after the tokenizer is loaded, on one core.

    python bench/core_throughput.py [CAPTURE_DIR]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DIR = ROOT.parent / "shared" / "vectors" / "reference-captures"


def main() -> int:
    captures_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_DIR
    files = sorted(captures_dir.glob("*.json"))
    if not files:
        print(f"no captures in {captures_dir}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    from mcpcost.core.tokenizer import get_tokenizer

    get_tokenizer()
    load_s = time.perf_counter() - t0

    from mcpcost.core.jsonvalue import parse_json
    from mcpcost.core.measure import measure_tools

    blobs = [f.read_bytes() for f in files]
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        captures = canonical_bytes = 0
        for blob in blobs:
            capture = parse_json(blob).get("rawToolsCapture")
            if isinstance(capture, list):
                measured = measure_tools(capture)  # canonical, sha256, total and per-tool counts
                captures += 1
                canonical_bytes += len(measured.canonical.data)
        best = min(best, time.perf_counter() - start)
    wire_bytes = sum(len(b) for b in blobs)
    print(f"tokenizer load:        {load_s * 1000:8.1f} ms")
    print(f"files / captures:      {len(files):8d} / {captures}")
    print(f"canonical bytes:       {canonical_bytes:8d}  (wire files {wire_bytes} bytes)")
    print(f"all captures, best of 5: {best * 1000:6.1f} ms  (target < 500 ms)")
    print(
        f"throughput:            {canonical_bytes / best / 1e6:8.2f} MB/s canonical, "
        f"{captures / best:8.1f} captures/s"
    )
    return 0 if best < 0.5 else 1


if __name__ == "__main__":
    raise SystemExit(main())
